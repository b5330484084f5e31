"""Lowered method + partitioner -> the method with DelegateCalls, and its DelegationReport.

Input: a LoweredMethod (the builder's values, its out-variant calls in execution order,
constants, inputs and outputs) and a Partitioner (e.g. backends/xnnpack). Output: a
Delegated method: new instruction list (KernelCalls left to the kernels, one DelegateCall
per claimed subgraph), the delegates' payloads, the values that are still referenced
(renumbered) and the report.

Grouping: the calls the partitioner claims are merged, in execution order, into maximal
connected groups; a call joins the groups of the claimed calls it reads from as long as
the result stays convex (no path leaves the group and comes back), so every group can
run as one instruction. The groups and the other calls are then emitted in a
topological order. A call whose results nobody reads any more (one a partitioner's
reads() replaced by its own operands, folding it into the payload) is dropped and
reported as folded.
"""

import dataclasses
import heapq
from collections import Counter
from dataclasses import dataclass, field

from program import model


@dataclass(frozen=True)
class Call:
    op: str              # "aten::addmm.out"
    args: tuple          # value ids in schema order: inputs, then outs and return slots
    num_inputs: int      # args[:num_inputs] are read, the rest written
    node: str            # the graph node it lowers ("addmm_1")


@dataclass
class LoweredMethod:
    """What a partitioner sees: plain data, no torch."""
    values: list             # of program.model.Value
    calls: list              # of Call, in execution order
    constants: dict          # value id -> bytes of each constant tensor
    inputs: list
    outputs: list
    derived: dict = field(default_factory=dict)   # new constant id -> the value it copies
    _producer: dict = field(default_factory=dict, repr=False)
    _derived_keys: dict = field(default_factory=dict, repr=False)
    _users: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        for i in range(len(self.calls)):
            for v in self.writes(i):
                self._producer[v] = i
            for v in self.reads(i):
                self._users.setdefault(v, []).append(i)

    def expand(self, ids) -> list:
        """`ids` with every list value replaced by its items (None entries skipped)."""
        out = []
        for v in ids:
            value = self.values[v]
            if isinstance(value, model.LIST_KINDS):
                out += [i for i in value.items if i >= 0]
            else:
                out.append(v)
        return out

    def reads(self, i: int) -> list:
        c = self.calls[i]
        return self.expand(c.args[:c.num_inputs])

    def writes(self, i: int) -> list:
        c = self.calls[i]
        return self.expand(c.args[c.num_inputs:])

    def producer(self, v: int):
        """The call that writes value `v`, or None (an input, constant or literal)."""
        return self._producer.get(v)

    def users(self, v: int) -> list:
        return self._users.get(v, [])

    def kind(self, v: int) -> str:
        return model.kind_name(self.values[v])

    def tensor(self, v: int) -> model.Tensor | None:
        """Value `v` when it is a tensor, else None."""
        value = self.values[v]
        return value if isinstance(value, model.Tensor) else None

    def items(self, v: int) -> list:
        """The items of list value `v`."""
        return self.values[v].items

    def is_constant(self, v: int) -> bool:
        return v in self.constants

    def derived_constant(self, key, like: int, sizes: list, data: bytes) -> int:
        """A constant made at export from others (a weight repacked into a backend's
        layout): a new tensor value with `like`'s dtype, `sizes` and `data`. The same
        `key` gives the same value, so calling this again is cheap and stores it once.
        A partitioner's reads() returns it in place of the original, which the program
        then drops unless a kernel call still reads it."""
        if key not in self._derived_keys:
            tensor = dataclasses.replace(self.tensor(like), sizes=list(sizes),
                                         dim_order=list(range(len(sizes))), dynamic=False)
            self.values.append(tensor)
            vid = len(self.values) - 1
            self.constants[vid] = data
            self.derived[vid] = like
            self._derived_keys[key] = vid
        return self._derived_keys[key]

    def ints(self, v: int):
        """The numbers of IntList value `v` when every one is known at export, else None."""
        if self.kind(v) != "IntList":
            return None
        items = [self.literal(x) for x in self.items(v)]
        return None if None in items else items

    def literal(self, v: int):
        """The number of an Int/Double/Bool value no call writes, else None."""
        if self.kind(v) in ("Int", "Double", "Bool") and self.producer(v) is None:
            return self.values[v].value
        return None


class Partitioner:
    """What a backend implements to take part in export (see backends/xnnpack)."""
    backend = ""

    def check(self, method: LoweredMethod, i: int):
        """None when the backend can run call `i`, else a short reason it cannot."""
        raise NotImplementedError

    def reads(self, method: LoweredMethod, i: int) -> list:
        """The values the delegated call `i` reads at run time (default: all its inputs)."""
        return method.reads(i)

    def worth(self, method: LoweredMethod, calls: list):
        """None when a delegate running `calls` pays off, else why not (those calls
        then stay with the kernels)."""
        return None

    def preprocess(self, method: LoweredMethod, calls: list, inputs: list,
                   outputs: list) -> bytes:
        """The payload running `calls` (indices, execution order) on DelegateCall args
        `inputs + outputs`."""
        raise NotImplementedError


