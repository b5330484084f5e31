"""Running the llm app (apps/llm/) in tests: the binary a build made, a program, and the
tokenizer it reads (the nanogpt weights' vocab.json, merges.txt beside it, by default)."""

import re
import subprocess
from dataclasses import dataclass

from examples.nanogpt.trained import VOCAB


@dataclass(frozen=True)
class LlmApp:
    app: str        # build/.../bin/llm
    program: str    # build/.../<model>.pte

    def run(self, *args: str, stdin: bytes = b"", tokenizer: str | None = VOCAB,
            program: bool = True) -> subprocess.CompletedProcess:
        """`llm [PROGRAM] [--tokenizer FILE] ARGS` (tokenizer=None: the app looks beside
        the program)."""
        command = [self.app] + ([self.program] if program else [])
        command += ["--tokenizer", tokenizer] if tokenizer else []
        return subprocess.run(command + list(args), input=stdin, capture_output=True,
                              timeout=300)

    def generate(self, *args: str) -> tuple[str, list[int]]:
        """The text and the generated ids of a run with --print-ids."""
        proc = self.run("--print-ids", *args)
        assert proc.returncode == 0, proc.stderr.decode()
        return split_ids(proc.stdout.decode())


def split_ids(stdout: str) -> tuple[str, list[int]]:
    """(the text, the ids of its `generated ids:` line): the line is the last one."""
    text, _, line = stdout.rstrip("\n").rpartition("\n")
    assert line.startswith("generated ids:"), stdout
    return text, [int(t) for t in line[len("generated ids:"):].split()]


# The app's --memory line (apps/llm/main.cpp's print_memory), in MB.
MEMORY_LINE = re.compile(
    r"peak resident ([\d.]+) MB; now [\d.]+ MB \(([\d.]+) MB mapped from files, ([\d.]+) MB "
    r"allocated\); program ([\d.]+) MB, planned for the method ([\d.]+) MB \(([\d.]+) MB")


def memory_figures(stderr: str) -> dict[str, float] | None:
    """{peak, mapped, allocated, program, planned, packed} (MB) of the app's --memory line,
    or None when the output has none."""
    found = MEMORY_LINE.search(stderr)
    names = ("peak", "mapped", "allocated", "program", "planned", "packed")
    return dict(zip(names, map(float, found.groups()))) if found else None
