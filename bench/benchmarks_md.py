"""Writes one benchmark's section of BENCHMARKS.md in place, leaving the others alone."""

import os
import re

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "BENCHMARKS.md")


def write_section(heading: str, text: str, keep_subsections: bool = False) -> None:
    """Replaces the section `## heading` (up to the next `## `) with `text`, or appends it;
    with keep_subsections, only up to its first `### `, so hand-written parts stay."""
    body = open(PATH).read() if os.path.exists(PATH) else "# Benchmarks\n"
    section = f"## {heading}\n\n{text.rstrip()}\n"
    end = r"(?=^##+ |\Z)" if keep_subsections else r"(?=^## |\Z)"
    pattern = re.compile(r"^## " + re.escape(heading) + r"\n.*?" + end, re.M | re.S)
    body = pattern.sub(lambda _: section + "\n", body) if pattern.search(body) \
        else body.rstrip("\n") + "\n\n" + section
    with open(PATH, "w") as f:
        f.write(body)


def publish(heading: str, intro: str, table: str, write: bool) -> int:
    """Prints a benchmark's table and, with --write, puts intro + table into its section;
    the benchmark's exit status (0)."""
    print(table)
    if write:
        write_section(heading, intro + table)
    return 0
