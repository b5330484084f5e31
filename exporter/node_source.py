"""Where a graph node comes from in the user's code, for messages and the debug record.

torch.export keeps, on each node, the Python stack that produced it (outermost frame
first) and the stack of modules it ran in. The frame that matters to a user is the
innermost one outside torch itself: `modeling_gpt2.py:211`, not `torch/nn/functional.py`.
"""

import os
import re
import sys
import traceback

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


_EXPORTER_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _is_user_file(path: str) -> bool:
    """Not torch, not an installed package, not the exporter, not Python's own."""
    path = os.path.abspath(path)
    parts = path.split(os.sep)
    return not (path.startswith(_TORCH_DIR) or path.startswith(_EXPORTER_DIR)
                or "site-packages" in parts or "dist-packages" in parts
                or os.path.basename(path).startswith("<") or path.startswith(sys.prefix + os.sep)
                or path.startswith(sys.base_prefix + os.sep))


def exception_user_frame(exc: BaseException) -> tuple[str, int, str] | None:
    """(file, line, code) of the innermost frame of the user's code in `exc`'s traceback
    (or the exceptions it was raised from), or None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if _is_user_file(f.filename)]
        if frames:
            f = frames[-1]
            return f.filename, f.lineno or 0, (f.line or "").strip()
        exc = exc.__cause__ or exc.__context__
    return None


def describe_exception(exc: BaseException) -> str:
    """"ValueError: bad size (model.py:12: raise ValueError(...))": the exception's type,
    its first line and the user's line it came from."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0] if lines else '(no message)'}"
    frame = exception_user_frame(exc)
    if frame is not None:
        text += f" (at {frame[0]}:{frame[1]}: {frame[2]})"
    return text


def source_line(node: torch.fx.Node) -> str:
    """`modeling_gpt2.py:211` (the file's base name and the line), or "" if unknown."""
    frame = user_frame(node)
    return f"{os.path.basename(frame[0])}:{frame[1]}" if frame else ""


def module_path(node: torch.fx.Node) -> str:
    """The path of the innermost module the node ran in ("transformer.h.0.attn"), or ""."""
    stack = node.meta.get("nn_module_stack") or {}
    # torch marks nodes its decompositions made outside any module with a placeholder
    # entry ("_empty_nn_module_stack_from_metadata_hook"): not a module of the model.
    paths = [path for path, _ in stack.values()
             if path and not path.startswith("_empty_nn_module_stack")]
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
