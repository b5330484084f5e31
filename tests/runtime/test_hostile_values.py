"""Hostile values reach real kernels and runtime pieces (hostile/hostile_values.cpp,
built under ASan/UBSan with float-cast-overflow): size arithmetic that would overflow
is an error, integer kernels wrap in two's complement, conversions saturate, Bool
elements read any byte as byte != 0; never undefined behaviour."""

import numpy as np

import programs as P


def test_hostile_values_are_defined(run_hostile):
    r = run_hostile()
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert len(lines) == 8 and all(line.endswith(": ok") for line in lines), r


def test_empty_tensor_with_huge_dims_loads(tmp_path, run):
    """Sizes [0, 2^31-1, 2^31-1, 2^31-1]: no bytes, but their product overflows int64."""
    big = 2**31 - 1
    m = P.relu_method()
    m["values"] = [P.tensor((0, big, big, big), arena=None),
                   P.tensor((0, big, big, big), arena=None)]
    m["instructions"] = []
    m["arena_sizes"] = []
    pte = tmp_path / "empty.pte"
    P.write(pte, P.program(m))
    np.save(tmp_path / "x.npy", np.zeros((0, 1, 1, 1), np.float32))
    r = run(pte)
    assert r.returncode == 0, r
    assert "output 0: shape [0, 2147483647, 2147483647, 2147483647] Float" in r.stdout, r
