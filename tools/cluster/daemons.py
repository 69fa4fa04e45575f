"""Start and stop a single-node SLURM (munged, slurmctld, slurmd) configured in one directory.

The daemons run in the foreground as children of this process, in their own session (a Ctrl-C
reaches this process, not them), so they are stopped in order and reaped, leaving no zombies.
Only the daemons started here are ever stopped: the pid each writes to its pid file must be the
child's, and a pid is signalled only while it still belongs to a process of that name. ``/etc/slurm/slurm.conf`` is
written too, because the ``srun`` the Snakemake SLURM executor runs inside each job finds its
configuration only there (the executor clears the job's ``SLURM_*`` variables, ``SLURM_CONF``
among them); a file already there is moved aside and put back on stop.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from tools.cluster.slurm_conf import SlurmNode, render_slurm_conf

__all__ = ["DAEMONS", "LocalSlurm", "running_daemons"]

#: The programs this cluster runs.
DAEMONS = ("munged", "slurmctld", "slurmd")
SYSTEM_CONF = Path("/etc/slurm/slurm.conf")


def running_daemons(names: tuple[str, ...] = DAEMONS) -> dict[int, str]:
    """Pid -> name of every running process whose name is one of ``names`` (read from /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                name = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if name in names:
                found[int(entry.name)] = name
    return found


def pid_alive(pid: int, name: str) -> bool:
    """True while ``pid`` is a live (not zombie) process named ``name``."""
    proc = Path("/proc") / str(pid)
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        return (proc / "comm").read_text().strip() == name and state != "Z"
    except (OSError, IndexError):
        return False


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def _wait(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


class LocalSlurm:
    """A single-node SLURM in ``node.root``; a context manager that stops it on exit (also on error).

    Call :meth:`start`; afterwards :attr:`env` is the environment for SLURM's client commands.
    """

    def __init__(self, node: SlurmNode, log: Callable[[str], None]):
        self.node = node
        self.log = log
        self.conf = node.path("slurm.conf")
        self.pid_files = {
            "munged": node.path("munge/munged.pid"),
            "slurmctld": node.path("slurmctld.pid"),
            "slurmd": node.path("slurmd.pid"),
        }
        self.started: dict[str, subprocess.Popen] = {}
        self._conf_backup: Path | None = None
        self._made_etc_dir = False
        self._installed_conf = False
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))

    def __enter__(self) -> LocalSlurm:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- start ---------------------------------------------------------------------------------
    def start(self) -> None:
        others = running_daemons(("slurmctld", "slurmd"))
        if others:
            listed = ", ".join(f"{name} (pid {pid})" for pid, name in sorted(others.items()))
            raise RuntimeError(f"a SLURM already runs on this machine: {listed}; not starting a second one")
        busy = [p for p in (self.node.ctld_port, self.node.slurmd_port) if not _port_free(p)]
        if busy:
            raise RuntimeError(f"TCP port(s) {busy} already in use; not starting")
        for sub in ("state", "spool", "munge"):
            self.node.path(sub).mkdir(mode=0o700, parents=True, exist_ok=True)
        self._start_munged()
        self.conf.write_text(render_slurm_conf(self.node))
        self._install_system_conf()
        self._start("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
        self._start("slurmd", ["slurmd", "-D", "-f", str(self.conf), "-N", self.node.name])
        _wait(self._node_idle, 60, f"node {self.node.name} to be idle (see {self.node.path('slurmd.log')})")
        self.log(f"SLURM up: node {self.node.name}, {self.node.cpus} CPUs, {self.node.memory_mb} MB")

    def _start_munged(self) -> None:
        munge = self.node.path("munge")
        key = munge / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        key.chmod(0o400)
        command = [
            "munged",
            "--force",  # as root, munged refuses to start without it
            "--foreground",
            f"--socket={self.node.munge_socket}",
            f"--key-file={key}",
            f"--pid-file={self.pid_files['munged']}",
            f"--log-file={munge / 'munged.log'}",
            f"--seed-file={munge / 'munged.seed'}",
        ]
        self._start("munged", command)
        socket_path = str(self.node.munge_socket)
        encoded = subprocess.run(["munge", "-n", "-S", socket_path], capture_output=True, check=False)
        decoded = subprocess.run(["unmunge", "-S", socket_path], input=encoded.stdout, capture_output=True, check=False)
        if b"Success" not in decoded.stdout:
            raise RuntimeError(f"munge does not work: {decoded.stdout.decode()} {decoded.stderr.decode()}")

    def _start(self, name: str, command: list[str]) -> None:
        """Run a daemon in the foreground as a child; wait until it has written its pid file."""
        pid_file = self.pid_files[name]
        pid_file.unlink(missing_ok=True)
        output = self.node.path(f"{name}.out").open("w")
        proc = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        output.close()
        self.started[name] = proc

        def written() -> bool:
            if proc.poll() is not None:
                text = self.node.path(f"{name}.out").read_text().strip()
                raise RuntimeError(f"{' '.join(command)} exited with {proc.returncode}: {text}")
            text = pid_file.read_text().strip() if pid_file.exists() else ""
            return text == str(proc.pid)

        _wait(written, 30, f"{name} to write its pid {proc.pid} to {pid_file}")
        self.log(f"started {name} (pid {proc.pid})")

    def _install_system_conf(self) -> None:
        if not SYSTEM_CONF.parent.exists():
            SYSTEM_CONF.parent.mkdir(parents=True)
            self._made_etc_dir = True
        if SYSTEM_CONF.exists() or SYSTEM_CONF.is_symlink():
            self._conf_backup = self.node.path("etc-slurm.conf.saved")
            shutil.move(SYSTEM_CONF, self._conf_backup)
            self.log(f"moved the existing {SYSTEM_CONF} to {self._conf_backup}; it is put back on stop")
        shutil.copyfile(self.conf, SYSTEM_CONF)
        self._installed_conf = True

    def _node_idle(self) -> bool:
        proc = subprocess.run(
            ["sinfo", "-h", "-N", "-n", self.node.name, "-o", "%t"],
            capture_output=True,
            text=True,
            env=self.env,
            check=False,
        )
        return proc.returncode == 0 and proc.stdout.strip() == "idle"

    # -- stop ----------------------------------------------------------------------------------
    def stop(self) -> None:
        """Cancel this cluster's jobs, stop the daemons started here, put /etc/slurm back."""
        if "slurmctld" in self.started and self.started["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--full", "-p", self.node.partition], env=self.env, check=False)
            _wait_quietly(self._queue_empty, 30)
        for name in ("slurmd", "slurmctld", "munged"):
            proc = self.started.pop(name, None)
            if proc is not None:
                terminate(proc.pid, name, self.log)
                proc.wait()  # reaped: no zombie left behind
        if self._installed_conf:
            SYSTEM_CONF.unlink(missing_ok=True)
            self._installed_conf = False
        if self._conf_backup is not None:
            shutil.move(self._conf_backup, SYSTEM_CONF)
            self._conf_backup = None
            self.log(f"put the previous {SYSTEM_CONF} back")
        if self._made_etc_dir:
            try:
                SYSTEM_CONF.parent.rmdir()
            except OSError:
                pass
            self._made_etc_dir = False

    def _queue_empty(self) -> bool:
        proc = subprocess.run(
            ["squeue", "-h", "-t", "PD,R,CG", "-o", "%i"], capture_output=True, text=True, env=self.env, check=False
        )
        return proc.returncode != 0 or not proc.stdout.strip()


def _wait_quietly(predicate: Callable[[], bool], timeout: float) -> None:
    try:
        _wait(predicate, timeout, "")
    except RuntimeError:
        pass


def terminate(pid: int, name: str, log: Callable[[str], None]) -> None:
    """SIGTERM the process ``pid`` if it is still ``name``; SIGKILL it after 20 s."""
    if not pid_alive(pid, name):
        log(f"{name} (pid {pid}) is no longer running; nothing to stop")
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while pid_alive(pid, name) and time.monotonic() < deadline:
        time.sleep(0.1)
    if pid_alive(pid, name):
        os.kill(pid, signal.SIGKILL)
        log(f"{name} (pid {pid}) did not stop on SIGTERM; killed")
    else:
        log(f"stopped {name} (pid {pid})")
