"""Kernel resolution: precedence, exact vs null, dtypes: all, missing kernels, the plan."""

import dataclasses

import pytest

from codegen.errors import ManifestError
from codegen.oplist import OpList, OpUse
from codegen.resolve import (check_plan_covers, choice_report, parse_plan, plan_to_yaml,
                             resolve_kernels)

F2 = "Float;0,1|Float;0,1|Float;0,1"   # add.out on 2-D Float tensors
D2 = "Double;0,1|Double;0,1|Double;0,1"
H2 = "Half;0,1|Half;0,1|Half;0,1"

EXACT_FLOAT = """
    - op: add.out
      type_alias: {T0: [Float]}
      dim_order_alias: {D0: [[0, 1]]}
      kernels:
        - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
          kernel_name: tailor::opt_add_out
"""
NULL = """
    - op: add.out
      kernels:
        - arg_meta: null
          kernel_name: tailor::add_out
"""


def uses(*keys: str, op: str = "aten::add.out", model: str = "mlp") -> OpList:
    dtypes = sorted({p.split(";")[0] for k in keys for p in k.split("|")})
    return OpList((OpUse(op, tuple(dtypes), kernel_keys=tuple((k, (model,)) for k in keys),
                         models=(model,)),))


def chosen(plan):
    return [(k.key, k.native, k.library) for k in plan.kernels]


def test_exact_beats_null_in_the_same_library(library):
    lib = library(EXACT_FLOAT + NULL)
    plan = resolve_kernels(uses(F2, D2), [lib])
    assert chosen(plan) == [("", "tailor::native::add_out", "portable"),
                            (F2, "tailor::native::opt_add_out", "portable")]


def test_earlier_library_wins(library):
    optimized, portable = library(EXACT_FLOAT, "optimized"), library(NULL, "portable")
    plan = resolve_kernels(uses(F2, D2), [optimized, portable])
    assert chosen(plan) == [("", "tailor::native::add_out", "portable"),
                            (F2, "tailor::native::opt_add_out", "optimized")]
    # Reversed: portable's null kernel serves every key, optimized is never reached.
    plan = resolve_kernels(uses(F2, D2), [portable, optimized])
    assert chosen(plan) == [("", "tailor::native::add_out", "portable")]


def test_shared_native_gets_one_wrapper_and_sources_are_listed(library):
    lib = library("""
        - op: add.out
          type_alias: {T0: [Float, Double]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
              kernel_name: tailor::add_out
        - op: relu.out
          kernels: [{arg_meta: null, kernel_name: tailor::relu_out}]
        """)
    selection = OpList(uses(F2, D2).ops + (OpUse("aten::relu.out", ("Float",),
                                                 kernel_keys=(("Float;0|Float;0", ("m",)),)),))
    plan = resolve_kernels(selection, [lib])
    assert [(k.op, k.key, k.wrapper) for k in plan.kernels] == [
        ("aten::add.out", D2, "wrap_0"), ("aten::add.out", F2, "wrap_0"),
        ("aten::relu.out", "", "wrap_1")]
    assert plan.sources == ("kernels/portable/op_add.cpp", "kernels/portable/op_relu.cpp")


def test_all_dtypes_takes_exact_kernels_up_to_the_first_null(library):
    optimized = library(EXACT_FLOAT, "optimized")
    portable = library(NULL, "portable")
    later = library(EXACT_FLOAT.replace("Float", "Half").replace("opt_", "late_"), "later")
    selection = OpList((OpUse("aten::add.out", all_dtypes=True),))
    plan = resolve_kernels(selection, [optimized, portable, later])
    assert chosen(plan) == [("", "tailor::native::add_out", "portable"),
                            (F2, "tailor::native::opt_add_out", "optimized")]
    # Each kernel its own row: the exact kernel only its key's dtypes.
    assert [(s.library, s.op, s.mask) for s in plan.selected_dtypes] == [
        ("optimized", "add.out", 0x40), ("portable", "add.out", 0x88ff)]
    # No null kernel anywhere: every exact kernel, and only their dtypes are selected.
    plan = resolve_kernels(selection, [optimized, later])
    assert [k.key for k in plan.kernels] == [F2, H2]
    assert [(s.library, s.dtypes) for s in plan.selected_dtypes] == [
        ("later", ("Half",)), ("optimized", ("Float",))]


def test_selected_dtypes_follow_the_models(library):
    plan = resolve_kernels(uses(F2, "Float;0,1|Long;0,1|Float;0,1"), [library(NULL)])
    (row,) = plan.selected_dtypes
    assert (row.library, row.op, row.dtypes, row.mask) == ("portable", "add.out",
                                                           ("Float", "Long"), 0x50)


