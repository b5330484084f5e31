"""Op info from programs, op lists and YAML; their union; the selected_ops.yaml format."""

import os

import pytest

from codegen import oplist as oplist_stage
from codegen.errors import ManifestError
from codegen.oplist import (OpUse, merge_oplists, oplist_to_yaml, ops_from_list,
                            ops_from_program, parse_oplist)
from codegen_helpers import NONE, program, scalar, tensor
from program import model
from program.pte import serialize

# addmm(bias, x, w^T) in Float, then sym_size and a prim op on the result.
MLP_VALUES = [tensor("Float", [0]), tensor("Float", [0, 1]), tensor("Float", [1, 0]),
              scalar("Int", 1), scalar("Double", 0.5), tensor("Float", [0, 1]),
              scalar("Int", 0), NONE]
MLP_CALLS = [("aten::addmm.out", [0, 1, 2, 3, 4, 5]), ("aten::sym_size.int", [5, 6, 7]),
             ("tailor_prim::mul.int", [6, 6, 7])]


def test_program_op_info(aten):
    ops = ops_from_program(program(MLP_VALUES, MLP_CALLS), "mlp", aten, "mlp.pte")
    addmm, sym_size, mul = ops.ops
    # Scalar dtypes are reported apart: kernels never switch on them.
    assert addmm == OpUse("aten::addmm.out", ("Float",), False, ("0", "0,1", "1,0"),
                          (("Float;0|Float;0,1|Float;1,0|Float;0,1", ("mlp",)),), ("mlp",),
                          ("Double", "Long"))
    assert (sym_size.op, sym_size.kernel_keys) == ("aten::sym_size.int", (("Float;0,1", ("mlp",)),))
    # Unknown schema: recorded by position (no tensors here, so the key is "").
    assert (mul.op, mul.dtypes, mul.kernel_keys) == ("tailor_prim::mul.int", (), (("", ("mlp",)),))


def test_absent_optional_tensor_is_left_out_of_the_key(aten):
    values = [tensor("Half", [0, 1]), NONE, scalar("Int", 1), tensor("Half", [0, 1])]
    ops = ops_from_program(program(values, [("aten::_log_softmax.out", [0, 2, 1, 3])]),
                           "m", aten, "m.pte")
    assert ops.ops[0].kernel_keys == (("Half;0,1|Half;0,1", ("m",)),)
    values = [tensor("Float", [0, 1]), tensor("Float", [0, 1]), NONE, scalar("Int", 1),
              scalar("Int", -100), tensor("Float", []), tensor("Float", [])]
    use = ops_from_program(program(values, [("aten::nll_loss_forward.output", [0, 1, 2, 3, 4,
                                                                                5, 6])]),
                           "m", aten, "m.pte").ops[0]
    assert use.kernel_keys[0][0] == "Float;0,1|Float;0,1|Float;|Float;"


def test_tensor_list_dtypes_count_but_stay_out_of_the_key(aten):
    values = [tensor("Int", [0]), tensor("Int", [0]),
              model.TensorList([0, 1]), scalar("Int", 0),
              tensor("Int", [0])]
    use = ops_from_program(program(values, [("aten::cat.out", [2, 3, 4])]), "m", aten,
                           "m.pte").ops[0]
    assert use.kernel_keys == (("Int;0", ("m",)),) and use.dtypes == ("Int",)


def test_custom_schema_from_a_library(aten, library):
    prim = library("""
        - func: tailor_prim::mul.int(int a, int b) -> int
          kernels: [{arg_meta: null, kernel_name: tailor::prim::mul_int}]
        """, "prim")
    schemas = {**aten, **prim.schemas()}
    values = [scalar("Int", 2), NONE]
    # With the schema, the return slot is known: two ints and a slot are three values.
    with pytest.raises(ManifestError, match=r"2 arguments, but the schema .* takes 3"):
        ops_from_program(program(values, [("tailor_prim::mul.int", [0, 0])]), "m", schemas,
                         "m.pte")
    use = ops_from_program(program(values, [("tailor_prim::mul.int", [0, 0, 1])]), "m",
                           schemas, "m.pte").ops[0]
    assert use.kernel_keys == (("", ("m",)),)


