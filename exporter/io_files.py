"""Example inputs and eager outputs -> <out stem>_io/input_<i>.npy, expected_<i>.npy.

An output drawn from random operators or left unset (exporter/drawn_outputs.py) is
written as drawn_<i>.npy instead: the runner's --check compares its shape and dtype only.

The runner's --check loads these, runs the program on the inputs and compares its
outputs with the expected ones (tolerance from the model manifest). Every file is
written atomically; files left from an earlier export with more inputs or outputs are
removed so the directory always describes the current program.
"""

import io
import os
import re

import numpy as np
import torch

from program.atomic import write_bytes_atomic
from exporter.errors import ExportError

_IO_FILE = re.compile(r"^(input|expected|drawn)_\d+\.npy$")


def io_dir_for(pte_path: str) -> str:
    """build/host/mlp/mlp.pte -> build/host/mlp/mlp_io"""
    return os.path.splitext(pte_path)[0] + "_io"


def to_numpy(value, what: str) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        if value.dtype == torch.bfloat16:
            raise ExportError(f"{what} is bfloat16, which .npy cannot hold; return float32 "
                              "from the model or the factory")
        return value.detach().contiguous().numpy()
    if isinstance(value, (bool, int, float)):
        return np.asarray(value)
    raise ExportError(f"{what} is a {type(value).__name__}; only tensors and numbers "
                      "can be checked")


def _npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def write_io(directory: str, inputs: list, expected: list, drawn: tuple = ()) -> list[str]:
    """Writes input_<i>.npy and expected_<i>.npy (drawn_<i>.npy for the outputs in
    `drawn`); returns the paths written."""
    files = {f"input_{i}.npy": to_numpy(v, f"input {i}") for i, v in enumerate(inputs)}
    files.update({f"{'drawn' if i in drawn else 'expected'}_{i}.npy": to_numpy(v, f"output {i}")
                  for i, v in enumerate(expected)})
    written = []
    for name, array in files.items():
        path = os.path.join(directory, name)
        write_bytes_atomic(path, _npy_bytes(array))
        written.append(path)
    for name in os.listdir(directory):
        if _IO_FILE.match(name) and name not in files:
            os.unlink(os.path.join(directory, name))
    return written
