"""Kernel library manifests: aliases, the native:: rule, sources, validation messages."""

import pytest

from codegen.errors import ManifestError
from codegen.kernel_manifest import base_op_name, native_symbol


def test_null_kernel_native_rule_and_default_source(library):
    lib = library("""
        - op: add.out
          kernels:
            - arg_meta: null
              kernel_name: tailor::add_out
        - op: add.Scalar_out
          kernels:
            - arg_meta: null
              kernel_name: tailor::add_scalar_out
        """)
    assert lib.name == "portable"
    assert [(k.op, k.key, k.native, k.dtypes, k.source) for k in lib.kernels] == [
        ("aten::add.Scalar_out", "", "tailor::native::add_scalar_out", None,
         "kernels/portable/op_add.cpp"),
        ("aten::add.out", "", "tailor::native::add_out", None, "kernels/portable/op_add.cpp")]


def test_null_kernel_dtypes_are_kept_sorted(library):
    lib = library("""
        - op: add.out
          kernels:
            - arg_meta: null
              dtypes: [Long, Float, Bool]
              kernel_name: tailor::add_out
        """)
    assert [(k.key, k.dtypes) for k in lib.kernels] == [("", ("Bool", "Float", "Long"))]


@pytest.mark.parametrize("name, native", [
    ("tailor::add_out", "tailor::native::add_out"),
    ("a::b::f", "a::b::native::f"),
    ("tailor::prim::sym_size_int", "tailor::prim::native::sym_size_int"),
])
def test_native_rule(name, native):
    assert native_symbol(name) == native


def test_base_op_names():
    assert base_op_name("aten::add.Scalar_out") == base_op_name("aten::add.out") == "add"
    assert base_op_name("tailor_prim::mul.int") == "mul"
    assert base_op_name("aten::sym_numel") == "sym_numel"


def test_custom_op_with_source_override(library):
    lib = library("""
        - func: tailor_prim::mul.int(int a, int b) -> int
          kernels:
            - arg_meta: null
              kernel_name: tailor::prim::mul_int
          source: kernels/prim/op_int_arith.cpp
        - func: tailor_prim::add.int(int a, int b) -> int
          kernels:
            - arg_meta: null
              kernel_name: tailor::prim::add_int
        """, "prim")
    assert [(k.op, k.native, k.source) for k in lib.kernels] == [
        ("tailor_prim::add.int", "tailor::prim::native::add_int", "kernels/prim/op_add.cpp"),
        ("tailor_prim::mul.int", "tailor::prim::native::mul_int",
         "kernels/prim/op_int_arith.cpp")]


def test_aliases_expand_to_the_cartesian_product_in_schema_order(library):
    lib = library("""
        - op: add.out
          type_alias: {T0: [Float, Double], T1: [Long]}
          dim_order_alias: {D0: [[0, 1], [1, 0]]}
          kernels:
            - arg_meta: {out: [T0, D0], other: [T1, D0], self: [T0, D0]}
              kernel_name: tailor::add_out
        """)
    # self and out share T0: they always take the same dtype.
    assert [(k.key, k.dtypes) for k in lib.kernels] == [
        ("Double;0,1|Long;0,1|Double;0,1", ("Double", "Long")),
        ("Double;1,0|Long;1,0|Double;1,0", ("Double", "Long")),
        ("Float;0,1|Long;0,1|Float;0,1", ("Float", "Long")),
        ("Float;1,0|Long;1,0|Float;1,0", ("Float", "Long"))]


def test_optional_tensor_may_be_left_out_of_arg_meta(library):
    lib = library("""
        - op: native_layer_norm.out
          type_alias: {T0: [Float]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {input: [T0, D0], weight: [T0, D0], bias: [T0, D0], out0: [T0, D0],
                         out1: [T0, D0], out2: [T0, D0]}
              kernel_name: tailor::native_layer_norm_out
            - arg_meta: {input: [T0, D0], out0: [T0, D0], out1: [T0, D0], out2: [T0, D0]}
              kernel_name: tailor::native_layer_norm_out
        """)
    assert [k.key for k in lib.kernels] == ["Float;0,1|" * 3 + "Float;0,1",
                                            "Float;0,1|" * 5 + "Float;0,1"]


