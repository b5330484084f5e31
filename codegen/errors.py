"""ManifestError: bad user input (manifest, op list, program) that stops the build.

The message names the file, the entry and the fix. The CLIs print it once, without a
traceback, and exit 1; bugs stay ordinary exceptions.
"""

import difflib
import sys
from typing import Callable, Iterable


class ManifestError(Exception):
    """User error: the message alone tells the user what to change."""


def suggest(word: str, choices: Iterable[str], n: int = 3) -> str:
    """`; did you mean 'a' or 'b'?` for the closest choices, or "" when none is close."""
    close = difflib.get_close_matches(word, sorted(set(choices)), n=n, cutoff=0.6)
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Runs a stage's main(); a ManifestError becomes one line on stderr and exit 1."""
    try:
        return main(argv)
    except ManifestError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a missing or unreadable input file is the user's to fix
        print(f"error: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
