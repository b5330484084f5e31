"""Where a graph node comes from in the user's code, for messages and the debug record.

torch.export keeps, on each node, the Python stack that produced it (outermost frame
first) and the stack of modules it ran in. The frame that matters to a user is the
innermost one outside torch itself: `modeling_gpt2.py:211`, not `torch/nn/functional.py`.
"""

import os
import re

import torch

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)\n\s*(?P<code>[^\n]*)')


def user_frame(node: torch.fx.Node) -> tuple[str, int, str] | None:
    """(file, line, code) of the innermost frame outside torch, or None if none is known."""
    frames = [m for m in _FRAME.finditer(node.meta.get("stack_trace") or "")]
    outside = [m for m in frames if not os.path.abspath(m["file"]).startswith(_TORCH_DIR)]
    if not outside:
        return None
    m = outside[-1]
    return m["file"], int(m["line"]), m["code"].strip()


def source_line(node: torch.fx.Node) -> str:
    """`modeling_gpt2.py:211` (the file's base name and the line), or "" if unknown."""
    frame = user_frame(node)
    return f"{os.path.basename(frame[0])}:{frame[1]}" if frame else ""


def module_path(node: torch.fx.Node) -> str:
    """The path of the innermost module the node ran in ("transformer.h.0.attn"), or ""."""
    stack = node.meta.get("nn_module_stack") or {}
    paths = [path for path, _ in stack.values() if path]
    return paths[-1] if paths else ""


def describe(node: torch.fx.Node) -> str:
    """"node 'addmm_3' (model.py:42: y = self.fc(x))": the node and its user source line."""
    frame = user_frame(node)
    if frame is None:
        return f"node '{node.name}'"
    return f"node '{node.name}' ({os.path.basename(frame[0])}:{frame[1]}: {frame[2]})"


def origin(node: torch.fx.Node) -> dict:
    """{"module", "source", "code"} of the node, for the debug record (empty if unknown)."""
    frame = user_frame(node)
    found = {"module": module_path(node)} if module_path(node) else {}
    if frame:
        found.update(source=f"{os.path.basename(frame[0])}:{frame[1]}", code=frame[2])
    return found
