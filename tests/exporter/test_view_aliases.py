"""A view_copy's out planned on its input's bytes (tensor_placement._view_aliases): the
kernel then copies nothing, and the program still computes what eager does."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from program_checks import assert_plan_is_safe  # noqa: E402
from pte_interpreter import run_program  # noqa: E402

from exporter.export import export  # noqa: E402
from program import model  # noqa: E402


class Reshapes(torch.nn.Module):
    """Views between computing ops (aliased), of a view (aliased to the first tensor),
    of the graph input and into the graph output (neither aliased)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(12, 12)

    def forward(self, x):
        a = self.fc(x.view(2, 12))       # a view of the input: copied
        b = torch.relu(a).view(4, 6)     # of an intermediate: shared
        c = b.view(24) * 2.0             # a view of a view: shared with relu's out
        return c.view(6, 4), a.sum()     # into an output: copied


def _views(program):
    method = program.method
    for instruction in method.instructions:
        if isinstance(instruction, model.KernelCall) and \
                method.operators[instruction.op_index].qualified_name == "aten::view_copy.out":
            source, out = instruction.args[0], instruction.args[2]
            yield method.values[source], method.values[out]


def test_views_of_intermediates_share_their_bytes_and_the_results_match_eager():
    torch.manual_seed(0)
    module = Reshapes().eval()
    x = torch.randn(2, 3, 4)
    program = export(module, (x,))
    shared = [a.allocation == b.allocation for a, b in _views(program)]
    assert shared == [False, True, True, False]
    assert_plan_is_safe(program.method)
    got = run_program(program.data, program.segment, [x])
    for g, want in zip(got, module(x)):
        torch.testing.assert_close(g, want)
