"""Schema types -> C++ parameter types, unboxing expressions and native signatures.

Implements the table in docs/internals.md ("Native kernel signature"). Every function
takes `q`, the qualifier put before runtime type names: "" inside namespace tailor,
"::tailor::" for kernels in other namespaces.

CLI: python -m codegen.cpp_types OP...   (prints each op's native declaration)
"""

import sys

from codegen.errors import ManifestError, run_cli
from codegen.schema import (Argument, BaseType, ListType, OptionalType, Schema, Type,
                            is_mutable, is_tensor, is_tensor_list, load_aten_schemas,
                            lookup)


class UnsupportedType(ValueError):
    """A schema type the runtime cannot pass to a kernel."""


# Non-tensor, non-list types: (C++ value type, unboxing; `{ev}` is "v." or "args[3]->").
_VALUES = {
    "Scalar": ("{q}Scalar", "{ev}to_scalar()"),
    "int": ("int64_t", "{ev}to_int()"),
    "SymInt": ("int64_t", "{ev}to_int()"),
    "float": ("double", "{ev}to_double()"),
    "bool": ("bool", "{ev}to_bool()"),
    "str": ("const char*", "{ev}to_string()"),
    "ScalarType": ("{q}ScalarType", "static_cast<{q}ScalarType>({ev}to_int())"),
    "Layout": ("int64_t", "{ev}to_int()"),
    "MemoryFormat": ("int64_t", "{ev}to_int()"),
    "Device": ("int64_t", "{ev}to_int()"),
    "Generator": ("int64_t", "{ev}to_int()"),  # only ever `Generator?`, always None here
}

# Lists of these element types: (C++ type, unboxing).
_LISTS = {
    "Tensor": ("{q}TensorList", "{ev}to_tensor_list()"),
    "Tensor?": ("{q}OptionalTensorList", "{ev}to_optional_tensor_list()"),
    "int": ("{q}IntArrayRef", "{ev}to_int_list()"),
    "SymInt": ("{q}IntArrayRef", "{ev}to_int_list()"),
    "float": ("{q}ArrayRef<double>", "{ev}to_double_list()"),
    "bool": ("{q}ArrayRef<bool>", "{ev}to_bool_list()"),
}


def _list_kind(t: ListType) -> str:
    elem = t.elem
    if isinstance(elem, OptionalType) and isinstance(elem.elem, BaseType):
        return elem.elem.name + "?"
    if isinstance(elem, BaseType):
        return elem.name
    raise UnsupportedType(f"{t} (a list of {elem})")


def _value(t: Type, q: str) -> tuple[str, str]:
    """(C++ type, unboxing template over {ev}) for a type passed by value."""
    if isinstance(t, ListType):
        kind = _list_kind(t)
        if kind not in _LISTS:
            raise UnsupportedType(f"{t} (lists of {kind} are not supported)")
        cpp, unbox = _LISTS[kind]
    elif isinstance(t, BaseType) and t.name in _VALUES:
        cpp, unbox = _VALUES[t.name]
    else:
        raise UnsupportedType(str(t))
    return cpp.format(q=q), unbox.replace("{q}", q)


def param_type(t: Type, q: str = "") -> str:
    """The C++ parameter type of a schema argument type."""
    if isinstance(t, BaseType) and t.name == "Tensor":
        return f"{q}Tensor&" if t.mutable else f"const {q}Tensor&"
    if isinstance(t, OptionalType) and is_tensor(t):
        if t.elem.mutable:
            raise UnsupportedType(f"{t} (an optional mutable tensor)")
        return f"const {q}Tensor*"
    if isinstance(t, OptionalType):
        if isinstance(t.elem, OptionalType):
            raise UnsupportedType(str(t))
        return f"{q}Optional<{_value(t.elem, q)[0]}>"
    if isinstance(t, BaseType) and t.name == "Scalar":
        return f"const {q}Scalar&"
    return _value(t, q)[0]


def unbox(t: Type, ev: str = "v.", q: str = "") -> str:
    """C++ expression turning an EValue into the parameter of type `t`; `ev` is how to
    reach the EValue's members: "v." for a reference, "args[3]->" for a pointer."""
    if isinstance(t, BaseType) and t.name == "Tensor":
        return f"{ev}to_tensor()"
    if isinstance(t, OptionalType) and is_tensor(t):
        param_type(t, q)  # rejects `Tensor(a!)?`
        return f"{ev}is_none() ? nullptr : &{ev}to_tensor()"
    if isinstance(t, OptionalType):
        cpp = param_type(t, q)
        inner = _value(t.elem, q)[1].format(ev=ev)
        return f"{ev}is_none() ? {cpp}() : {cpp}({inner})"
    return _value(t, q)[1].format(ev=ev)


