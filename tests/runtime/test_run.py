"""Valid programs run under ASan/UBSan and give the numbers numpy gives."""

import json
import re

import numpy as np
import pytest

import programs as P


def test_relu_matches_numpy(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    x = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run(pte, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert r.returncode == 0, r
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == np.float32 and y.shape == (4, 4)
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_check_mode_reads_io_dir(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    P.write_io(pte, [x], [np.maximum(x, 0)])
    r = run(pte, "--check")
    assert r.returncode == 0, r
    assert re.search(r"^output 0: shape \[4, 4\] Float, max abs error \S+ "
                     r"\(atol 1e-05, rtol 1e-05\): ok$", r.stdout, re.M), r
    assert r.stdout.strip().endswith("check passed")


def test_check_mode_fails_on_wrong_numbers(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    x = np.ones((4, 4), np.float32)
    P.write_io(pte, [x], [x + 1e-3])
    r = run(pte, "--check")
    assert r.returncode == 1, r
    assert "max abs error 0.001" in r.stdout and ": FAILED" in r.stdout
    assert r.stdout.strip().endswith("check FAILED")
    # A looser tolerance accepts the same numbers.
    assert run(pte, "--check", "--atol", "1e-2").returncode == 0


def test_json_summary(tmp_path, run):
    """--json writes each timed run, each output's shape and dtype and its check result:
    what bench/common.py reads."""
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    x = np.ones((4, 4), np.float32)
    P.write_io(pte, [x], [x + 1e-3])
    r = run(pte, "--check", "--repeat", "3", "--json", tmp_path / "summary.json")
    assert r.returncode == 1, r
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["program"] == str(pte) and summary["method"] == "forward"
    assert summary["threads"] == 1 and len(summary["times_ms"]) == 3
    assert summary["min_ms"] == min(summary["times_ms"]) > 0
    assert summary["min_ms"] <= summary["median_ms"] <= max(summary["times_ms"])
    assert summary["outputs"] == [{"shape": [4, 4], "dtype": "Float", "check": False}]
    assert not list(tmp_path.glob("*.tmp"))
    run(pte, "--json", tmp_path / "summary.json")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["outputs"][0]["check"] is None and len(summary["times_ms"]) == 1


def test_check_mode_reports_shape_mismatch(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    P.write_io(pte, [np.ones((4, 4), np.float32)], [np.ones((2, 8), np.float32)])
    r = run(pte, "--check")
    assert r.returncode == 1, r
    assert "expected shape [2, 8]" in r.stdout


@pytest.mark.parametrize("dtype,alpha", [("Float", 2), ("Float", 0.5), ("Long", 3)])
def test_add_with_constant_operand(tmp_path, run, dtype, alpha):
    np_dtype = P.NP_DTYPES[dtype]
    c = (np.arange(6).reshape(2, 3) - 2).astype(np_dtype)
    pte = tmp_path / "add.pte"
    P.write(pte, P.program(P.add_const_method(dtype=dtype, alpha=alpha),
                           segments=[(0, c.nbytes)]), c.tobytes())
    x = (np.arange(6).reshape(2, 3) * 3).astype(np_dtype)
    expected = (x + np.asarray(alpha).astype(np_dtype) * c).astype(np_dtype)
    P.write_io(pte, [x], [expected])
    r = run(pte, "--check")
    assert r.returncode == 0, r
    assert "check passed" in r.stdout


def test_dynamic_input_resizes_output(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method(shape=(8, 4), dynamic=True)))
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run(pte, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert r.returncode == 0, r
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), np.maximum(x, 0))


def test_dynamic_input_beyond_upper_bound(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method(shape=(8, 4), dynamic=True)))
    np.save(tmp_path / "x.npy", np.zeros((9, 4), np.float32))
    r = run(pte, "--input", tmp_path / "x.npy")
    assert r.returncode == 1, r
    assert "input 0: shape [9, 4] does not fit the planned upper bounds [8, 4]" in r.stderr


def test_dynamic_input_below_the_exported_minimum(tmp_path, run):
    """min_sizes holds the export's lower bounds: a 0-row batch of a min-1 dim is refused,
    the minimum itself runs, and a program without min_sizes keeps accepting 0."""
    pte = tmp_path / "relu.pte"
    m = P.relu_method(shape=(8, 4), dynamic=True)
    m["values"][0]["val"]["min_sizes"] = [1, 4]
    P.write(pte, P.program(m))
    for rows, code in ((0, 1), (1, 0), (8, 0)):
        np.save(tmp_path / "x.npy", np.ones((rows, 4), np.float32))
        r = run(pte, "--input", tmp_path / "x.npy")
        assert r.returncode == code, r
    np.save(tmp_path / "x.npy", np.ones((0, 4), np.float32))
    r = run(pte, "--input", tmp_path / "x.npy")
    assert "method 'forward': input 0: shape [0, 4] is below the exported minimum [1, 4]" \
        in r.stderr, r
    P.write(pte, P.program(P.relu_method(shape=(8, 4), dynamic=True)))
    assert run(pte, "--input", tmp_path / "x.npy").returncode == 0


@pytest.mark.parametrize("min_sizes", [[1], [1, 5], [-1, 4]])
def test_malformed_min_sizes(tmp_path, run, min_sizes):
    pte = tmp_path / "relu.pte"
    m = P.relu_method(shape=(8, 4), dynamic=True)
    m["values"][0]["val"]["min_sizes"] = min_sizes
    P.write(pte, P.program(m))
    r = run(pte)
    assert r.returncode == 1, r
    assert "input 0: min_sizes must hold one size per dim, from 0 to the planned size" \
        in r.stderr, r


@pytest.mark.parametrize("cond,ran", [(True, True), (False, False)])
def test_jump_false_move_and_free(tmp_path, run, cond, ran):
    # 0: JumpFalse(cond) -> 3; 1: relu(x) -> y; 2: Move y -> z; 3: Free x. Output z.
    m = P.relu_method()
    m["values"] += [P.scalar("Bool", cond), P.tensor((4, 4), offset=128)]
    m["arena_sizes"] = [192]
    m["instructions"] = [
        {"instr_type": "JumpFalse", "instr": {"cond": 2, "destination": 3}},
        P.kernel_call(0, [0, 1]),
        {"instr_type": "Move", "instr": {"from": 1, "to": 3}},
        {"instr_type": "Free", "instr": {"value": 0}},
    ]
    m["outputs"] = [3]
    pte = tmp_path / "flow.pte"
    P.write(pte, P.program(m))
    x = np.arange(-8, 8, dtype=np.float32).reshape(4, 4)
    P.write_io(pte, [x], [np.maximum(x, 0) if ran else np.zeros_like(x)])
    r = run(pte, "--check")
    assert r.returncode == 0, r


def test_prints_outputs_without_check(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    r = run(pte)
    assert r.returncode == 0, r
    assert r.stdout.startswith("output 0: shape [4, 4] Float [0, 0,")


def test_unknown_method_lists_methods(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    r = run(pte, "--method", "decode")
    assert r.returncode == 1, r
    assert f"{pte}: no method 'decode' (methods: forward)" in r.stderr


@pytest.mark.parametrize("args,message", [
    ([], "no PROGRAM given"),
    (["p.pte", "--bogus"], "unknown option --bogus"),
    (["p.pte", "--atol"], "--atol needs a value"),
    (["p.pte", "--atol", "abc"], "'abc' is not a non-negative number"),
    (["p.pte", "--input"], "--input needs a file"),
    (["p.pte", "q.pte"], "unexpected argument 'q.pte'"),
])
def test_usage_errors_exit_2(run, args, message):
    r = run(*args)
    assert r.returncode == 2, r
    assert message in r.stderr and "usage: runner" in r.stderr


def test_missing_file(tmp_path, run):
    r = run(tmp_path / "nope.pte")
    assert r.returncode == 1, r
    assert "nope.pte: cannot open: No such file or directory" in r.stderr


@pytest.mark.parametrize("content,message", [
    (b"hello", "not a .npy file (bad magic)"),
    (b"\x93NUMPY\x01\x00\xff\x7f{", "truncated header"),
])
def test_bad_npy_input(tmp_path, run, content, message):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    (tmp_path / "x.npy").write_bytes(content)
    r = run(pte, "--input", tmp_path / "x.npy")
    assert r.returncode == 1, r
    assert f"{tmp_path / 'x.npy'}: {message}" in r.stderr


def test_input_dtype_mismatch(tmp_path, run):
    pte = tmp_path / "relu.pte"
    P.write(pte, P.program(P.relu_method()))
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float64))
    r = run(pte, "--input", tmp_path / "x.npy")
    assert r.returncode == 1, r
    assert "dtype Double does not match input 0" in r.stderr


def test_a_mutable_buffer_starts_from_its_initial_value(tmp_path, run):
    # add_const_method's constant c becomes state: planned memory set from the segment.
    m = P.add_const_method()
    m["values"][1]["val"].pop("constant")
    m["values"][1]["val"].update(allocation={"arena": 0, "offset": 64},
                                 initial={"segment": 0, "offset": 0})
    m["values"][3]["val"]["allocation"]["offset"] = 128
    m["arena_sizes"] = [192]
    c = (np.arange(6).reshape(2, 3) - 2).astype(np.float32)
    pte = tmp_path / "state.pte"
    P.write(pte, P.program(m, segments=[(0, c.nbytes)]), c.tobytes())
    x = np.ones((2, 3), np.float32)
    P.write_io(pte, [x], [x + 2 * c])
    r = run(pte, "--check", "--repeat", "2")
    assert r.returncode == 0, r
    assert "check passed" in r.stdout
