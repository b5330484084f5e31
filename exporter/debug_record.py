"""The debug record: which graph node and which line of the user's code each instruction
of a program comes from. Written beside the program, read by the build's messages.

    build/host/gpt2/gpt2.pte  ->  build/host/gpt2/gpt2.debug.json

It stays out of the program file, so what ships to a device carries none of it. Form:

    {"version": 1, "methods": [{"name": "forward", "instructions": [
        {"kind": "KernelCall", "op": "aten::cumsum.out", "nodes": ["cumsum"],
         "module": "transformer.h.0.attn", "source": "modeling_gpt2.py:211",
         "code": "mask = attention_mask.cumsum(-1)"}, ...]}]}

A DelegateCall lists every node it runs; its module and source are its first node's.
codegen/oplist.py reads it (without torch) to name the source line of each operator use.
"""

import json
import os

VERSION = 1


def debug_path_for(pte_path: str) -> str:
    """build/host/mlp/mlp.pte -> build/host/mlp/mlp.debug.json"""
    return os.path.splitext(pte_path)[0] + ".debug.json"


def read_debug_record(pte_path: str) -> dict | None:
    """The record beside `pte_path`, or None when there is none (or it is not one)."""
    try:
        with open(debug_path_for(pte_path)) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("version") == VERSION else None


def instruction_sources(record: dict | None, method_index: int) -> list[dict]:
    """The instruction entries of method `method_index`, or [] when unknown."""
    methods = (record or {}).get("methods") or []
    if not 0 <= method_index < len(methods):
        return []
    entries = methods[method_index].get("instructions") or []
    return [e if isinstance(e, dict) else {} for e in entries]


def where(entry: dict) -> str:
    """"modeling_gpt2.py:211 in transformer.h.0.attn", or "" when nothing is known."""
    source, module = entry.get("source") or "", entry.get("module") or ""
    return source + (f" in {module}" if module else "") if source else module
