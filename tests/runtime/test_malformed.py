"""Malformed programs: each gives a clear error and exit code 1, never a crash or a
sanitizer report (the `run` fixture fails the test on any ASan/UBSan output)."""

import os
import re
import struct

import numpy as np
import pytest

import programs as P


def expect_error(run, pte, *messages, args=()):
    r = run(pte, *args)
    assert r.returncode == 1, r
    for m in messages:
        assert m in r.stderr, r
    return r


def relu_bytes(tmp_path, prog=None, segment=b""):
    pte = tmp_path / "p.pte"
    data = P.write(pte, prog or P.program(P.relu_method()), segment)
    return pte, bytearray(data)


# --- file structure -------------------------------------------------------------------

def const_program(tmp_path):
    c = np.arange(6, dtype=np.float32)
    return relu_bytes(tmp_path, P.program(P.add_const_method(), segments=[(0, 24)]), c.tobytes())


@pytest.mark.parametrize("cut", ["0", "3", "8", "39", "40", "program-1", "program//2",
                                 "segment+10"])
def test_truncated_file(tmp_path, run, cut):
    pte, data = const_program(tmp_path)
    program_size, segment_base = struct.unpack_from("<QQ", data, 16)
    n = eval(cut, {}, {"program": program_size, "segment": segment_base})
    pte.write_bytes(bytes(data[:n]))
    r = run(pte)
    assert r.returncode == 1, r
    assert f"{pte}: cannot load program: InvalidProgram" in r.stderr
    if n < 40:
        assert "too short to be a program (truncated?)" in r.stderr
    elif n < program_size:
        assert "program is truncated: header says" in r.stderr
    else:
        assert "program is truncated: constant segment" in r.stderr


def test_wrong_file_identifier(tmp_path, run):
    pte, data = relu_bytes(tmp_path)
    data[4:8] = b"ET12"
    pte.write_bytes(bytes(data))
    expect_error(run, pte, "not a Tailor program: file identifier is 'ET12', expected 'TL01'")


@pytest.mark.parametrize("field,value,message", [
    ("magic", b"XXXX", "corrupt extended header: magic is 'XXXX', expected 'TLH1'"),
    ("header_size", struct.pack("<I", 16), "corrupt extended header: header size 16"),
    ("program_size", struct.pack("<Q", 12), "corrupt extended header: program size 12"),
    ("program_size", struct.pack("<Q", 1 << 40), "corrupt extended header: program size"),
    ("segment_base", struct.pack("<Q", 4097), "must be 4096-aligned"),
    ("segment_size", struct.pack("<Q", 1 << 62), "program is truncated: constant segment"),
])
def test_corrupt_extended_header(tmp_path, run, field, value, message):
    pte, data = const_program(tmp_path)
    offset = {"magic": 8, "header_size": 12, "program_size": 16, "segment_base": 24,
              "segment_size": 32}[field]
    data[offset:offset + len(value)] = value
    pte.write_bytes(bytes(data))
    expect_error(run, pte, message, "cannot load program: InvalidProgram")


def test_corrupt_flatbuffer_is_rejected_by_verifier(tmp_path, run):
    pte, data = relu_bytes(tmp_path)
    data[0:4] = struct.pack("<I", len(data) + 100)  # root offset past the end
    pte.write_bytes(bytes(data))
    expect_error(run, pte, "program flatbuffer is malformed")


def test_segment_outside_segment_data(tmp_path, run):
    c = np.arange(6, dtype=np.float32)
    pte, _ = relu_bytes(tmp_path, P.program(P.add_const_method(), segments=[(0, 4096)]),
                        c.tobytes())
    expect_error(run, pte, "segment 0 [0, +4096) is outside the 24 bytes of segment data")


def test_duplicate_method_names(tmp_path, run):
    """Methods are found by name: a second 'forward' would never run."""
    pte, _ = relu_bytes(tmp_path, P.program(P.relu_method(), dict(P.relu_method(), name="other"),
                                            P.relu_method()))
    expect_error(run, pte, "methods 0 and 2 are both named 'forward'; method names must be "
                 "unique", f"{pte}: cannot load program: InvalidProgram")
    pte, _ = relu_bytes(tmp_path, P.program(P.relu_method(), dict(P.relu_method(), name="other")))
    assert run(pte).returncode == 0


# --- method contents ------------------------------------------------------------------

