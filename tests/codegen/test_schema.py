"""Schema parsing and the schema -> C++ table of docs/internals.md."""

import pytest
import yaml

from codegen.cpp_types import (check_supported, native_declaration, param_type, return_type,
                               unbox)
from codegen.errors import ManifestError
from codegen.schema import (ATEN_OPS_YAML, BaseType, ListType, OptionalType, parse_schema,
                            parse_type)

# ATen ops whose types have no C++ mapping in docs/internals.md, rejected on purpose.
REJECTED = {f"aten::_foreach_{name}.ScalarList_out": "Scalar[]" for name in (
    "add", "addcdiv", "addcmul", "clamp_max", "clamp_min", "div", "lerp", "maximum",
    "minimum", "mul", "pow", "sub")}
REJECTED.update({"aten::set.source_Storage_out": "Storage",
                 "aten::set.source_Storage_storage_offset_out": "Storage"})


def test_every_aten_schema_parses_and_prints_back(aten):
    with open(ATEN_OPS_YAML) as f:
        raw = yaml.safe_load(f)
    assert len(aten) == len(raw) == 1111
    for name, text in raw.items():
        assert str(aten[f"aten::{name}"]) == f"aten::{text}"


def test_every_aten_schema_maps_to_cpp_except_the_rejected_ones(aten):
    rejected = {}
    for op, schema in aten.items():
        try:
            check_supported(schema, "schema/aten_ops.yaml")
        except ManifestError as e:
            rejected[op] = str(e)
    assert sorted(rejected) == sorted(REJECTED)
    for op, why in rejected.items():
        assert op in why and REJECTED[op] in why


def test_addmm_arguments_defaults_and_out(aten):
    s = aten["aten::addmm.out"]
    assert (s.namespace, s.name, s.overload) == ("aten", "addmm", "out")
    assert [a.name for a in s.call_args] == ["self", "mat1", "mat2", "beta", "alpha", "out"]
    assert [a.default for a in s.arguments] == [None, None, None, "1", "1", None]
    assert [a.kwarg_only for a in s.arguments] == [False] * 3 + [True] * 3
    assert [a.is_out for a in s.arguments] == [False] * 5 + [True]
    assert [a.name for a in s.key_args] == ["self", "mat1", "mat2", "out"]


