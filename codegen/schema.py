"""Operator schema strings -> Schema dataclasses; ATen schemas from schema/aten_ops.yaml.

`addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1,
Tensor(a!) out) -> Tensor(a!)` parses into a Schema with typed arguments and returns.
Defaults are kept as written: a program always passes every argument. The C++ mapping
of these types lives in codegen/cpp_types.py.

CLI: python -m codegen.schema OP...   (prints each op's arguments in call order)
"""

import os
import re
import sys
from dataclasses import dataclass

import yaml

from codegen.errors import ManifestError, run_cli, suggest
from codegen.roots import PACKAGE as REPO

ATEN_OPS_YAML = os.path.join(REPO, "schema", "aten_ops.yaml")

_IDENT = r"[A-Za-z_]\w*"
_NAME_RE = re.compile(rf"^(?:(?P<ns>{_IDENT})::)?(?P<name>{_IDENT})(?:\.(?P<overload>{_IDENT}))?$")
# `Tensor`, `Tensor(a!)`, `Tensor(a)`; then any mix of `?`, `[]`, `[N]` suffixes.
_TYPE_RE = re.compile(rf"^(?P<base>{_IDENT})(?:\((?P<alias>[a-z]\w*)(?P<bang>!?)\))?"
                      r"(?P<suffix>(?:\?|\[\d*\])*)$")
_SUFFIX_RE = re.compile(r"\?|\[(\d*)\]")


@dataclass(frozen=True)
class BaseType:
    name: str                 # "Tensor", "int", "SymInt", "Scalar", ...
    alias: str | None = None  # "a" in Tensor(a!)
    mutable: bool = False     # the `!` in Tensor(a!)

    def __str__(self) -> str:
        return self.name + (f"({self.alias}{'!' if self.mutable else ''})" if self.alias else "")


@dataclass(frozen=True)
class OptionalType:
    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType:
    elem: "Type"
    size: int | None = None   # int[2] -> 2

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


Type = BaseType | OptionalType | ListType


def is_tensor(t: Type) -> bool:
    """A single tensor (`Tensor`, `Tensor(a!)`, `Tensor?`): the kind a kernel key covers."""
    t = t.elem if isinstance(t, OptionalType) else t
    return isinstance(t, BaseType) and t.name == "Tensor"


def is_tensor_list(t: Type) -> bool:
    return isinstance(t, ListType) and is_tensor(t.elem)


def is_mutable(t: Type) -> bool:
    while not isinstance(t, BaseType):
        t = t.elem
    return t.mutable


def is_scalar(t: Type) -> bool:
    """`Scalar` or `Scalar?`: its value's kind (int, float, bool) counts as a dtype."""
    t = t.elem if isinstance(t, OptionalType) else t
    return isinstance(t, BaseType) and t.name == "Scalar"


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: str | None = None  # as written in the schema: "1", "None", "[0, 0]", ...
    kwarg_only: bool = False

    @property
    def is_out(self) -> bool:
        """ATen's rule: an out argument is keyword-only and written to."""
        return self.kwarg_only and is_mutable(self.type)

    @property
    def default_value(self):
        """The default as a Python value (None, bool, int, float, str, list); a program
        passes every argument, so this only documents and validates the schema."""
        return None if self.default is None else parse_default(self.type, self.default)

    def __str__(self) -> str:
        return f"{self.type} {self.name}" + ("" if self.default is None else f"={self.default}")


@dataclass(frozen=True)
class Return:
    type: Type
    name: str | None = None

    def __str__(self) -> str:
        return str(self.type) + (f" {self.name}" if self.name else "")