def test_missing_kernels_are_all_listed_in_one_error(library):
    optimized, portable = library(EXACT_FLOAT, "optimized"), library(EXACT_FLOAT, "portable")
    selection = OpList(uses(F2, H2).ops + (
        OpUse("aten::gelu.out", ("Half",), kernel_keys=(("Half;0|Half;0", ("nanogpt",)),),
              models=("nanogpt",)),
        OpUse("aten::mm.out", all_dtypes=True)))
    with pytest.raises(ManifestError) as e:
        resolve_kernels(selection, [optimized, portable], target_path="manifests/targets/x.yaml")
    assert str(e.value) == (
        "selected_ops.yaml: 3 operator use(s) have no kernel in [optimized, portable] "
        "(kernel_libraries of manifests/targets/x.yaml):\n"
        "  aten::add.out (self: Half, other: Half, out: Half), model mlp: no kernel for key "
        f"'{H2}'; what differs from the nearest kernel, optimized's '{F2}': dtype (self, other "
        "and out are Half, it takes Float)\n"
        "  aten::gelu.out (self: Half, out: Half), model nanogpt: no library has the op\n"
        "  aten::mm.out (all dtypes), op list: no library has the op\n"
        "fix: add a kernel for each op no library has to one of "
        "manifests/kernels/optimized.yaml, manifests/kernels/portable.yaml, or add a library "
        "that has it to kernel_libraries in manifests/targets/x.yaml\n"
        "fix: give the op's kernel the missing dtypes (`arg_meta: null` with them in its "
        "`dtypes:`, or an entry whose type_alias lists them), or export the model with dtypes "
        "the kernels support")


def test_missing_kernels_show_where_the_model_calls_them_and_only_the_fixes_that_apply(
        library):
    sources = tuple(f"gpt2: modeling_gpt2.py:{line} in transformer.h.{line % 7}.attn"
                    for line in (211, 212, 213, 214))
    key = "Bool;0,1|Long;0,1"
    selection = OpList((OpUse("aten::cumsum.out", ("Bool", "Long"),
                              kernel_keys=((key, ("gpt2",)),), models=("gpt2",),
                              sources=((key, sources),)),))
    with pytest.raises(ManifestError) as e:
        resolve_kernels(selection, [library(EXACT_FLOAT)])
    message = str(e.value)
    assert "  aten::cumsum.out (self: Bool, out: Long), model gpt2: no library has the op\n" \
        "    at gpt2: modeling_gpt2.py:211 in transformer.h.1.attn\n" in message
    assert "    ... and 1 more (kernel_keys in selected_ops.yaml)" in message
    assert message.count("fix:") == 1 and "dtypes" not in message.split("fix:")[1]


NULL_FLOAT = NULL.replace("arg_meta: null", "arg_meta: null\n          dtypes: [Float, Double]")


def test_null_kernel_with_dtypes_serves_only_keys_it_covers(library):
    narrow, wide = library(NULL_FLOAT, "narrow"), library(NULL, "wide")
    mixed = "Float;0,1|Long;0,1|Float;0,1"
    plan = resolve_kernels(uses(F2, H2, mixed), [narrow, wide])
    # "" holds narrow's kernel (first key seen); wide's serves the keys narrow does not
    # cover, registered under each key so method load finds it before "".
    assert chosen(plan) == [("", "tailor::native::add_out", "narrow"),
                            (mixed, "tailor::native::add_out", "wide"),
                            (H2, "tailor::native::add_out", "wide")]
    # Each library's kernel compiles only the dtypes of the keys it was chosen for.
    assert [(s.library, s.dtypes) for s in plan.selected_dtypes] == [
        ("narrow", ("Float",)), ("wide", ("Float", "Half", "Long"))]


def test_dtype_masks_are_per_chosen_kernel_not_per_op(library):
    # The fast_add split: a user's Float-only add.out ahead of portable, which takes Long.
    only_float = NULL.replace("arg_meta: null", "arg_meta: null\n          dtypes: [Float]")
    user, portable = library(only_float, "fast_add"), library(NULL, "portable")
    plan = resolve_kernels(uses(F2, "Long;0,1|Long;0,1|Long;0,1"), [user, portable])
    assert [(s.library, s.op, s.dtypes) for s in plan.selected_dtypes] == [
        ("fast_add", "add.out", ("Float",)), ("portable", "add.out", ("Long",))]
    # A Tensor[]'s element dtypes are in no key: every kernel of the op may see them.
    mixed = OpUse("aten::add.out", ("Float", "Int", "Long"),
                  kernel_keys=((F2, ("m",)), ("Long;0,1|Long;0,1|Long;0,1", ("m",))))
    plan = resolve_kernels(OpList((mixed,)), [user, portable])
    assert [s.dtypes for s in plan.selected_dtypes] == [("Float", "Int"), ("Int", "Long")]


