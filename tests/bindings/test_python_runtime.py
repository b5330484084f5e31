"""tailor.Runtime over the lib=shared MLP runtime: numbers against torch eager, the
specs it reports, and one clear TailorError for each kind of bad call."""

import os

import numpy as np
import pytest
import torch

import tailor


@pytest.fixture(scope="module")
def program(mlp_shared):
    return tailor.Runtime(mlp_shared.library).load(mlp_shared.program)


def test_methods_and_specs(program):
    assert program.methods == ["forward"]
    method = program.method("forward")
    assert method.inputs == [tailor.ValueSpec("tensor", "Float", (8, 16), True)]
    assert method.outputs == [tailor.ValueSpec("tensor", "Float", (8, 4), True)]


@pytest.mark.parametrize("batch", [1, 3, 8])
def test_run_matches_torch_at_any_batch(program, batch):
    from examples.mlp.model import make_mlp
    module, _ = make_mlp()
    x = torch.randn(batch, 16, generator=torch.Generator().manual_seed(batch))
    [got] = program.run(x.numpy())
    with torch.no_grad():
        want = module.eval()(x).numpy()
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-5)


def test_runs_again_and_from_bytes(mlp_shared, program):
    io = os.path.splitext(mlp_shared.program)[0] + "_io"
    x = np.load(os.path.join(io, "input_0.npy"))
    expected = np.load(os.path.join(io, "expected_0.npy"))
    runtime = tailor.Runtime(mlp_shared.library)
    with open(mlp_shared.program, "rb") as f:
        from_bytes = runtime.load_bytes(f.read())
    for p in (program, program, from_bytes):  # the same method twice: inputs set anew
        np.testing.assert_allclose(p.run(x)[0], expected, atol=1e-5, rtol=1e-5)


def test_a_missing_program_is_one_clear_error(mlp_shared, tmp_path):
    runtime = tailor.Runtime(mlp_shared.library)
    with pytest.raises(tailor.TailorError) as e:
        runtime.load(tmp_path / "missing.pte")
    assert e.value.status == "AccessFailed"
    assert str(e.value).startswith("cannot load program %s" % (tmp_path / "missing.pte"))
    assert "No such file" in str(e.value)
    (tmp_path / "junk.pte").write_bytes(b"\0" * 64)
    with pytest.raises(tailor.TailorError) as e:
        runtime.load(tmp_path / "junk.pte")
    assert e.value.status == "InvalidProgram"


def test_a_missing_library_says_how_to_build_one(tmp_path):
    with pytest.raises(tailor.TailorError, match="build one with scons model=M lib=shared"):
        tailor.Runtime(tmp_path / "libtailor.so")


def test_wrong_dtype_is_refused(program):
    with pytest.raises(tailor.TailorError) as e:
        program.run(np.zeros((2, 16), np.float64))
    assert e.value.status == "InvalidArgument"
    assert "input 0: dtype Double does not match the expected Float" in str(e.value)
    with pytest.raises(tailor.TailorError, match="numpy dtype complex64 has no Tailor dtype"):
        program.run(np.zeros((2, 16), np.complex64))


@pytest.mark.parametrize("shape,message", [
    ((9, 16), "shape [9, 16] does not fit the upper bounds [8, 16]"),
    ((2, 17), "shape [2, 17] does not fit the upper bounds [8, 16]"),
    ((16,), "shape [16] has 1 dims, the input has 2 (at most [8, 16])"),
    ((0, 16), "shape [0, 16] is below the exported minimum [1, 16]"),
])
def test_wrong_shape_is_refused(program, shape, message):
    with pytest.raises(tailor.TailorError) as e:
        program.run(np.zeros(shape, np.float32))
    assert e.value.status == "InvalidArgument" and message in str(e.value), str(e.value)


def test_wrong_number_of_inputs_and_unknown_method(program):
    with pytest.raises(tailor.TailorError, match="takes 1 inputs, got 2"):
        program.run(np.zeros((2, 16), np.float32), np.zeros((2, 16), np.float32))
    with pytest.raises(tailor.TailorError) as e:
        program.method("decode")
    assert e.value.status == "NotFound" and "no method 'decode'" in str(e.value)


def test_a_refused_input_leaves_the_method_usable(program):
    with pytest.raises(tailor.TailorError):
        program.run(np.zeros((9, 16), np.float32))
    [y] = program.run(np.ones((2, 16), np.float32))
    assert y.shape == (2, 4) and np.isfinite(y).all()


def test_threads_give_the_same_numbers(mlp_shared, program):
    x = np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32)
    threaded = tailor.Runtime(mlp_shared.library).load(mlp_shared.program)
    np.testing.assert_array_equal(threaded.method("forward", threads=2).run(x)[0],
                                  program.run(x)[0])
    with pytest.raises(tailor.TailorError, match="65 threads asked for, at most 64"):
        threaded.method("forward", threads=65)


def test_methods_outlive_their_closed_program(mlp_shared):
    program = tailor.Runtime(mlp_shared.library).load(mlp_shared.program)
    method = program.method()
    program.close()  # the C API frees the program with its last method
    assert method.run(np.ones((1, 16), np.float32))[0].shape == (1, 4)
    with pytest.raises(tailor.TailorError, match="the program is closed"):
        program.method("forward", threads=2)