@dataclass(frozen=True)
class Schema:
    namespace: str            # "aten"
    name: str                 # "addmm"
    overload: str             # "out"; "" when the op has none (aten::sym_numel)
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def op(self) -> str:
        """Fully qualified operator name, as in a program: "aten::addmm.out"."""
        return f"{self.namespace}::{self.name}" + (f".{self.overload}" if self.overload else "")

    @property
    def call_args(self) -> tuple[Argument, ...]:
        """A KernelCall's argument order: every input, then each out argument."""
        return (tuple(a for a in self.arguments if not a.is_out)
                + tuple(a for a in self.arguments if a.is_out))

    @property
    def value_returns(self) -> tuple[Return, ...]:
        """Non-tensor returns: each gets one value slot after the call's arguments."""
        return tuple(r for r in self.returns if not is_tensor(r.type))

    @property
    def key_args(self) -> tuple[Argument, ...]:
        """The arguments a kernel key describes, in key order."""
        return tuple(a for a in self.call_args if is_tensor(a.type))

    def __str__(self) -> str:
        args = []
        star_done = False
        for a in self.arguments:
            if a.kwarg_only and not star_done:
                args.append("*")
                star_done = True
            args.append(str(a))
        rets = ", ".join(map(str, self.returns))
        if len(self.returns) != 1 or self.returns[0].name:
            rets = f"({rets})"
        return f"{self.op}({', '.join(args)}) -> {rets}"


def split_top_level(text: str) -> list[str]:
    """Splits on commas outside (), [] and quotes; strips each part."""
    parts, depth, quote, start = [], 0, None, 0
    for i, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    last = text[start:].strip()
    return parts + [last] if last or parts else parts


def parse_type(text: str) -> Type:
    """`Tensor(a!)[]`, `int[2]?`, `Tensor?[]`, ... -> Type; ValueError if malformed."""
    m = _TYPE_RE.match(text.strip())
    if not m:
        raise ValueError(f"'{text}' is not a type")
    t: Type = BaseType(m["base"], m["alias"], m["bang"] == "!")
    for s in _SUFFIX_RE.finditer(m["suffix"]):
        if s[0] == "?":
            t = OptionalType(t)
        else:
            t = ListType(t, int(s[1]) if s[1] else None)
    return t


_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|nan)$")
# The named defaults of native_functions.yaml: at::Reduction, memory formats, layouts.
_NAMED_DEFAULTS = {
    "int": {"Mean": 1, "Sum": 2},
    "MemoryFormat": {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2,
                     "channels_last_3d": 3},
    "Layout": {"strided": 0},
}
# A ScalarType default is ATen's lower-case name: `ScalarType dtype=long`.
_SCALAR_TYPE_NAMES = ("bool", "byte", "char", "short", "int", "long", "half", "bfloat16",
                      "float", "double")


def parse_default(t: Type, text: str):
    """A schema default (`1e-05`, `[]`, `None`, `False`, `"mean"`, `[1, 1]`, `Mean`) of
    type `t` -> its Python value; ValueError if it is not one."""
    text = text.strip()
    if isinstance(t, OptionalType):
        return None if text == "None" else parse_default(t.elem, text)
    if isinstance(t, ListType):
        if text.startswith("[") and text.endswith("]"):
            return [parse_default(t.elem, v) for v in split_top_level(text[1:-1])]
        # `int[2] stride=1`: one value stands for every element.
        return [parse_default(t.elem, text)] * (t.size or 1)
    name = t.name
    if name == "bool" and text in ("True", "False"):
        return text == "True"
    # Enums (MemoryFormat, Layout, ScalarType) may be written as their number too.
    if name in ("int", "SymInt", "MemoryFormat", "Layout", "ScalarType") and _INT_RE.match(text):
        return int(text)
    if name in ("float", "Scalar") and _FLOAT_RE.match(text):
        return int(text) if name == "Scalar" and _INT_RE.match(text) else float(text)
    if name == "Scalar" and text in ("True", "False"):
        return text == "True"
    if name == "str" and len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if name == "ScalarType" and text in _SCALAR_TYPE_NAMES:
        return text
    if text in _NAMED_DEFAULTS.get(name, {}):
        return _NAMED_DEFAULTS[name][text]
    raise ValueError(f"default '{text}' is not a value of type {t}")