GOOD_KERNEL = """
  kernels:
    - arg_meta: null
      kernel_name: tailor::add_out
"""


@pytest.mark.parametrize("text, message", [
    ("""
        - op: add.out
          type_alias: {T0: [Flaot]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
              kernel_name: tailor::add_out
        """,
     "manifests/kernels/portable.yaml:2: entry 1 (op: add.out): type_alias T0 lists 'Flaot', "
     "not a dtype; did you mean 'Float'?; use one of Bool, Byte, Char, Short, Int, Long, Half, "
     "BFloat16, Float, Double"),
    ("- op: add.out" + GOOD_KERNEL + "  type_alas: {T0: [Float]}\n",
     "entry 1 (op: add.out): unknown key 'type_alas' in the entry; did you mean 'type_alias'?"),
    ("- op: ad.out" + GOOD_KERNEL,
     "entry 1 (op: ad.out): 'ad.out' is not an ATen operator in schema/aten_ops.yaml; "
     "did you mean 'aten::add.out'"),
    ("- op: softmax" + GOOD_KERNEL, "did you mean 'aten::softmax.int_out'?"),
    ("- func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)" + GOOD_KERNEL,
     "func declares aten::add.out as 'aten::add.out(Tensor self, Tensor other, *, Tensor(a!) "
     "out) -> Tensor(a!)', but torch's schema is 'aten::add.out(Tensor self, Tensor other, *, "
     "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)'; write `op: add.out`"),
    ("- op: add.out\n  variants: [function]" + GOOD_KERNEL,
     "variants must be a string such as `function`"),
    ("- op: clamp.out\n  cpp_no_default_args: ['mn']" + GOOD_KERNEL,
     "cpp_no_default_args names 'mn', not an argument of aten::clamp.out; did you mean 'min'?"),
    ("- op: add.out\n  tags: {a: 1}" + GOOD_KERNEL, "tags must be a tag or a list of tags"),
    ("- op: add.out\n  dispatch: [CPU]" + GOOD_KERNEL, "dispatch must be a mapping"),
    ("- op: add.out\n  variant: function" + GOOD_KERNEL,
     "entry 1 (op: add.out): unknown key 'variant' in the entry; did you mean 'variants'?; "
     "the keys are op, func, kernels, type_alias, dim_order_alias, source"),
    ("- func: mylib::f.out(Tensor self, float eps=1e-5x, *, Tensor(a!) out) -> Tensor(a!)"
     + GOOD_KERNEL, "default '1e-5x' is not a value of type float"),
    ("- func: mylib::f.out(Scalar[] x, *, Tensor(a!) out) -> Tensor(a!)" + GOOD_KERNEL,
     "entry 1 (func: mylib::f.out): operator mylib::f.out: type Scalar[]"),
    ("""
        - op: add.out
          kernels:
            - arg_meta: null
              kernel_name: add_out
        """, "kernel 1: kernel_name 'add_out' is not a C++ qualified name with a namespace; "
             "write e.g. tailor::add_out"),
    ("""
        - op: add.out
          type_alias: {T0: [Float]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
              kernel_name: tailor::add_out
        """, "arg_meta self uses dim order alias 'D0', which dim_order_alias does not define; "
             "add it: dim_order_alias: {D0: [[0, 1]]}"),
    ("""
        - op: add.out
          type_alias: {T0: [Float]}
          dim_order_alias: {D0: [[0, 2]]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
              kernel_name: tailor::add_out
        """, "dim_order_alias D0 lists [0, 2], not a dim order"),
    ("""
        - op: add.out
          type_alias: {T0: [Float]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {self: [T0, D0], out: [T0, D0]}
              kernel_name: tailor::add_out
        """, "arg_meta does not name Tensor argument(s) other; a kernel key covers every "
             "Tensor argument: add other: [T0, D0]"),
    ("""
        - op: add.out
          type_alias: {T0: [Float]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0], alpha: [T0, D0]}
              kernel_name: tailor::add_out
        """, "arg_meta names 'alpha', not a Tensor argument of aten::add.out"),
    ("- op: add.out\n  kernels:\n    - kernel_name: tailor::add_out\n",
     "arg_meta is missing; write `arg_meta: null`"),
    ("- op: add.out\n  kernels: []\n", "kernels must be a non-empty list"),
    ("- op: add.out\n  kernels:\n    - {arg_meta: null, dtypes: [Flaot], kernel_name: t::f}\n",
     "entry 1 (op: add.out): kernel 1: dtypes lists 'Flaot', not a dtype; did you mean "
     "'Float'?; use one of Bool, "),
    ("- op: add.out\n  kernels:\n    - {arg_meta: null, dtypes: [], kernel_name: t::f}\n",
     "kernel 1: dtypes must be a non-empty list of the dtypes the kernel supports, e.g. "
     "dtypes: [Float, Double]; leave it out for any dtype"),
    ("- op: add.out\n  kernels:\n    - {arg_meta: null, dtypes: [Int, Int], kernel_name: t::f}\n",
     "kernel 1: dtypes lists Int more than once; list each dtype once"),
    ("""
        - op: add.out
          type_alias: {T0: [Float]}
          dim_order_alias: {D0: [[0, 1]]}
          kernels:
            - arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}
              dtypes: [Float]
              kernel_name: tailor::add_out
        """, "kernel 1: dtypes goes with `arg_meta: null`; an arg_meta mapping takes its "
             "dtypes from the entry's type_alias: remove dtypes"),
    ("- op: add.out\n  func: x::y(int a) -> int" + GOOD_KERNEL,
     "give exactly one of `op: add.out`"),
    ("- op: add.out\n  kernels:\n    - {arg_meta: null, kernel_name: t::f, scratch_bytes: -1}\n",
     "kernel 1: scratch_bytes -1 is not a byte count; write the bytes of scratch the kernel "
     "takes, e.g. scratch_bytes: 65536"),
    ("- op: add.out\n  kernels:\n    - {arg_meta: null, kernel_name: t::f, prepack: kHook}\n",
     "kernel 1: prepack 'kHook' is not a C++ qualified name with a namespace; write the "
     "kernel's KernelPrepack object"),
    ("op: add.out\n", "manifests/kernels/portable.yaml: a kernel library is a YAML list"),
    ("- op: add.out\n  kernels: [\n", "manifests/kernels/portable.yaml:3: not valid YAML"),
])
def test_validation_messages_name_file_entry_and_fix(library, text, message):
    with pytest.raises(ManifestError) as e:
        library(text)
    assert message in str(e.value)
    assert str(e.value).startswith("manifests/kernels/portable.yaml")


