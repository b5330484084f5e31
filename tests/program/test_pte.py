"""The program model and its one reader/writer (program/pte.py), without torch: every
value and instruction kind survives the .pte bytes, malformed bytes are refused, and the
kernel key follows its rule."""

import pytest

from program import model
from program.pte import (ProgramFormatError, deserialize, deserialize_json, read_header,
                         serialize)


def _every_kind() -> model.Program:
    values = [
        model.Tensor("Float", [2, 3], [0, 1], allocation=model.Allocation(0, 0)),
        model.Tensor("Long", [4], [0], True, constant=model.ConstantRef(0, 64), min_sizes=[1]),
        model.Tensor("Half", [1, 8, 2, 2], [0, 2, 3, 1], allocation=model.Allocation(0, 64),
                     initial=model.ConstantRef(0, 0)),
        None,
        model.Int(-7), model.Double(0.25), model.Bool(True), model.String("mean"),
        model.IntList([4, 4]), model.DoubleList([1.5, -2.0]), model.BoolList([True, False]),
        model.TensorList([0, 2]), model.OptionalTensorList([0, -1]),
    ]
    forward = model.Method(
        "forward", values, inputs=[0], outputs=[2],
        operators=[model.Operator("aten::add", "out"), model.Operator("tailor_prim::mul")],
        delegates=[model.Delegate("xnnpack", bytes(range(7)))],
        instructions=[model.KernelCall(0, [0, 1, 4, 2]), model.DelegateCall(0, [0, 2]),
                      model.Move(0, 2), model.JumpFalse(6, 0), model.Free(1)],
        arena_sizes=[4096])
    constant = model.Method("get_max_seq_len", [model.Int(64)], outputs=[0])
    return model.Program(1, [forward, constant], [model.Segment(0, 128)])


def test_every_value_and_instruction_kind_survives_the_bytes():
    program, segment = _every_kind(), bytes(range(128))
    data = serialize(program, segment)
    assert data[4:8] == b"TL01" and read_header(data)[2] == len(segment)
    back, back_segment = deserialize(data)
    assert back == program and back_segment == segment
    # Written once, the same bytes again: the writer is deterministic.
    assert serialize(back, back_segment) == data


def test_the_json_form_is_the_schema_s():
    raw, _ = deserialize_json(serialize(_every_kind()))
    forward = raw["methods"][0]
    assert forward["values"][3].get("val_type", "NONE") == "NONE"
    assert forward["values"][11] == {"val_type": "TensorList", "val": {"items": [0, 2]}}
    assert forward["instructions"][2] == {"instr_type": "Move", "instr": {"from": 0, "to": 2}}


@pytest.mark.parametrize("mangle, message", [
    (lambda b: b[:20], "not a Tailor program"),
    (lambda b: b[:4] + b"ET12" + b[8:], "file identifier is not TL01"),
    (lambda b: b[:8] + b"XXXX" + b[12:], "missing extended header"),
    (lambda b: b[:-9], "truncated"),
    (lambda b: (4).to_bytes(4, "little") + b[4:], "root table offset 4 lies outside"),
])
def test_bytes_that_are_no_program_are_refused(mangle, message):
    data = serialize(_every_kind(), bytes(64))
    with pytest.raises(ProgramFormatError, match=message):
        deserialize(mangle(data))


def test_kernel_key_names_each_tensor_argument_in_order():
    values = _every_kind().methods[0].values
    # Scalars, None and tensor lists add nothing; dim orders are spelled out.
    assert model.kernel_key(values, [0, 3, 4, 11, 2]) == "Float;0,1|Half;0,2,3,1"
    assert model.kernel_key(values, [4, 5]) == ""
    assert model.is_kernel_key("Float;0,1|Half;0,2,3,1") and model.is_kernel_key("")
    assert not model.is_kernel_key("Float;0,1|") and not model.is_kernel_key("Float 0")
    assert model.tensor_ids(values, [0, 11, 12, 4]) == [0, 0, 2, 0]
