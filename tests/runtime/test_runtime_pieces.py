"""Runtime pieces the runner does not reach, through fixtures/runtime_tool.cpp: the
file/mmap/buffer loaders, MethodMeta's method-allocator figure, Half/BFloat16, and the
message formatter (against the C library's snprintf)."""

import numpy as np

import programs as P


def test_loaders_and_exact_allocator_size(tmp_path, run_tool):
    c = np.arange(6, dtype=np.float32)
    pte = tmp_path / "add.pte"
    P.write(pte, P.program(P.add_const_method(), segments=[(0, 24)]), c.tobytes())
    r = run_tool("loaders", pte)
    assert r.returncode == 0, r
    lines = r.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["file", "mmap", "buffer"], r
    for line in lines:
        # The reported size is enough, and exact: 16 bytes less fails cleanly.
        assert line.endswith(": Ok, minus 16: MemoryAllocationFailed"), r


def test_half_and_bfloat16_match_numpy(tmp_path, run_tool):
    rng = np.random.default_rng(0)
    values = np.concatenate([
        rng.standard_normal(20000) * np.exp(rng.uniform(-30, 15, 20000)),
        [0.0, -0.0, 65504, 65519.99, 65520, 6e-8, 2.98e-8, 1e-40, np.inf, -np.inf],
    ]).astype(np.float32)
    values = np.concatenate([values, rng.integers(0, 2**32, 20000, dtype=np.uint32)
                             .view(np.float32)])
    values = values[~np.isnan(values)]
    values.tofile(tmp_path / "in.f32")
    r = run_tool("half", tmp_path / "in.f32", tmp_path / "out.bin")
    assert r.returncode == 0, r
    out = np.fromfile(tmp_path / "out.bin", np.uint8)
    pairs = out[:values.size * 4].view(np.uint16).reshape(-1, 2)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(pairs[:, 0], values.astype(np.float16).view(np.uint16))
    bits = values.view(np.uint32).astype(np.uint64)  # bfloat16: round to nearest even
    np.testing.assert_array_equal(pairs[:, 1], ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)
                                  .astype(np.uint16))
    every_half = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    back = out[values.size * 4:].view(np.float32)
    finite = ~np.isnan(every_half)
    np.testing.assert_array_equal(back[finite].view(np.uint32),
                                  every_half[finite].view(np.uint32))
    assert np.isnan(back[~finite]).all()


def test_format_string_matches_snprintf(run_tool):
    r = run_tool("format")
    assert r.returncode == 0 and "mismatch" not in r.stdout, r
    assert r.stdout.strip() == "checked 15", r
