"""Atomic writes: a killed writer leaves a temporary beside its target; the next write of that
target removes it, and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debias.io.atomic import _HOST, atomic_path, remove_stale_temporaries, write_text

# A writer that opens its temporary, writes half a figure and waits to be killed.
WRITER = """
import sys, time
from pathlib import Path
from debias.io.atomic import atomic_path
with atomic_path(sys.argv[1]) as tmp:
    Path(tmp).write_bytes(b"half a figure")
    print(tmp, flush=True)
    time.sleep(600)
"""


def _kill_while_writing(target: Path) -> Path:
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    try:
        tmp = Path(proc.stdout.readline().strip())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return tmp


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_killed_writers_temporary_is_removed_by_the_next_write(tmp_path):
    target = tmp_path / "figures" / "figure1a.png"
    tmp = _kill_while_writing(target)
    assert tmp.parent == target.parent and tmp.read_bytes() == b"half a figure"
    assert not target.exists()
    # The rerun of the killed job writes the same target in a new process.
    subprocess.run(
        [sys.executable, "-c", "import sys; from debias.io.atomic import write_text; write_text(sys.argv[1], 'done')"]
        + [str(target)],
        check=True,
    )
    assert target.read_text() == "done"
    assert _leftovers(target.parent) == []


def _stale(folder: Path, name: str, pid: int, age: float = 3600.0, tag: str = "abcd1234") -> Path:
    """A file named like a temporary of ``name`` written by process ``pid``, ``age`` seconds old."""
    path = folder / f".{name}.{_HOST}-{pid}-{tag}.tmp{Path(name).suffix}"
    path.write_text("stale")
    os.utime(path, (time.time() - age, time.time() - age))
    return path


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_stale_temporaries_of_the_same_target_are_removed(tmp_path):
    target = tmp_path / "table.csv"
    dead = _dead_pid()
    stale = _stale(tmp_path, "table.csv", dead)
    of_another_target = _stale(tmp_path, "table2.csv", dead)
    running_writer = _stale(tmp_path, "table.csv", os.getppid())  # a process that is still running
    fresh = _stale(tmp_path, "table.csv", dead, age=-60, tag="efgh5678")  # written after this process started
    not_ours = tmp_path / ".table.csv.swp"
    not_ours.write_text("an editor's")
    assert remove_stale_temporaries(target) == [stale]
    write_text(target, "a,b\n")
    assert target.read_text() == "a,b\n"
    assert {p.name for p in tmp_path.iterdir()} == {
        "table.csv",
        of_another_target.name,
        running_writer.name,
        fresh.name,
        not_ours.name,
    }


def test_a_failing_block_leaves_nothing(tmp_path):
    target = tmp_path / "figure.pdf"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        Path(tmp).write_bytes(b"%PDF")
        raise RuntimeError("drawing failed")
    assert list(tmp_path.iterdir()) == []


def test_a_kill_while_a_command_writes_leaves_no_temporary_and_restores_the_handler(tmp_path):
    from debias.cli.analyse import _ending_cleanly_on_sigterm

    before = signal.getsignal(signal.SIGTERM)
    target = tmp_path / "out.csv"
    with pytest.raises(SystemExit) as ended, _ending_cleanly_on_sigterm(), atomic_path(target) as tmp:
        Path(tmp).write_text("half")
        os.kill(os.getpid(), signal.SIGTERM)
    assert ended.value.code == 128 + signal.SIGTERM
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) == before