_RETURNS = {"int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool"}


def return_type(schema: Schema, q: str = "") -> str:
    """`Tensor&` (one tensor out), `void` (none or several), or a value return's type."""
    rets = schema.returns
    if all(is_tensor(r.type) for r in rets):
        for r in rets:
            if not (isinstance(r.type, BaseType) and r.type.mutable):
                raise UnsupportedType(f"returns {r.type}, a new tensor (write an out variant "
                                      "that returns Tensor(a!))")
        return f"{q}Tensor&" if len(rets) == 1 else "void"
    if len(rets) == 1 and isinstance(rets[0].type, BaseType) and rets[0].type.name in _RETURNS:
        return _RETURNS[rets[0].type.name]
    raise UnsupportedType(f"returns ({', '.join(str(r) for r in rets)}); a kernel returns "
                          "out tensors or one int, SymInt, float or bool")


# Argument-kind tokens of KernelEntry::args (runtime/kernel/registry.h), so Method load
# can check each call's values before a wrapper unboxes them unchecked.
_KIND_TOKENS = {"Scalar": "S", "int": "i", "SymInt": "i", "ScalarType": "i", "Layout": "i",
                "MemoryFormat": "i", "Device": "i", "Generator": "i", "float": "f",
                "bool": "b", "str": "s"}
_LIST_TOKENS = {"Tensor": "L", "Tensor?": "O", "int": "I", "SymInt": "I", "float": "F",
                "bool": "B"}


def _kind_token(t: Type) -> str:
    if is_tensor(t) or is_tensor_list(t):
        # Method load refuses a constant tensor in a slot the kernel writes.
        return ("!" if is_mutable(t) else "") + _value_token(t)
    return _value_token(t)


def _value_token(t: Type) -> str:
    if isinstance(t, OptionalType):
        return "?" + _value_token(t.elem)
    if isinstance(t, ListType):
        return _LIST_TOKENS[_list_kind(t)]
    return "T" if is_tensor(t) else _KIND_TOKENS[t.name]


def kind_signature(schema: Schema) -> str:
    """One token per argument slot (call args, then each value-return slot): "TTS!T"."""
    tokens = [_kind_token(a.type) for a in schema.call_args]
    return "".join(tokens + [_kind_token(r.type) for r in schema.value_returns])


_CPP_KEYWORDS = frozenset("""alignas alignof and asm auto bool break case catch char class const
    constexpr continue default delete do double else enum explicit export extern false float
    for friend goto if inline int long mutable namespace new noexcept not nullptr operator or
    private protected public register return short signed sizeof static struct switch
    template this throw true try typedef typename union unsigned using virtual void volatile
    while xor""".split())


def param_name(arg: Argument) -> str:
    """The argument's schema name, made safe as a C++ identifier."""
    return arg.name + "_" if arg.name in _CPP_KEYWORDS else arg.name


def check_supported(schema: Schema, where: str) -> None:
    """Raises ManifestError naming the op if any argument or return has no C++ mapping."""
    try:
        for a in schema.call_args:
            param_type(a.type)
        return_type(schema)
    except UnsupportedType as e:
        raise ManifestError(f"{where}: operator {schema.op}: type {e} has no C++ mapping "
                            "(docs/internals.md, 'Native kernel signature'); change the "
                            "schema or leave the op out of the manifest") from None


def native_params(schema: Schema, q: str = "") -> list[str]:
    """`KernelContext& ctx` then each argument in call order, as C++ parameters."""
    return [f"{q}KernelContext& ctx"] + [f"{param_type(a.type, q)} {param_name(a)}"
                                         for a in schema.call_args]


def native_declaration(schema: Schema, function: str, q: str = "") -> str:
    """`Tensor& addmm_out(KernelContext& ctx, ...)`, one line, no `;`."""
    return f"{return_type(schema, q)} {function}({', '.join(native_params(schema, q))})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m codegen.cpp_types OP...   e.g. addmm.out", file=sys.stderr)
        return 2
    schemas = load_aten_schemas()
    for op in argv:
        schema = lookup(op, schemas)
        check_supported(schema, "schema/aten_ops.yaml")
        print(f"// {schema}\n{native_declaration(schema, 'f')};")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
