"""util/matmul.h on its own: the op harness runs the blocked kernel of speed builds; this
also checks the row-by-row one that size builds (-Os) use, both against a plain triple
loop on every dtype, edge shapes and epilogue (bench/matmul_kernel.py's check mode)."""

import os
import re
import subprocess
import sys

from tests.conftest import REPO


def test_both_matmul_implementations_match_the_triple_loop():
    proc = subprocess.run([sys.executable, os.path.join(REPO, "bench", "matmul_kernel.py"),
                           "--no-time"], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    checked = re.search(r"(\d+) products checked, (\d+) failed", proc.stdout)
    assert checked, proc.stdout
    assert int(checked.group(1)) > 10000 and checked.group(2) == "0", proc.stdout