def expect_load_error(run, tmp_path, prog, *messages, error="InvalidProgram", segment=b""):
    pte, _ = relu_bytes(tmp_path, prog, segment)
    return expect_error(run, pte, *messages,
                        f"{pte}: cannot load method 'forward': {error}")


def test_operator_index_out_of_range(tmp_path, run):
    m = P.relu_method()
    m["instructions"] = [P.kernel_call(5, [0, 1])]
    expect_load_error(run, tmp_path, P.program(m),
                      "method 'forward': instruction 0: operator index 5 out of range "
                      "(1 operators)")


def test_argument_value_index_out_of_range(tmp_path, run):
    m = P.relu_method()
    m["instructions"] = [P.kernel_call(0, [0, 7])]
    expect_load_error(run, tmp_path, P.program(m),
                      "aten::relu.out argument 1 refers to value 7, out of range (2 values)")


@pytest.mark.parametrize("where,message", [
    ("inputs", "input 0 refers to value 9, out of range"),
    ("outputs", "output 0 refers to value 9, out of range"),
])
def test_io_value_index_out_of_range(tmp_path, run, where, message):
    m = P.relu_method()
    m[where] = [9]
    expect_load_error(run, tmp_path, P.program(m), message)


def test_arena_offset_beyond_arena(tmp_path, run):
    m = P.relu_method()
    m["values"][1] = P.tensor((4, 4), offset=100)
    expect_load_error(run, tmp_path, P.program(m),
                      "value 1: planned range [100, +64) is outside arena 0 (128 bytes)")


def test_arena_index_out_of_range(tmp_path, run):
    m = P.relu_method()
    m["values"][1] = P.tensor((4, 4), arena=3)
    expect_load_error(run, tmp_path, P.program(m), "value 1: arena 3 out of range (1 arenas)")


@pytest.mark.parametrize("segment,offset,message", [
    (0, 64, "constant [segment 0, offset 64, 24 bytes] is outside the constant segment"),
    (2, 0, "constant [segment 2, offset 0, 24 bytes] is outside the constant segment"),
])
def test_constant_beyond_segment(tmp_path, run, segment, offset, message):
    m = P.add_const_method()
    m["values"][1] = P.tensor((2, 3), constant=(segment, offset))
    c = np.arange(6, dtype=np.float32)
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]), "value 1: " + message,
                      segment=c.tobytes())


def test_tensor_without_memory(tmp_path, run):
    m = P.relu_method()
    m["values"][1] = P.tensor((4, 4), arena=None)
    expect_load_error(run, tmp_path, P.program(m),
                      "tensor of 64 bytes has no memory (no constant, no allocation)")


@pytest.mark.parametrize("change,message", [
    ({"scalar_type": 9}, "tensor has invalid dtype code 9"),
    ({"dim_order": [0, 0]}, "dim_order is not a permutation of 0..1"),
    ({"dim_order": [0]}, "dim_order has 1 entries for 2 dims"),
    ({"sizes": [4, -1]}, "size -1 of dim 1 is negative"),
    ({"sizes": [1] * 17, "dim_order": list(range(17))}, "tensor has 17 dims"),
])
def test_bad_tensor_metadata(tmp_path, run, change, message):
    m = P.relu_method()
    m["values"][0]["val"].update(change)
    expect_load_error(run, tmp_path, P.program(m), "value 0: " + message)


@pytest.mark.parametrize("kind,items,message", [
    ("IntList", [0], "IntList item 0 refers to value 0 of kind Tensor"),
    ("TensorList", [5], "list item 0 refers to value 5, out of range (3 values)"),
    ("OptionalTensorList", [-2], "list item 0 refers to value -2, out of range"),
])
def test_bad_list_items(tmp_path, run, kind, items, message):
    m = P.relu_method()
    m["values"].append({"val_type": kind, "val": {"items": items}})
    expect_load_error(run, tmp_path, P.program(m), "value 2: " + message)


def test_bad_jump_and_move(tmp_path, run):
    m = P.relu_method()
    m["values"].append(P.scalar("Int", 1))
    m["instructions"].append({"instr_type": "JumpFalse", "instr": {"cond": 2, "destination": 0}})
    expect_load_error(run, tmp_path, P.program(m), "instruction 1: jump condition 2 is not a "
                      "Bool value")
    m["values"][2] = P.scalar("Bool", True)
    for backward in (0, 1):
        m["instructions"][1]["instr"]["destination"] = backward
        expect_load_error(run, tmp_path, P.program(m), f"instruction 1: jump destination "
                          f"{backward} is not after the jump; jumps go forward")
    m["values"][2] = P.scalar("Int", 1)
    m["instructions"][1] = {"instr_type": "Move", "instr": {"from": 2, "to": 0}}
    expect_load_error(run, tmp_path, P.program(m), "instruction 1: move from a Int value to a "
                      "Tensor value")


