"""Constant tensor bytes -> the constant segment (segments[0]) and each tensor's offset.

Input: (key, bytes) per constant tensor, in program order. Output: the segment bytes and
the offset of each key. Every tensor starts 64-byte aligned; tensors with identical bytes
(tied weights, repeated buffers) are stored once and share an offset. Empty tensors get
no offset (the program gives them neither `constant` nor `allocation`).
"""

from dataclasses import dataclass

CONSTANT_ALIGNMENT = 64


@dataclass(frozen=True)
class ConstantSegment:
    data: bytes
    offsets: dict[int, int]   # key -> byte offset inside the segment


def pack_constants(constants: list[tuple[int, bytes]]) -> ConstantSegment:
    out = bytearray()
    offsets: dict[int, int] = {}
    seen: dict[bytes, int] = {}
    for key, data in constants:
        if not data:
            continue
        if data not in seen:
            out += b"\0" * (-len(out) % CONSTANT_ALIGNMENT)
            seen[data] = len(out)
            out += data
        offsets[key] = seen[data]
    return ConstantSegment(bytes(out), offsets)