def test_uncovered_dtype_is_missing_with_what_the_null_kernel_takes(library):
    with pytest.raises(ManifestError) as e:
        resolve_kernels(uses(F2, H2), [library(NULL_FLOAT)])
    assert (f"  aten::add.out (self: Half, other: Half, out: Half), model mlp: no kernel for "
            f"key '{H2}'; what differs from the nearest kernel, portable's arg_meta: null: dtype "
            "(self, other and out are Half, it takes Double, Float)\n") in str(e.value)
    assert "1 operator use(s)" in str(e.value)


CONV = """
    - op: convolution.out
      type_alias: {T0: [Half, Float]}
      dim_order_alias: {D0: [[0, 1, 2], [0, 1, 2, 3]], D1: [[0]]}
      kernels:
        - arg_meta: {input: [T0, D0], weight: [T0, D0], bias: [T0, D1], out: [T0, D0]}
          kernel_name: tailor::convolution_out
        - arg_meta: {input: [T0, D0], weight: [T0, D0], out: [T0, D0]}
          kernel_name: tailor::convolution_out
"""


def test_a_missing_rank_is_named_against_the_nearest_key_not_every_key(library):
    """Conv3d on a library of 1-D and 2-D convolutions: the rank is missing, not Float."""
    r5, r4, r1 = "Float;0,1,2,3,4", "Float;0,1,2,3", "Float;0"
    with pytest.raises(ManifestError) as e:
        resolve_kernels(uses("|".join([r5, r5, r1, r5]), "|".join([r5, r5, r5]),
                             op="aten::convolution.out", model="video"), [library(CONV)])
    message = str(e.value)
    nearest = "|".join([r4, r4, r1, r4])
    assert (f"what differs from the nearest kernel, portable's '{nearest}': rank (input, "
            "weight and out are 5-d, it takes 4-d)") in message
    # Without a bias the key has three parts, named without the optional argument.
    assert ("rank (input, weight and out are 5-d, it takes 4-d)") in message.split("\n")[1]
    assert "Half" not in message and "the libraries have" not in message
    assert "fix: give the op a kernel for that rank or dim order" in message
    assert "missing dtypes" not in message


def test_a_missing_dim_order_and_dtype_are_both_named(library):
    last = "Half;0,2,3,1"
    with pytest.raises(ManifestError) as e:
        resolve_kernels(uses(f"{last}|{last}|Half;0|{last}", op="aten::convolution.out"),
                        [library(CONV)])
    message = str(e.value)
    assert ("dim order (input, weight and out are 0,2,3,1, it takes 0,1,2,3)") in message
    assert "fix: give the op's kernel the missing dtypes" not in message
    with pytest.raises(ManifestError) as e:
        resolve_kernels(uses("Double;0,1,2|Double;0,1,2|Double;0,1,2",
                             op="aten::convolution.out"), [library(CONV)])
    assert ("dtype (input, weight and out are Double, it takes Float)") in str(e.value)
    assert "fix: give the op a kernel for that rank" not in str(e.value)


def test_all_dtypes_selects_what_a_null_kernel_lists(library):
    plan = resolve_kernels(OpList((OpUse("aten::add.out", all_dtypes=True),)),
                           [library(NULL_FLOAT)])
    assert chosen(plan) == [("", "tailor::native::add_out", "portable")]
    assert plan.selected_dtypes[0].dtypes == ("Double", "Float")


def test_all_dtypes_passes_over_a_null_kernel_that_lists_dtypes(library):
    # An op list's op may be called with any dtype: "" goes to the kernel that takes every
    # one (optimized's Float-only add.out ahead of portable's would refuse Long at run time).
    narrow, wide = library(NULL_FLOAT, "narrow"), library(NULL, "wide")
    plan = resolve_kernels(OpList((OpUse("aten::add.out", all_dtypes=True),)), [narrow, wide])
    assert chosen(plan) == [("", "tailor::native::add_out", "wide")]
    # With no kernel for every dtype, the listed ones are still served.
    plan = resolve_kernels(OpList((OpUse("aten::add.out", all_dtypes=True),)), [narrow])
    assert chosen(plan) == [("", "tailor::native::add_out", "narrow")]


