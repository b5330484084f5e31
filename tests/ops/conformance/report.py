"""The outcomes as a table and as examples of each failure, and the CLI
(python -m tests.ops.conformance)."""

import argparse
import collections
import sys

from tests.ops.conformance.run import OUTCOMES, Result, conformance
from tests.ops.conformance.samples import LIMIT, SUBSET


def table(results: list[Result], markdown: bool = False) -> str:
    """One row per (declared ops, OpInfo): samples and the count of each outcome."""
    rows = collections.defaultdict(collections.Counter)
    for r in results:
        g = r.sample.group
        rows[(", ".join(o.removeprefix("aten::") for o in g.ops), g.opinfo)][r.outcome] += 1
    total = collections.Counter()
    header = ("op", "OpInfo", "samples") + OUTCOMES
    lines = []
    for (ops, info), counts in sorted(rows.items()):
        total.update(counts)
        lines.append((ops, info, str(sum(counts.values())))
                     + tuple(str(counts[o]) for o in OUTCOMES))
    lines.append(("total", "", str(sum(total.values()))) + tuple(str(total[o]) for o in OUTCOMES))
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines])
    widths = [max(len(x) for x in col) for col in zip(header, *lines)]
    return "\n".join("  ".join(x.ljust(w) for x, w in zip(line, widths))
                     for line in [header] + lines)


def failures(results: list[Result], per_kind: int) -> str:
    """Up to `per_kind` examples of each distinct message of mismatch/error/refused."""
    out = []
    for outcome in ("mismatch", "error", "refused", "not exportable"):
        seen = collections.Counter()
        for r in results:
            if r.outcome != outcome:
                continue
            key = (r.sample.group.opinfo, r.message.split(",")[0][:80])
            seen[key] += 1
            if seen[key] <= per_kind:
                out.append(f"{outcome}: {r.sample.name}: {r.message}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.ops.conformance",
                                     # the package's first paragraph, as before the split
                                     description=sys.modules[__package__].__doc__
                                     .split("\n\n")[0])
    parser.add_argument("--library", default="portable")
    parser.add_argument("--all", action="store_true",
                        help="every OpInfo and every sample (default: the tests' subset)")
    parser.add_argument("--limit", type=int, help="at most N samples per OpInfo and dtype")
    parser.add_argument("--ops", default="", help="only these OpInfos (names or ids)")
    parser.add_argument("--jobs", type=int, default=1, help="export in N processes")
    parser.add_argument("--failures", type=int, default=0, metavar="N",
                        help="print N examples of each distinct failure")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    only = tuple(o for o in args.ops.split(",") if o)
    full = args.all or bool(only)
    limit = args.limit if args.limit is not None else (None if full else LIMIT)
    results = conformance(args.library, limit, () if full else SUBSET, only, args.jobs)
    print(table(results, args.markdown))
    if args.failures:
        print(failures(results, args.failures))
    return 0
