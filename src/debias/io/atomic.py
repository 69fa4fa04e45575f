"""Writing results safely: atomic writes (a failing step leaves nothing half-written) and
checksums of input files."""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import io
import json
import os
import re
import socket
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "atomic_path",
    "non_regular_kind",
    "refuse_non_regular",
    "remove_stale_temporaries",
    "sha256sum",
    "temporary_name_prefix",
    "write_csv",
    "write_gzip",
    "write_jsonl_gz",
    "write_text",
]

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


# When this process started using this module: a temporary of a target that is older than
# this, left by a process that is no longer running, is a leftover of a killed job.
_STARTED = time.time()
_HOST = socket.gethostname().split(".")[0] or "host"
# ``.<target name>.<host>-<pid>-<8 random characters>.tmp<target suffix>``: the host and
# process id say who writes it, the target's suffix stays last for libraries that infer the
# format from it.
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]+)-(?P<pid>\d+)-[a-z0-9_]{8}\.tmp(?P<suffix>\.[^.]*)?$")


def temporary_name_prefix(path: Path) -> str:
    """The start of the name of every temporary :func:`atomic_path` makes for ``path``."""
    return f".{path.name}.{_HOST}-{os.getpid()}-"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # running, as another user
        return True
    return True


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove the temporaries a killed job left beside ``path``; returns what was removed.

    Only files named the way :func:`atomic_path` names its temporaries *for this target* are
    considered, and of those only the ones last modified before this process started that no
    running process on this host is still writing (another host's are judged by age alone:
    the workflow never has two jobs writing one target at the same time).
    """
    path = Path(path)
    removed = []
    try:
        entries = list(os.scandir(path.parent))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if not match or match["name"] != path.name or (match["suffix"] or "") != path.suffix:
            continue
        try:
            if not entry.is_file(follow_symlinks=False) or entry.stat().st_mtime >= _STARTED:
                continue
        except FileNotFoundError:
            continue
        pid = int(match["pid"])
        if match["host"] == _HOST and (pid == os.getpid() or _running(pid)):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def non_regular_kind(path: str | os.PathLike) -> str | None:
    """What ``path`` leads to (links followed) when it exists and is no regular file: ``"a
    folder"``, ``"a pipe"``, ``"a socket"`` or ``"a device"``; ``None`` for a regular file or a
    path that leads nowhere."""
    try:  # what the name leads to, links followed: /dev/stdout may lead to a pipe with no name
        kind = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(kind):
        return None
    if stat.S_ISDIR(kind):
        return "a folder"
    return "a pipe" if stat.S_ISFIFO(kind) else "a socket" if stat.S_ISSOCK(kind) else "a device"


def refuse_non_regular(path: str | os.PathLike) -> None:
    """Raise an ``OSError`` when ``path`` exists (links followed) and is no regular file (a
    folder, a FIFO, a device, a socket): :func:`atomic_path` would not replace it. Commands
    call it on every file they will write before writing any (one refused file leaves the
    others unwritten)."""
    what = non_regular_kind(path)
    if what is None:
        return
    if what == "a folder":
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    raise OSError(errno.EINVAL, f"is {what}, not a regular file: not replaced", str(path))


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path beside ``path``; rename it into place only if the block succeeds.

    The temporary is removed when the block fails; one left by a job that was killed (so that
    nothing could remove it) is removed by the next write of the same target
    (:func:`remove_stale_temporaries`). A symbolic link is written through (its target is
    replaced, the link kept); a target that exists and is no regular file (a FIFO, a device, a
    socket, a folder) is refused with an ``OSError`` before anything is written.
    """
    path = Path(path)
    refuse_non_regular(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=temporary_name_prefix(path), suffix=".tmp" + path.suffix, dir=path.parent)
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