@dataclass(frozen=True)
class DelegationReport:
    backend: str
    groups: tuple            # per delegate: tuple of (node, op) it runs
    folded: tuple            # (node, op) of calls folded into a delegate's payload
    outside: tuple           # (node, op, reason) of calls left to the kernels
    graph: tuple             # the printout lines

    @property
    def delegated_nodes(self) -> int:
        return sum(len(g) for g in self.groups) + len(self.folded)

    def op_table(self) -> list:
        """(op, occurrences inside delegates, outside), sorted by op."""
        inside = Counter(op for g in self.groups for _, op in g)
        inside.update(op for _, op in self.folded)
        out = Counter(op for _, op, _ in self.outside)
        return [(op, inside[op], out[op]) for op in sorted(set(inside) | set(out))]

    def format(self) -> str:
        lines = [f"delegation to {self.backend}:",
                 f"  delegated subgraphs: {len(self.groups)}",
                 f"  delegated nodes:     {self.delegated_nodes}"
                 + (f" ({len(self.folded)} folded into payloads)" if self.folded else ""),
                 f"  non-delegated nodes: {len(self.outside)}", ""]
        table = self.op_table()
        width = max([len("operator")] + [len(op) for op, _, _ in table])
        lines.append(f"  {'operator':<{width}}  in delegates  outside")
        for op, inside, out in table:
            lines.append(f"  {op:<{width}}  {inside:>12}  {out:>7}")
        lines += ["", "  graph ([n] = delegate n; '-' = portable kernels; reasons after #):"]
        lines += ["  " + line for line in self.graph]
        return "\n".join(lines) + "\n"


@dataclass
class Instruction:
    """One instruction of a lowered method, before the operator table is final."""
    kind: str                # "KernelCall" or "DelegateCall"
    target: str | int        # the op name of a kernel call, the delegate index of the other
    args: list               # value ids
    num_inputs: int          # args[:num_inputs] are read, the rest written
    nodes: list              # the graph nodes it runs
    written_by: list | None = None   # a delegate call's: per output arg, the (graph node,
                                     # its output index) writing it

    @staticmethod
    def kernel_call(call: Call) -> "Instruction":
        return Instruction("KernelCall", call.op, list(call.args), call.num_inputs, [call.node])

    def is_kernel_call(self, op: str | None = None) -> bool:
        return self.kind == "KernelCall" and op in (None, self.target)


@dataclass(frozen=True)
class Delegated:
    values: list
    instructions: list       # of Instruction
    delegates: list          # of program.model.Delegate
    inputs: list
    outputs: list
    remap: dict              # old value id -> new value id (kept values only)
    report: DelegationReport


def _group_calls(method: LoweredMethod, claimed: set, reads) -> list:
    """Maximal convex connected groups of the claimed calls (see the module docstring)."""
    n = len(method.calls)
    succ = [set() for _ in range(n)]
    for i in range(n):
        for v in reads(i):
            p = method.producer(v)
            if p is not None:
                succ[p].add(i)

    def convex(group: set) -> bool:
        last = max(group)
        stack = [u for s in group for u in succ[s] if u not in group and u < last]
        seen = set(stack)
        while stack:
            for u in succ[stack.pop()]:
                if u in group:
                    return False
                if u < last and u not in seen:
                    seen.add(u)
                    stack.append(u)
        return True

    group_of: dict = {}
    groups: dict = {}
    for i in range(n):
        if i not in claimed:
            continue
        current = {i}
        candidates = []
        for v in reads(i):
            p = method.producer(v)
            if p in group_of and group_of[p] not in candidates:
                candidates.append(group_of[p])
        for g in candidates:
            if g in groups and convex(current | groups[g]):
                current |= groups.pop(g)
        for j in current:
            group_of[j] = i
        groups[i] = current
    return sorted((sorted(g) for g in groups.values()), key=lambda g: g[0])


def delegate_method(method: LoweredMethod, partitioner: Partitioner) -> Delegated:
    """Rewrites `method` with `partitioner`'s delegates; see the module docstring."""
    n = len(method.calls)
    reasons = {i: partitioner.check(method, i) for i in range(n)}
    claimed = {i for i, r in reasons.items() if r is None}

    def reads(i):
        return partitioner.reads(method, i) if i in claimed else method.reads(i)

    groups = []
    for g in _group_calls(method, claimed, reads):
        why = partitioner.worth(method, g)
        if why is None:
            groups.append(g)
        else:
            for i in g:
                reasons[i] = why
                claimed.discard(i)
    unit_of = {}
    for g, members in enumerate(groups):
        for i in members:
            unit_of[i] = ("g", g)
    for i in range(n):
        unit_of.setdefault(i, ("c", i))

    # Which values each unit reads from outside itself; which values are read at all.
    def unit_reads(unit):
        members = groups[unit[1]] if unit[0] == "g" else [unit[1]]
        inside = {v for i in members for v in method.writes(i)} if unit[0] == "g" else set()
        out = []
        for i in members:
            out += [v for v in reads(i) if v not in inside and v not in out]
        return out

    units = sorted(set(unit_of.values()), key=lambda u: min(groups[u[1]]) if u[0] == "g"
                   else u[1])
    # Drop calls nobody needs any more (folded into payloads), to a fixed point.
    live = set(units)
    while True:
        needed = set(method.outputs)
        for u in live:
            needed.update(unit_reads(u))
        dead = {u for u in live if u[0] == "c"
                and not any(v in needed for v in method.writes(u[1]))}
        if not dead:
            break
        live -= dead
    folded = sorted(u[1] for u in set(units) - live)

    # Emit in a topological order of the units, earliest call first.
    deps = {u: set() for u in live}
    for u in live:
        for v in unit_reads(u):
            p = method.producer(v)
            if p is not None and unit_of[p] != u and unit_of[p] in live:
                deps[u].add(unit_of[p])
    users = {u: [] for u in live}
    for u, ds in deps.items():
        for d in ds:
            users[d].append(u)
    key = {u: (min(groups[u[1]]) if u[0] == "g" else u[1]) for u in live}
    ready = [(key[u], u) for u in live if not deps[u]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for w in users[u]:
            deps[w].discard(u)
            if not deps[w]:
                heapq.heappush(ready, (key[w], w))
    assert len(order) == len(live), "delegation produced a cycle"

    # Instructions, with each delegate's inputs and the outputs others read.
    needed_outside = {}
    for u in order:
        for v in unit_reads(u):
            needed_outside.setdefault(v, set()).add(u)
    instructions, delegates = [], []
    for u in order:
        if u[0] == "c":
            instructions.append(Instruction.kernel_call(method.calls[u[1]]))
            continue
        members = groups[u[1]]
        ins = unit_reads(u)
        outs = [v for i in members for v in method.writes(i)
                if v in method.outputs or needed_outside.get(v, set()) - {u}]
        payload = partitioner.preprocess(method, members, ins, outs)
        writer = {v: (method.calls[i].node, k) for i in members
                  for k, v in enumerate(method.writes(i))}
        instructions.append(Instruction(
            "DelegateCall", len(delegates), ins + outs, len(ins),
            [method.calls[i].node for i in sorted(members)], [writer[v] for v in outs]))
        delegates.append(model.Delegate(partitioner.backend, bytes(payload)))

    # Keep the values still referenced, renumbered in their old order.
    used = set(method.inputs) | set(method.outputs)
    for ins in instructions:
        used.update(ins.args)
        used.update(method.expand(ins.args))
    remap = {old: new for new, old in enumerate(sorted(used))}
    values = []
    for old in sorted(used):
        value = method.values[old]
        if isinstance(value, model.LIST_KINDS):
            value = type(value)([remap[i] if i >= 0 else i for i in value.items])
        values.append(value)
    for ins in instructions:
        ins.args = [remap[a] for a in ins.args]

    report = _report(method, partitioner.backend, groups, folded, reasons, order)
    return Delegated(values, instructions, delegates, [remap[v] for v in method.inputs],
                     [remap[v] for v in method.outputs], remap, report)


def _report(method, backend, groups, folded, reasons, order) -> DelegationReport:
    group_of = {i: g for g, members in enumerate(groups) for i in members}
    folded_set = set(folded)
    lines = []
    width = max([len(c.node) for c in method.calls] + [4])
    for i, c in enumerate(method.calls):
        if i in group_of:
            mark = f"[{group_of[i]}]"
        elif i in folded_set:
            mark = "[f]"
        else:
            mark = " - "
        why = ""
        if i not in group_of and i not in folded_set:
            why = f"  # {reasons[i]}"
        elif i in folded_set:
            why = "  # folded into a delegate's payload"
        lines.append(f"{mark:>5} {c.node:<{width}}  {c.op}{why}")
    return DelegationReport(
        backend=backend,
        groups=tuple(tuple((method.calls[i].node, method.calls[i].op) for i in g)
                     for g in groups),
        folded=tuple((method.calls[i].node, method.calls[i].op) for i in folded),
        outside=tuple((c.node, c.op, reasons[i]) for i, c in enumerate(method.calls)
                      if i not in group_of and i not in folded_set),
        graph=tuple(lines))
