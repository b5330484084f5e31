"""ctypes declarations of the C API (c_api/tailor.h): its types and function signatures.

Kept apart from tailor/runtime.py, which turns them into Python objects and errors.
"""

import ctypes

from codegen.dtypes import SCALAR_TYPE_CODES

C_API_VERSION = 1  # TL_C_API_VERSION of the header these declarations follow
MAX_RANK = 16      # TL_MAX_RANK

# tl_value_kind
KIND_TENSOR, KIND_INT, KIND_DOUBLE, KIND_BOOL, KIND_OTHER = 1, 2, 3, 4, 5

# tl_dtype codes by name (the runtime's ScalarType names and codes).
DTYPES = SCALAR_TYPE_CODES


class ValueInfo(ctypes.Structure):
    """tl_value_info"""
    _fields_ = [("kind", ctypes.c_int32), ("dtype", ctypes.c_int32), ("rank", ctypes.c_uint32),
                ("is_dynamic", ctypes.c_uint32), ("sizes", ctypes.c_int64 * MAX_RANK),
                ("nbytes", ctypes.c_uint64)]


class MethodOptions(ctypes.Structure):
    """tl_method_options"""
    _fields_ = [("num_threads", ctypes.c_uint32), ("max_memory_bytes", ctypes.c_uint64),
                ("max_elements_per_execute", ctypes.c_uint64)]


_P = ctypes.c_void_p
_SIZE = ctypes.c_size_t
_STATUS = ctypes.c_int

# name: (result type, argument types)
_SIGNATURES = {
    "tl_api_version": (ctypes.c_uint32, []),
    "tl_status_name": (ctypes.c_char_p, [_STATUS]),
    "tl_last_error": (ctypes.c_char_p, []),
    "tl_program_load_file": (_STATUS, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "tl_program_load_buffer": (_STATUS, [_P, _SIZE, ctypes.POINTER(_P)]),
    "tl_program_destroy": (None, [_P]),
    "tl_program_method_count": (_STATUS, [_P, ctypes.POINTER(_SIZE)]),
    "tl_program_method_name": (_STATUS, [_P, _SIZE, ctypes.POINTER(ctypes.c_char_p)]),
    "tl_method_load": (_STATUS, [_P, ctypes.c_char_p, ctypes.POINTER(MethodOptions),
                                 ctypes.POINTER(_P)]),
    "tl_method_destroy": (None, [_P]),
    "tl_method_input_count": (_STATUS, [_P, ctypes.POINTER(_SIZE)]),
    "tl_method_output_count": (_STATUS, [_P, ctypes.POINTER(_SIZE)]),
    "tl_method_input_info": (_STATUS, [_P, _SIZE, ctypes.POINTER(ValueInfo)]),
    "tl_method_output_info": (_STATUS, [_P, _SIZE, ctypes.POINTER(ValueInfo)]),
    "tl_method_set_input": (_STATUS, [_P, _SIZE, ctypes.c_int, _P, _SIZE,
                                      ctypes.POINTER(ctypes.c_int64), _SIZE]),
    "tl_method_set_seed": (_STATUS, [_P, ctypes.c_uint64]),
    "tl_method_execute": (_STATUS, [_P]),
    "tl_method_copy_output": (_STATUS, [_P, _SIZE, _P, _SIZE]),
}


def declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Sets the result and argument types of every C API function of `lib`; an
    AttributeError names a function the library lacks."""
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib
