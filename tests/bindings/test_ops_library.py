"""A lib=shared build from an op list (ops=, no model): programs written elsewhere run
through it with tailor.Runtime, scalar inputs included; a program that calls an operator
the library lacks is refused at method load."""

import os

import numpy as np
import pytest

import tailor
from codegen import build_layout
from tests.bindings.conftest import BUILD
from tests.conftest import REPO, run_scons
from tests.runtime import programs as P

OPS = "aten::add.out,aten::relu.out"


@pytest.fixture(scope="module")
def runtime():
    proc = run_scons("ops=" + OPS, "lib=shared", "build_dir=" + BUILD)
    library = build_layout.library(build_layout.output_dir(build_dir=BUILD, lib="shared",
                                                           ops=True))
    assert "shared library: %s" % library in proc.stdout
    library = os.path.join(REPO, library)
    return tailor.Runtime(library)


def _add_with_alpha_input(dtype: str = "Float"):
    """y = x + alpha * c, with x, c and alpha (an Int) all method inputs."""
    x, c, alpha, y = P.tensor((2, 3), dtype, offset=0), P.tensor((2, 3), dtype, offset=64), \
        P.scalar("Int", 1), P.tensor((2, 3), dtype, offset=128)
    return P.method(values=[x, c, alpha, y], instructions=[P.kernel_call(0, [0, 1, 2, 3])],
                    operators=[("aten::add", "out")], inputs=[0, 1, 2], outputs=[3],
                    arena_sizes=[192])


def test_relu_from_bytes(runtime, tmp_path):
    data = P.write(tmp_path / "relu.pte", P.program(P.relu_method()))
    x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(4, 4)
    program = runtime.load_bytes(data)
    [y] = program.run(x)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    [y] = program.run(x.T)  # not C-contiguous: copied into C order first
    np.testing.assert_array_equal(y, np.maximum(x.T, 0))


@pytest.mark.parametrize("dtype", ["Float", "Long"])
def test_scalar_input(runtime, tmp_path, dtype):
    P.write(tmp_path / "add.pte", P.program(_add_with_alpha_input(dtype)))
    program = runtime.load(tmp_path / "add.pte")
    assert program.method().inputs[2] == tailor.ValueSpec("int", "Long", (), False)
    x = np.arange(6, dtype=P.NP_DTYPES[dtype]).reshape(2, 3)
    c = np.ones((2, 3), dtype=P.NP_DTYPES[dtype])
    for alpha in (3, -1):
        [y] = program.run(x, c, alpha)
        np.testing.assert_array_equal(y, x + alpha * c)
    with pytest.raises(tailor.TailorError, match="input 2 is a scalar of dtype Long: give one "
                       "element"):
        program.run(x, c, 2.5)


def test_operator_missing_from_the_library(runtime, tmp_path):
    values = [P.tensor((2, 2), offset=0), P.tensor((2, 2), offset=64),
              P.tensor((2, 2), offset=128)]
    method = P.method(values=values, instructions=[P.kernel_call(0, [0, 1, 2])],
                      operators=[("aten::mm", "out")], inputs=[0, 1], outputs=[2],
                      arena_sizes=[192])
    P.write(tmp_path / "mm.pte", P.program(method))
    program = runtime.load(tmp_path / "mm.pte")
    with pytest.raises(tailor.TailorError) as e:
        program.method("forward")
    assert e.value.status == "OperatorMissing"
    assert "aten::mm.out" in str(e.value), str(e.value)