def test_delegate_call_without_its_backend(tmp_path, run):
    m = P.relu_method()
    m["delegates"] = [{"backend": "xnnpack", "data": [1, 2, 3]}]
    m["instructions"] = [{"instr_type": "DelegateCall", "instr": {"delegate_index": 0,
                                                                   "args": [0, 1]}}]
    expect_load_error(run, tmp_path, P.program(m),
                      "instruction 0: delegate 0 needs backend 'xnnpack', which this runtime "
                      "was built without (its backends: none)",
                      error="NotSupported")


# --- kernels --------------------------------------------------------------------------

def test_missing_kernel(tmp_path, run):
    m = P.relu_method()
    m["operators"] = [{"name": "aten::mul", "overload": "out"}]
    m["values"].append(P.tensor((4, 4), offset=64))
    m["instructions"] = [P.kernel_call(0, [0, 0, 1])]
    pte, _ = relu_bytes(tmp_path, P.program(m))
    expect_error(run, pte,
                 f"{pte}: method 'forward': no kernel for operator aten::mul.out "
                 "(key Float;0,1|Float;0,1|Float;0,1) in this runtime",
                 "cannot load method 'forward': OperatorMissing")


def test_kernel_for_other_dtypes_only(tmp_path, run):
    pte, _ = relu_bytes(tmp_path, P.program(P.relu_method(dtype="Double")))
    expect_error(run, pte, "no kernel for operator aten::relu.out (key Double;0,1|Double;0,1) "
                 "in this runtime; its kernels were built for other dtypes or dim orders")


def test_call_with_too_few_arguments(tmp_path, run):
    c = np.zeros(6, np.float32)
    m = P.add_const_method()
    m["instructions"] = [P.kernel_call(0, [0, 1, 3])]
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]),
                      "instruction 0: aten::add.out takes 4 arguments (signature TTS!T), the "
                      "call passes 3", segment=c.tobytes())


def test_call_with_argument_of_wrong_kind(tmp_path, run):
    c = np.zeros(6, np.float32)
    m = P.add_const_method()
    m["instructions"] = [P.kernel_call(0, [0, 2, 2, 3])]
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]),
                      "instruction 0: aten::add.out argument 1 is a Int value, the kernel "
                      "expects 'T'", segment=c.tobytes())


def const_weight_program(tmp_path, out=1, move=None):
    """add.out(x, W, 2, out=<out>) with W a constant; optionally a Move first."""
    c = np.arange(6, dtype=np.float32)
    m = P.add_const_method()
    m["instructions"] = [P.kernel_call(0, [0, 1, 2, out])]
    if move is not None:
        m["instructions"].insert(0, {"instr_type": "Move", "instr": {"from": move[0],
                                                                     "to": move[1]}})
    return P.program(m, segments=[(0, 24)]), c.tobytes()


@pytest.mark.parametrize("loader", ["mmap", "buffer"])
def test_kernel_cannot_write_a_constant(tmp_path, run, run_tool, loader):
    """add.out(x, W, out=W) would double the weight on every run through the mmap
    loader and fault on read-only memory: load refuses it with either loader."""
    prog, segment = const_weight_program(tmp_path, out=1)
    pte, _ = relu_bytes(tmp_path, prog, segment)
    message = ("instruction 0: aten::add.out argument 3 is written by the kernel, but value "
               "1 is a constant tensor; out arguments must be planned memory")
    if loader == "mmap":
        expect_error(run, pte, message, "cannot load method 'forward': InvalidProgram")
    else:
        r = run_tool("loaders", pte)
        assert "buffer: methods 1, allocator" in r.stdout and "InvalidProgram" in r.stdout, r
        assert message in r.stderr, r


