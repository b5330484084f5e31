"""Atomic file writes: a reader sees the old file or the whole new one, never half."""

import os
import tempfile


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_bytes_atomic(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o666 & ~_umask())  # mkstemp gives 0600; match open()
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        if e.filename is None:  # a failed write names no file: say which (a full disk)
            raise OSError(e.errno, e.strerror, path) from None
        raise
    except BaseException:
        os.unlink(tmp)
        raise


def write_text_atomic(path: str, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))
