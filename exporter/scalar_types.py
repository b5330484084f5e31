"""torch dtypes, layouts, devices and memory formats -> the integer codes of the program.

Codes are ATen's (c10::ScalarType, c10::Layout, c10::DeviceType, c10::MemoryFormat), so a
kernel can static_cast them back. The program's Tensor.scalar_type enum holds only the
dtypes listed in SCALAR_TYPE_NAMES; other dtypes can still appear as `dtype=` arguments.
"""

import torch

# torch dtype -> c10::ScalarType code.
SCALAR_TYPE_CODES: dict[torch.dtype, int] = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.complex32: 8,
    torch.complex64: 9, torch.complex128: 10, torch.bool: 11, torch.qint8: 12,
    torch.quint8: 13, torch.qint32: 14, torch.bfloat16: 15,
}

# torch dtype -> name of the ScalarType enum in schema/program.fbs (tensor dtypes).
SCALAR_TYPE_NAMES: dict[torch.dtype, str] = {
    torch.uint8: "Byte", torch.int8: "Char", torch.int16: "Short", torch.int32: "Int",
    torch.int64: "Long", torch.float16: "Half", torch.float32: "Float",
    torch.float64: "Double", torch.bool: "Bool", torch.bfloat16: "BFloat16",
}

LAYOUT_CODES: dict[torch.layout, int] = {torch.strided: 0, torch.sparse_coo: 1}

MEMORY_FORMAT_CODES: dict[torch.memory_format, int] = {
    torch.contiguous_format: 0, torch.preserve_format: 1, torch.channels_last: 2,
    torch.channels_last_3d: 3,
}

# c10::DeviceType codes of the devices an exported CPU graph may name.
DEVICE_TYPE_CODES: dict[str, int] = {"cpu": 0, "meta": 9}