def test_constant_in_an_out_list_is_refused(tmp_path, run):
    c = np.arange(6, dtype=np.float32)
    m = P.method(values=[P.tensor((2, 3), offset=0), P.scalar("Int", 0),
                         P.tensor((3,), offset=64), P.tensor((3,), constant=(0, 0)),
                         {"val_type": "TensorList", "val": {"items": [2, 3]}}],
                 instructions=[P.kernel_call(0, [0, 1, 4])],
                 operators=[("aten::unbind_copy", "int_out")],
                 inputs=[0], outputs=[2], arena_sizes=[128])
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]),
                      "aten::unbind_copy.int_out argument 2 is written by the kernel, but "
                      "value 3 is a constant tensor", segment=c.tobytes())
    # The same call with planned outputs (apart from the input) loads and runs.
    m["values"][3] = P.tensor((3,), offset=96)
    pte, _ = relu_bytes(tmp_path, P.program(m, segments=[(0, 24)]), c.tobytes())
    assert run(pte).returncode == 0


def test_constant_cannot_move(tmp_path, run):
    """A Move would put the constant's tensor where a kernel writes (here the out slot)."""
    prog, segment = const_weight_program(tmp_path, out=3, move=(1, 3))
    expect_load_error(run, tmp_path, prog, "instruction 0: move 1 -> 3 moves value 1, a "
                      "constant tensor; only planned tensors may move", segment=segment)


def test_unselected_dtype_fails_at_run_time(tmp_path, run):
    c = np.zeros(6, np.float64)
    pte, _ = relu_bytes(tmp_path, P.program(P.add_const_method(dtype="Double"),
                                            segments=[(0, c.nbytes)]), c.tobytes())
    expect_error(run, pte, "add.out: dtype Double is not selected in this build",
                 "method 'forward': instruction 0 (aten::add.out) failed: InvalidArgument",
                 "method 'forward' failed: InvalidArgument")


# --- inputs ---------------------------------------------------------------------------

def test_input_of_wrong_shape(tmp_path, run):
    pte, _ = relu_bytes(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((3, 5), np.float32))
    expect_error(run, pte,
                 "method 'forward': input 0: shape [3, 5] does not match the expected [4, 4]",
                 f"{tmp_path / 'x.npy'}: cannot use shape [3, 5] as input 0",
                 args=("--input", tmp_path / "x.npy"))


def test_wrong_number_of_inputs(tmp_path, run):
    pte, _ = relu_bytes(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float32))
    expect_error(run, pte, "method 'forward' takes 1 inputs, got 2 input files",
                 args=("--input", tmp_path / "x.npy", tmp_path / "x.npy"))


# --- resource limits ------------------------------------------------------------------

def test_huge_arena_is_refused_before_allocating(tmp_path, run):
    """A 2 GiB (or 1 PiB) arena in a tiny file fails at load with the figure; under the
    sanitizer, too, where the allocation itself would abort."""
    for arena in (2 << 30, 1 << 50):
        m = P.relu_method()
        m["arena_sizes"] = [arena]
        pte, _ = relu_bytes(tmp_path, P.program(m))
        r = expect_error(run, pte, "cannot load method 'forward': LimitExceeded")
        # The arena plus the method allocator's few hundred bytes.
        planned = int(re.search(r"method 'forward' plans (\d+) bytes of memory", r.stderr)[1])
        assert arena < planned < arena + 1024, r
        assert "over the limit of 1073741824; raise LoadLimits::max_memory_bytes (runner " \
            "--max-memory)" in r.stderr, r


def test_memory_limit_can_be_raised_and_lowered(tmp_path, run):
    m = P.relu_method()
    m["arena_sizes"] = [3 << 20]
    pte, _ = relu_bytes(tmp_path, P.program(m))
    assert run(pte).returncode == 0
    expect_error(run, pte, "over the limit of 2097152", args=("--max-memory", "2M"))
    assert run(pte, "--max-memory", "4M").returncode == 0
    r = run(pte, "--max-memory", "lots")
    assert r.returncode == 2 and "'lots' is not a count" in r.stderr, r


def test_work_per_run_is_bounded(tmp_path, run):
    """Many calls over one planned tensor: little memory, but each run touches them all."""
    m = P.relu_method()
    m["instructions"] = [P.kernel_call(0, [0, 1])] * 1000
    pte, _ = relu_bytes(tmp_path, P.program(m))
    assert run(pte).returncode == 0
    r = expect_error(run, pte, "method 'forward' touches 32000 tensor elements per run, over "
                     "the limit of 10000", "cannot load method 'forward': LimitExceeded",
                     args=("--max-elements", "10000"))


# --- fuzz -----------------------------------------------------------------------------