def test_argument_count_mismatch_is_reported(aten):
    values = [tensor("Float", [0]), tensor("Float", [0])]
    with pytest.raises(ManifestError) as e:
        ops_from_program(program(values, [("aten::relu.out", [0, 1, 1])]), "m", aten, "m.pte")
    assert str(e.value).startswith("m.pte: method forward instruction 0 (aten::relu.out): "
                                   "3 arguments, but the schema")
    with pytest.raises(ManifestError, match="value id 9 is out of range"):
        ops_from_program(program(values, [("aten::relu.out", [0, 9])]), "m", aten, "m.pte")


def test_op_list_string_selects_every_dtype(aten):
    ops = ops_from_list("aten::mm.out, relu.out,", aten)
    assert [(u.op, u.all_dtypes) for u in ops.ops] == [("aten::mm.out", True),
                                                        ("aten::relu.out", True)]
    with pytest.raises(ManifestError, match="aten::relu is not an ATen operator; did you "):
        ops_from_list("relu", aten)


def test_union_of_sources(aten):
    first = ops_from_program(program(MLP_VALUES, MLP_CALLS), "mlp", aten, "mlp.pte")
    values = [tensor("Double", [0, 1]), tensor("Double", [0, 1])]
    second = ops_from_program(program(values, [("aten::relu.out", [0, 1])]), "tiny", aten,
                              "tiny.pte")
    merged = merge_oplists([first, second, ops_from_list("aten::relu.out,aten::addmm.out")])
    relu = merged.get("aten::relu.out")
    assert relu.all_dtypes and relu.models == ("tiny",)
    assert relu.kernel_keys == (("Double;0,1|Double;0,1", ("tiny",)),)
    assert merged.get("aten::addmm.out").models == ("mlp",)
    assert [u.op for u in merged.ops] == sorted(u.op for u in merged.ops)


def test_yaml_round_trip_and_format(aten):
    ops = merge_oplists([ops_from_program(program(MLP_VALUES, MLP_CALLS), "mlp", aten, "x"),
                         ops_from_list("aten::mm.out")])
    text = oplist_to_yaml(ops)
    assert parse_oplist(text, "selected_ops.yaml") == ops
    assert "  aten::addmm.out:\n    dtypes: [Float]\n    scalar_dtypes: [Double, Long]\n" \
           "    dim_orders: ['0', '0,1', '1,0']\n    kernel_keys:\n" \
           "    - key: Float;0|Float;0,1|Float;1,0|Float;0,1\n      models: [mlp]\n" \
           "    models: [mlp]\n" in text
    assert "  aten::mm.out:\n    dtypes: all\n" in text


def test_hand_written_yaml_defaults_to_all_dtypes():
    ops = parse_oplist("operators:\n  aten::add.out:\n  mm.out: {dtypes: [Float]}\n", "ops.yaml")
    assert [(u.op, u.all_dtypes, u.dtypes) for u in ops.ops] == [
        ("aten::add.out", True, ()), ("aten::mm.out", False, ("Float",))]
    with pytest.raises(ManifestError, match="ops.yaml: aten::mm.out: 'Flot' is not a dtype"):
        parse_oplist("operators:\n  mm.out: {dtypes: [Flot]}\n", "ops.yaml")


def test_cli_reads_a_real_program_file(tmp_path, capsys):
    pte = tmp_path / "mlp.pte"
    pte.write_bytes(serialize(program(MLP_VALUES, MLP_CALLS)))
    out = tmp_path / "selected_ops.yaml"
    prim = os.path.join(os.path.dirname(oplist_stage.__file__), "..", "manifests", "kernels",
                        "prim.yaml")
    assert oplist_stage.main([str(pte), "--ops", "relu.out", "--libraries", prim,
                              "--out", str(out)]) == 0
    text = out.read_text()
    assert str(tmp_path) not in text and "tailor_prim::mul.int" in text
    assert oplist_stage.main(["--ops-yaml", str(out)]) == 0
    assert capsys.readouterr().out == text  # feeding the output back changes nothing