def test_one_op_one_schema_across_libraries(library):
    a = library("- func: mylib::f(int a) -> int\n  kernels: [{arg_meta: null, kernel_name: "
                "mylib::f}]\n", "a")
    b = library("- func: mylib::f(int a, int b) -> int\n  kernels: [{arg_meta: null, "
                "kernel_name: mylib::f}]\n", "b")
    with pytest.raises(ManifestError, match=r"manifests/kernels/b.yaml:1: entry 1 \(func: "
                                            r"mylib::f\): kernel 1: schema .* differs"):
        resolve_kernels(OpList(), [a, b])


def test_select_all_takes_every_op_and_all_dtypes(library):
    lib = library(NULL + """
    - op: relu.out
      kernels: [{arg_meta: null, kernel_name: tailor::relu_out}]
""")
    plan = resolve_kernels(OpList(), [lib], select_all=True)
    assert [k.op for k in plan.kernels] == ["aten::add.out", "aten::relu.out"]
    assert plan.select_all and plan.selected_dtypes == ()


def test_plan_yaml_round_trip(library):
    plan = resolve_kernels(uses(F2, D2), [library(EXACT_FLOAT + NULL)])
    text = plan_to_yaml(plan)
    assert parse_plan(text, "kernel_plan.yaml") == plan
    assert "- library: portable\n  op: add.out\n  dtypes: [Double, Float]\n  mask: '0xc0'\n" in text
    with pytest.raises(ManifestError, match="kernel_plan.yaml: not a kernel plan"):
        parse_plan("select: all\n", "kernel_plan.yaml")


def test_kernel_source_must_exist_and_define_the_kernel(library, tmp_path):
    """A wrong `source:` or kernel_name stops the build naming the entry, before a
    compiler or linker error could."""
    from codegen.resolve import check_kernel_sources
    lib = library(NULL)
    plan = resolve_kernels(uses(F2), [lib])
    with pytest.raises(ManifestError) as e:
        check_kernel_sources(plan, [lib], lambda path: str(tmp_path / path))
    assert str(e.value) == (
        "manifests/kernels/portable.yaml:2: entry 1 (op: add.out): kernel 1: the source of "
        "aten::add.out's kernel, kernels/portable/op_add.cpp, does not exist; create it or "
        "point `source:` at the file that defines the kernel")
    source = tmp_path / "kernels" / "portable" / "op_add.cpp"
    source.parent.mkdir(parents=True)
    source.write_text("Tensor& add_out_typo(KernelContext& ctx) {}\n")
    with pytest.raises(ManifestError, match="kernel_name says tailor::native::add_out, but "
                       "kernels/portable/op_add.cpp defines no function add_out; fix "):
        check_kernel_sources(plan, [lib], lambda path: str(tmp_path / path))
    source.write_text("Tensor& add_out(KernelContext& ctx) {}\n")
    check_kernel_sources(plan, [lib], lambda path: str(tmp_path / path))


def test_choice_report_shows_which_library_takes_which_dtypes(library):
    only_float = NULL.replace("arg_meta: null", "arg_meta: null\n          dtypes: [Float]")
    user, portable = library(only_float, "fast_add"), library(NULL, "portable")
    selection = uses(F2, D2)
    assert choice_report(selection, [user, portable]) == [
        "aten::add.out: Double -> portable (kernels/portable/op_add.cpp); "
        "Float -> fast_add (kernels/fast_add/op_add.cpp)"]
    # One library for every dtype: reported only when it is a model's own.
    assert choice_report(selection, [portable]) == []
    assert choice_report(selection, [portable], own=frozenset({"portable"})) == [
        "aten::add.out: Double, Float -> portable (kernels/portable/op_add.cpp)"]


def test_plan_covers_every_call_and_lists_each_sources_ops(library):
    optimized, portable = library(EXACT_FLOAT, "optimized"), library(NULL, "portable")
    selection = uses(F2, D2)
    plan = resolve_kernels(selection, [optimized, portable])
    check_plan_covers(plan, selection)
    assert plan.source_ops == (("kernels/optimized/op_add.cpp", ("add.out",)),
                               ("kernels/portable/op_add.cpp", ("add.out",)))
    # A row that lost a dtype the op list calls with: the build stops before compiling.
    broken = dataclasses.replace(plan, selected_dtypes=tuple(
        dataclasses.replace(s, dtypes=()) if s.library == "portable" else s
        for s in plan.selected_dtypes))
    with pytest.raises(ManifestError, match="cannot serve aten::add.out with key 'Double"):
        check_plan_covers(broken, selection)