def test_byte_corruption_never_crashes(tmp_path, run):
    """Every byte of a small program's flatbuffer, changed, loads and runs or fails
    cleanly; so does every truncation point."""
    c = np.arange(6, dtype=np.float32)
    _, data = relu_bytes(tmp_path, P.program(P.add_const_method(), segments=[(0, 24)]),
                         c.tobytes())
    program_size = struct.unpack_from("<Q", data, 16)[0]
    rng = np.random.default_rng(1234)
    outcomes = {0: 0, 1: 0}
    for pos in range(program_size):
        mutated = bytearray(data)
        mutated[pos] ^= int(rng.integers(1, 256))
        pte = tmp_path / "m.pte"
        pte.write_bytes(bytes(mutated))
        outcomes[run(pte).returncode] += 1  # run() asserts no sanitizer report
    for n in range(0, len(data), 97):
        pte = tmp_path / "t.pte"
        pte.write_bytes(bytes(data[:n]))
        assert run(pte).returncode == 1
    # Both outcomes occur: some bytes are padding or values, most are structure.
    assert outcomes[0] > 0 and outcomes[1] > program_size // 4, outcomes


@pytest.mark.parametrize("change,message", [
    ({"initial": {"segment": 0, "offset": 64}},
     "constant [segment 0, offset 64, 24 bytes] is outside the constant segment"),
    ({"initial": {"segment": 0, "offset": 0}, "dynamic": True},
     "a mutable buffer (with an initial value) must be planned and static"),
])
def test_bad_mutable_buffer(tmp_path, run, change, message):
    m = P.add_const_method()
    m["values"][3]["val"].update(change)
    c = np.arange(6, dtype=np.float32)
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]), "value 3: " + message,
                      segment=c.tobytes())


def test_mutable_buffer_without_planned_memory(tmp_path, run):
    m = P.add_const_method()
    m["values"][1]["val"]["initial"] = {"segment": 0, "offset": 0}   # a constant: read-only
    c = np.arange(6, dtype=np.float32)
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 24)]),
                      "value 1: a mutable buffer (with an initial value) must be planned",
                      segment=c.tobytes())


def test_misaligned_8_byte_vector_is_rejected(run):
    # Found by the fuzzer: a vector of 8-byte elements whose length word is 4-byte aligned
    # passes the flatbuffers verifier, and reading its elements was a misaligned load.
    pte = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "fuzz", "regressions", "misaligned_arena_sizes.pte")
    expect_error(run, pte, "method 0: arena_sizes are not 8-byte aligned in the file "
                 "(corrupt program)", f"{pte}: cannot load program: InvalidProgram")


@pytest.mark.parametrize("initial", [False, True])
def test_bool_constant_that_is_not_0_or_1_is_rejected(tmp_path, run, initial):
    # Found by the fuzzer: a Bool constant with byte 4 reached add.out, and a C++ bool load
    # of any byte but 0 or 1 is undefined behaviour. Checked at load, for constants and for
    # a mutable buffer's initial value alike.
    m = P.relu_method()
    where = ({"initial": {"segment": 0, "offset": 0}, "allocation": {"arena": 0,
                                                                     "offset": 128}}
             if initial else {"constant": {"segment": 0, "offset": 0}})
    flag = {"val_type": "Tensor", "val": {"scalar_type": "Bool", "sizes": [4],
                                           "dim_order": [0], "dynamic": False, **where}}
    m["values"].append(flag)
    m["arena_sizes"] = [192]
    expect_load_error(run, tmp_path, P.program(m, segments=[(0, 4)]),
                      f"value 2: Bool {'initial value' if initial else 'constant'} holds byte "
                      "2 at element 3; a Bool is 0 or 1", segment=bytes([1, 0, 1, 2]))


@pytest.mark.parametrize("out_offset,ok", [(32, False), (0, True), (64, True)])
def test_written_tensor_partly_overlapping_an_input_is_rejected(tmp_path, run, out_offset, ok):
    # Found by the fuzzer: a plan laying view_copy's out 4 bytes into its input made the
    # kernel memcpy between overlapping ranges. The same memory (in place) or apart is fine.
    m = P.relu_method()
    m["values"][1]["val"]["allocation"]["offset"] = out_offset
    pte, _ = relu_bytes(tmp_path, P.program(m))
    r = run(pte)
    assert (r.returncode == 0) == ok, r
    if not ok:
        assert ("instruction 0: aten::relu.out argument 1 is written by the kernel, but its "
                "memory partly overlaps argument 0's") in r.stderr
