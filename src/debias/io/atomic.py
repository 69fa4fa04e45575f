"""Writing results safely: atomic writes (a failing step leaves nothing half-written) and
checksums of input files."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_path", "sha256sum", "write_csv", "write_gzip", "write_jsonl_gz", "write_text"]

# The process umask, read once (reading it means setting it): files written here get the
# permissions a plain open() would give them.
_UMASK = os.umask(0)
os.umask(_UMASK)


def write_jsonl_gz(path: str | os.PathLike, records) -> None:
    """Write records as gzip'd JSON Lines, byte-reproducibly (no timestamp or name in the header)."""
    write_gzip(path, (json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n" for record in records))


def write_gzip(path: str | os.PathLike, texts, compresslevel: int = 9) -> None:
    """Write pieces of text as one gzip file, atomically and byte-reproducibly (no timestamp or
    name in the header)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=compresslevel) as gz:
        for text in texts:
            gz.write(text.encode("utf-8"))
    with atomic_path(path) as tmp:
        Path(tmp).write_bytes(buffer.getvalue())


_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path beside ``path``; rename it into place only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Keep the real suffix so libraries that infer the format from it still work.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix or ".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o666 & ~_UMASK)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write a text file atomically."""
    with atomic_path(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


def write_csv(frame, path: str | os.PathLike, float_format: str = "%.6g") -> None:
    """Write a pandas frame as CSV atomically, with a fixed float format for byte-stable tables."""
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format=float_format, lineterminator="\n")


def sha256sum(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