@pytest.mark.parametrize("text, expected", [
    ("Tensor", BaseType("Tensor")),
    ("Tensor(a!)", BaseType("Tensor", "a", True)),
    ("Tensor(a)", BaseType("Tensor", "a", False)),
    ("Tensor?", OptionalType(BaseType("Tensor"))),
    ("Tensor(a!)[]", ListType(BaseType("Tensor", "a", True))),
    ("Tensor?[]", ListType(OptionalType(BaseType("Tensor")))),
    ("int[]", ListType(BaseType("int"))),
    ("int[2]", ListType(BaseType("int"), 2)),
    ("SymInt[]", ListType(BaseType("SymInt"))),
    ("int[1]?", OptionalType(ListType(BaseType("int"), 1))),
    ("float[]?", OptionalType(ListType(BaseType("float")))),
])
def test_types(text, expected):
    assert parse_type(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize("text", [
    'norm.out(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, ScalarType dtype, '
    'Tensor(a!) out) -> Tensor(a!)',
    'linalg_norm.ord_str_out(Tensor self, str ord="fro", int[1]? dim=None, bool keepdim=False,'
    ' *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)',
    "nll_loss.out(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
    "SymInt ignore_index=-100, *, Tensor(a!) out) -> Tensor(a!)",
    "leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)",
    "max_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=[0, 0], "
    "*, Tensor(a!) out) -> Tensor(a!)",
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
    "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    "split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()",
    "sym_numel(Tensor self) -> SymInt",
])
def test_schema_round_trip(text):
    assert str(parse_schema(text, "aten")) == f"aten::{text}"


@pytest.mark.parametrize("argument, value", [
    ("float rtol=1e-05", 1e-05), ("float eps=1.", 1.0), ("float p=-inf", float("-inf")),
    ("int[] dims=[]", []), ("int[1] dim=[-2, -1]", [-2, -1]), ("int[2] stride=1", [1, 1]),
    ("SymInt[2] padding=[0, 0]", [0, 0]), ("str? reduce=None", None),
    ("str mode=\"linear\"", "linear"), ("ScalarType? dtype=None", None),
    ("ScalarType dtype=long", "long"), ("bool keepdim=False", False),
    ("Scalar alpha=1", 1), ("Scalar beta=0.5", 0.5), ("MemoryFormat? memory_format=0", 0),
    ("MemoryFormat memory_format=contiguous_format", 0), ("int reduction=Mean", 1),
    ("Tensor? bias=None", None), ("float? scale=None", None),
])
def test_defaults_parse_to_values(argument, value):
    schema = parse_schema(f"mylib::f.out(Tensor self, {argument}, *, Tensor(a!) out) -> Tensor(a!)")
    assert schema.arguments[1].default_value == value
    assert str(schema.arguments[1]) == argument


def test_every_aten_default_parses(aten):
    defaults = [a for s in aten.values() for a in s.arguments if a.default is not None]
    assert len(defaults) > 700
    assert all(a.default_value is not None or "None" in a.default for a in defaults)


def test_returns_and_custom_namespace():
    s = parse_schema("tailor_prim::mul.int(int a, int b) -> int")
    assert s.op == "tailor_prim::mul.int" and s.value_returns[0].type == BaseType("int")
    many = parse_schema("mylib::top.out(Tensor x, *, Tensor(a!) v, Tensor(b!) i) "
                        "-> (Tensor(a!), Tensor(b!))")
    assert [r.type.alias for r in many.returns] == ["a", "b"] and not many.value_returns
    assert parse_schema("mylib::noop(Tensor(a!)[] out) -> ()").returns == ()
    assert parse_schema("mylib::numel(Tensor x) -> SymInt").op == "mylib::numel"


@pytest.mark.parametrize("text, why", [
    ("mylib::f.out(Tensor self -> Tensor", "expected `name.overload(args) -> returns`"),
    ("mylib::f.out(Tensor) -> Tensor", "is not `Type name`"),
    ("mylib::f.out(Tensor<3> self) -> Tensor", "'Tensor<3>' is not a type"),
    ("f.out(Tensor self) -> Tensor", "has no namespace; write mylib::f.out"),
    ("mylib::f.out(Tensor self, bool flag=Flase) -> Tensor", "default 'Flase' is not a value "
     "of type bool"),
    ("mylib::f.out(Tensor self, int[] dims=[1, x]) -> Tensor", "default 'x' is not a value"),
    ("mylib::f.out(Tensor self, int n=None) -> Tensor", "default 'None' is not a value of "
     "type int"),
])
def test_bad_schemas_name_the_place_and_the_problem(text, why):
    with pytest.raises(ManifestError) as e:
        parse_schema(text, None, "lib.yaml:3: entry 1")
    assert str(e.value).startswith("lib.yaml:3: entry 1: schema") and why in str(e.value)


# The rows of docs/internals.md, "Native kernel signature".
@pytest.mark.parametrize("schema_type, cpp, unboxed", [
    ("Tensor", "const Tensor&", "v.to_tensor()"),
    ("Tensor(a!)", "Tensor&", "v.to_tensor()"),
    ("Tensor?", "const Tensor*", "v.is_none() ? nullptr : &v.to_tensor()"),
    ("Tensor[]", "TensorList", "v.to_tensor_list()"),
    ("Tensor(a!)[]", "TensorList", "v.to_tensor_list()"),
    ("Tensor?[]", "OptionalTensorList", "v.to_optional_tensor_list()"),
    ("Scalar", "const Scalar&", "v.to_scalar()"),
    ("int", "int64_t", "v.to_int()"),
    ("SymInt", "int64_t", "v.to_int()"),
    ("int[]", "IntArrayRef", "v.to_int_list()"),
    ("int[2]", "IntArrayRef", "v.to_int_list()"),
    ("SymInt[]", "IntArrayRef", "v.to_int_list()"),
    ("float", "double", "v.to_double()"),
    ("float[]", "ArrayRef<double>", "v.to_double_list()"),
    ("bool", "bool", "v.to_bool()"),
    ("bool[3]", "ArrayRef<bool>", "v.to_bool_list()"),
    ("str", "const char*", "v.to_string()"),
    ("ScalarType", "ScalarType", "static_cast<ScalarType>(v.to_int())"),
    ("Layout", "int64_t", "v.to_int()"),
    ("MemoryFormat", "int64_t", "v.to_int()"),
    ("Device", "int64_t", "v.to_int()"),
    ("int?", "Optional<int64_t>",
     "v.is_none() ? Optional<int64_t>() : Optional<int64_t>(v.to_int())"),
    ("Scalar?", "Optional<Scalar>",
     "v.is_none() ? Optional<Scalar>() : Optional<Scalar>(v.to_scalar())"),
    ("int[1]?", "Optional<IntArrayRef>",
     "v.is_none() ? Optional<IntArrayRef>() : Optional<IntArrayRef>(v.to_int_list())"),
    ("ScalarType?", "Optional<ScalarType>", "v.is_none() ? Optional<ScalarType>() : "
     "Optional<ScalarType>(static_cast<ScalarType>(v.to_int()))"),
    ("Generator?", "Optional<int64_t>",
     "v.is_none() ? Optional<int64_t>() : Optional<int64_t>(v.to_int())"),
])
def test_cpp_table(schema_type, cpp, unboxed):
    t = parse_type(schema_type)
    assert param_type(t) == cpp
    assert unbox(t) == unboxed


def test_qualified_types_and_pointer_unboxing():
    t = parse_type("Tensor?")
    assert param_type(t, "::tailor::") == "const ::tailor::Tensor*"
    assert unbox(t, "args[2]->") == "args[2]->is_none() ? nullptr : &args[2]->to_tensor()"


@pytest.mark.parametrize("op, cpp", [
    ("aten::addmm.out", "Tensor&"),
    ("aten::_aminmax.out", "void"),
    ("aten::split_copy.Tensor_out", "void"),
    ("aten::sym_size.int", "int64_t"),
])
def test_return_types(aten, op, cpp):
    assert return_type(aten[op]) == cpp


def test_native_declaration(aten):
    assert native_declaration(aten["aten::sym_size.int"], "sym_size_int") == (
        "int64_t sym_size_int(KernelContext& ctx, const Tensor& self, int64_t dim)")
    custom = parse_schema("mylib::is_big(Tensor x, float limit) -> bool")
    assert native_declaration(custom, "is_big") == (
        "bool is_big(KernelContext& ctx, const Tensor& x, double limit)")


@pytest.mark.parametrize("text, why", [
    ("mylib::f(Tensor x) -> Tensor", "a new tensor"),
    ("mylib::f(Tensor x) -> (int, int)", "returns (int, int)"),
    ("mylib::f(Scalar[] x, *, Tensor(a!) out) -> Tensor(a!)", "Scalar[]"),
    ("mylib::f(Tensor(a!)? x) -> ()", "optional mutable tensor"),
])
def test_unsupported_types_name_the_op(text, why):
    with pytest.raises(ManifestError) as e:
        check_supported(parse_schema(text), "lib.yaml: entry 2")
    assert str(e.value).startswith("lib.yaml: entry 2: operator mylib::f: type")
    assert why in str(e.value)


def test_kind_signature_spells_every_slot(aten):
    from codegen.cpp_types import kind_signature
    assert kind_signature(aten["aten::add.out"]) == "TTS!T"        # '!': the kernel writes it
    assert kind_signature(aten["aten::sym_size.int"]) == "Tii"           # the return slot too
    assert kind_signature(aten["aten::index.Tensor_out"]) == "TO!T"
    assert kind_signature(aten["aten::native_layer_norm.out"]) == "TI?T?Tf!T!T!T"
    assert kind_signature(aten["aten::cat.out"]) == "Li!T"
    assert kind_signature(aten["aten::split_with_sizes_copy.out"]) == "TIi!L"  # an out list
