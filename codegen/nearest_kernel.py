"""What a kernel key no library serves lacks: its dtype, rank or dim order, told against
the nearest key a library offers (used by codegen/resolve.py's missing-kernel error).

A kernel key is one "dtype;dim,order" part per tensor argument present in the call
("Float;0,1,2,3,4|Float;0,1,2,3,4|Float;0|Float;0,1,2,3,4"). The nearest offered kernel
is the one with the same number of parts whose parts differ least (a dtype first, then
a rank, then a dim order); an `arg_meta: null` kernel that lists its `dtypes:` takes any
rank and dim order, so only its dtypes can differ.
"""

from dataclasses import dataclass

from codegen.schema import OptionalType, Schema


@dataclass(frozen=True)
class Offer:
    """One kernel a library offers for the op."""
    library: str
    key: str                          # "" for arg_meta: null
    dtypes: tuple[str, ...] | None    # an arg_meta: null kernel's `dtypes:` (None: any)


def _parts(key: str) -> list[tuple[str, str]]:
    return [tuple(p.split(";", 1)) if ";" in p else (p, "") for p in key.split("|") if p]


def _rank(order: str) -> int:
    return len(order.split(",")) if order else 0


def part_names(schema: Schema | None, count: int) -> list[str]:
    """The argument name of each of a key's `count` parts: the schema's tensor arguments,
    without its optional ones when the call left them out (absent tensors add no part)."""
    if schema is not None:
        names = [a.name for a in schema.key_args]
        if len(names) == count:
            return names
        required = [a.name for a in schema.key_args if not isinstance(a.type, OptionalType)]
        if len(required) == count:
            return required
    return [f"tensor {i}" for i in range(count)]


def _distance(wanted: list, offer: Offer) -> tuple | None:
    """(dtype, rank, dim order) mismatches of `offer` against the wanted parts, or None
    when it cannot be compared (another number of tensors)."""
    if not offer.key:
        allowed = set(offer.dtypes or ())
        return (sum(1 for dtype, _ in wanted if dtype not in allowed), 0, 0)
    have = _parts(offer.key)
    if len(have) != len(wanted):
        return None
    dtype = sum(1 for (a, _), (b, _) in zip(wanted, have) if a != b)
    rank = sum(1 for (_, a), (_, b) in zip(wanted, have) if _rank(a) != _rank(b))
    order = sum(1 for (_, a), (_, b) in zip(wanted, have) if _rank(a) == _rank(b) and a != b)
    return (dtype, rank, order)


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _grouped(pairs: list[tuple[str, str, str]]) -> str:
    """"input and out are 5-d, it takes 4-d" from [(input, 5-d, 4-d), (out, 5-d, 4-d)]."""
    by_value: dict[tuple[str, str], list[str]] = {}
    for name, wanted, have in pairs:
        by_value.setdefault((wanted, have), []).append(name)
    return "; ".join(f"{_joined(names)} {'is' if len(names) == 1 else 'are'} {wanted}, "
                     f"it takes {have}" for (wanted, have), names in by_value.items())


def describe_missing(key: str, offers: list[Offer], schema: Schema | None) -> tuple[str, set]:
    """(what `key` lacks against the nearest offer, the kinds of difference: "dtype",
    "rank", "dim order"); ("", set()) when no offer compares."""
    wanted = _parts(key)
    scored = [(d, o) for o in offers if (d := _distance(wanted, o)) is not None]
    if not scored:
        return "", set()
    _, nearest = min(scored, key=lambda s: (sum(s[0]), s[0], s[1].library, s[1].key))
    names = part_names(schema, len(wanted))
    if not nearest.key:
        allowed = ", ".join(nearest.dtypes or ())
        bad = [(n, d, allowed) for n, (d, _) in zip(names, wanted) if d not in allowed]
        return (f"what differs from the nearest kernel, {nearest.library}'s arg_meta: null: "
                f"dtype ({_grouped(bad)})", {"dtype"})
    have = _parts(nearest.key)
    pairs = list(zip(names, wanted, have))
    differences = {
        "dtype": [(n, a, b) for n, (a, _), (b, _) in pairs if a != b],
        "rank": [(n, f"{_rank(a)}-d", f"{_rank(b)}-d") for n, (_, a), (_, b) in pairs
                 if _rank(a) != _rank(b)],
        "dim order": [(n, a, b) for n, (_, a), (_, b) in pairs
                      if _rank(a) == _rank(b) and a != b],
    }
    kinds = {kind for kind, found in differences.items() if found}
    clauses = [f"{kind} ({_grouped(found)})" for kind, found in differences.items() if found]
    return (f"what differs from the nearest kernel, {nearest.library}'s '{nearest.key}': "
            + "; ".join(clauses), kinds)
