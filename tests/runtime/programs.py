"""Small hand-written programs (flatbuffer JSON form) for the runtime tests."""

import os

import numpy as np

from program.pte import serialize_json


def tensor(sizes, dtype="Float", arena=0, offset=0, dynamic=False, dim_order=None,
           constant=None, min_sizes=None):
    """A Tensor value: planned at (arena, offset), or a constant at (segment, offset)."""
    t = {"scalar_type": dtype, "sizes": list(sizes),
         "dim_order": list(range(len(sizes))) if dim_order is None else list(dim_order),
         "dynamic": dynamic}
    if min_sizes is not None:
        t["min_sizes"] = list(min_sizes)
    if constant is not None:
        t["constant"] = {"segment": constant[0], "offset": constant[1]}
    elif arena is not None:
        t["allocation"] = {"arena": arena, "offset": offset}
    return {"val_type": "Tensor", "val": t}


def scalar(kind, value):
    return {"val_type": kind, "val": {"value": value}}


def kernel_call(op_index, args):
    return {"instr_type": "KernelCall", "instr": {"op_index": op_index, "args": list(args)}}


def method(values, instructions, operators, inputs, outputs, arena_sizes, name="forward"):
    return {"name": name, "values": values, "instructions": instructions,
            "operators": [{"name": n, "overload": o} for n, o in operators],
            "inputs": list(inputs), "outputs": list(outputs), "arena_sizes": list(arena_sizes)}


def relu_method(shape=(4, 4), dtype="Float", dynamic=False):
    """y = relu(x); x at arena offset 0, y right after it (64-byte aligned)."""
    nbytes = int(np.prod(shape)) * np.dtype({"Float": np.float32, "Double": np.float64}[dtype]).itemsize
    out_off = (nbytes + 63) // 64 * 64
    return method(
        values=[tensor(shape, dtype, offset=0, dynamic=dynamic),
                tensor(shape, dtype, offset=out_off, dynamic=dynamic)],
        instructions=[kernel_call(0, [0, 1])],
        operators=[("aten::relu", "out")],
        inputs=[0], outputs=[1], arena_sizes=[2 * out_off])


def add_const_method(shape=(2, 3), dtype="Float", alpha=2):
    """y = x + alpha * c with c a constant in segment 0: values x, c, alpha, y."""
    itemsize = np.dtype(NP_DTYPES[dtype]).itemsize
    nbytes = int(np.prod(shape)) * itemsize
    out_off = (nbytes + 63) // 64 * 64
    alpha_value = scalar("Int", alpha) if isinstance(alpha, int) else scalar("Double", alpha)
    return method(
        values=[tensor(shape, dtype, offset=0), tensor(shape, dtype, constant=(0, 0)),
                alpha_value, tensor(shape, dtype, offset=out_off)],
        instructions=[kernel_call(0, [0, 1, 2, 3])],
        operators=[("aten::add", "out")],
        inputs=[0], outputs=[3], arena_sizes=[2 * out_off])


NP_DTYPES = {"Float": np.float32, "Double": np.float64, "Int": np.int32, "Long": np.int64}


def program(*methods, segments=()):
    return {"version": 0, "methods": list(methods),
            "segments": [{"offset": o, "size": s} for o, s in segments]}


def write(path, prog, segment=b""):
    data = serialize_json(prog, segment)
    with open(path, "wb") as f:
        f.write(data)
    return data


def write_io(pte_path, inputs, expected):
    """Writes <dir>/<stem>_io/input_<i>.npy and expected_<i>.npy next to a program."""
    io_dir = os.path.splitext(str(pte_path))[0] + "_io"
    os.makedirs(io_dir, exist_ok=True)
    for i, a in enumerate(inputs):
        np.save(os.path.join(io_dir, f"input_{i}.npy"), a)
    for i, a in enumerate(expected):
        np.save(os.path.join(io_dir, f"expected_{i}.npy"), a)
    return io_dir
