"""A PNG file -> (width, height), or AssertionError saying what is wrong with it: the
signature, every chunk's CRC, the header, and image data that inflates to exactly one
filter byte plus one row of pixels per row."""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # color type -> samples per pixel


def check_png(path: str) -> tuple[int, int]:
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == SIGNATURE, f"{path}: no PNG signature"
    pos, chunks = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"{path}: bad CRC in chunk {kind!r}"
        chunks.append((kind, body))
        pos += 12 + length
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND", f"{path}: chunk order"
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert width > 0 and height > 0 and depth == 8 and interlace == 0, (width, height, depth)
    pixels = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(pixels) == height * (1 + width * CHANNELS[color]), f"{path}: image data size"
    return width, height