def _parse_argument(text: str, kwarg_only: bool) -> Argument:
    decl, eq, default = text.partition("=")
    type_text, _, name = decl.strip().rpartition(" ")
    if not type_text or not re.fullmatch(_IDENT, name):
        raise ValueError(f"'{text}' is not `Type name` or `Type name=default`")
    argument = Argument(name, parse_type(type_text), default.strip() if eq else None,
                        kwarg_only)
    argument.default_value  # a default that is no value of the type does not parse
    return argument


def _parse_returns(text: str) -> tuple[Return, ...]:
    text = text.strip()
    items = split_top_level(text[1:-1]) if text.startswith("(") and text.endswith(")") else [text]
    returns = []
    for item in items:
        type_text, _, name = item.partition(" ")
        returns.append(Return(parse_type(type_text), name.strip() or None))
    return tuple(returns)


def parse_schema(text: str, default_namespace: str | None = None, where: str = "") -> Schema:
    """Parses `[ns::]name[.overload](args) -> returns`.

    The namespace comes from the text or `default_namespace`; `where` prefixes the
    ManifestError raised for text that does not parse.
    """
    prefix = f"{where}: " if where else ""
    try:
        head, paren, rest = text.strip().partition("(")
        args_text, arrow, returns_text = rest.rpartition(") ->")
        if not paren or not arrow:
            raise ValueError("expected `name.overload(args) -> returns`")
        m = _NAME_RE.match(head.strip())
        if not m:
            raise ValueError(f"'{head.strip()}' is not `namespace::name.overload`")
        namespace = m["ns"] or default_namespace
        if not namespace:
            raise ValueError(f"'{head.strip()}' has no namespace; write mylib::{head.strip()}")
        arguments, kwarg_only = [], False
        for part in split_top_level(args_text):
            if part == "*":
                kwarg_only = True
            else:
                arguments.append(_parse_argument(part, kwarg_only))
        return Schema(namespace, m["name"], m["overload"] or "", tuple(arguments),
                      _parse_returns(returns_text))
    except ValueError as e:
        raise ManifestError(f"{prefix}schema '{text}' does not parse: {e}; see "
                            "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/"
                            "native/README.md for the syntax") from None


def parse_aten_schemas(text: str, path: str = "schema/aten_ops.yaml") -> dict[str, Schema]:
    """aten_ops.yaml text -> {"aten::addmm.out": Schema}."""
    table = yaml.safe_load(text) or {}
    schemas = {}
    for name, schema_text in table.items():
        schema = parse_schema(schema_text, "aten", f"{path}: {name}")
        schemas[schema.op] = schema
    return schemas


_aten_cache: dict[str, dict[str, Schema]] = {}


def load_aten_schemas(path: str = ATEN_OPS_YAML) -> dict[str, Schema]:
    """The ATen schemas, read once per process (the file is large and never changes)."""
    if path not in _aten_cache:
        with open(path) as f:
            _aten_cache[path] = parse_aten_schemas(f.read(), os.path.relpath(path, REPO))
    return _aten_cache[path]


def lookup(op: str, schemas: dict[str, Schema]) -> Schema:
    """The schema of `op` ("addmm.out" means "aten::addmm.out"), or a ManifestError."""
    op = op if "::" in op else f"aten::{op}"
    if op not in schemas:
        raise ManifestError(f"{op}: not in schema/aten_ops.yaml{suggest(op, schemas)}")
    return schemas[op]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python -m codegen.schema OP...   e.g. aten::addmm.out", file=sys.stderr)
        return 2
    schemas = load_aten_schemas()
    for op in argv:
        schema = lookup(op, schemas)
        print(schema)
        for i, arg in enumerate(schema.call_args):
            print(f"  args[{i}] {arg}" + ("  (out)" if arg.is_out else ""))
        for i, ret in enumerate(schema.value_returns, len(schema.call_args)):
            print(f"  args[{i}] <- return {ret}")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