def test_duplicate_op_and_key_names_both_entries(library):
    with pytest.raises(ManifestError) as e:
        library("- op: add.out" + GOOD_KERNEL + "- op: add.out" + GOOD_KERNEL)
    assert str(e.value) == (
        "manifests/kernels/portable.yaml:5: entry 2 (op: add.out): aten::add.out with "
        "arg_meta: null is already provided by manifests/kernels/portable.yaml:1: entry 1 "
        "(op: add.out): kernel 1; keep one of them")


def test_duplicate_after_alias_expansion(library):
    with pytest.raises(ManifestError, match="key Float;0,1|.* is already provided"):
        library("""
            - op: relu.out
              type_alias: {T0: [Float], T1: [Float, Double]}
              dim_order_alias: {D0: [[0, 1]]}
              kernels:
                - arg_meta: {self: [T0, D0], out: [T0, D0]}
                  kernel_name: tailor::relu_out
                - arg_meta: {self: [T1, D0], out: [T1, D0]}
                  kernel_name: tailor::relu_out
            """)


@pytest.mark.parametrize("text", ["# nothing yet\n", "[]\n"])
def test_empty_library_is_refused(library, text):
    """An empty library would make every op of a target that lists it missing, far away."""
    with pytest.raises(ManifestError) as e:
        library(text)
    assert str(e.value).startswith("manifests/kernels/portable.yaml: the kernel library has no "
                                   "entries; add one")


def test_duplicate_yaml_key_is_refused(library):
    with pytest.raises(ManifestError) as e:
        library("- op: add.out\n  op: sub.out" + GOOD_KERNEL)
    assert str(e.value) == ("manifests/kernels/portable.yaml:2: not valid YAML: key 'op' is "
                            "given twice (first on line 1); keep one")
