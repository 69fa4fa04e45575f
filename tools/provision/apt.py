"""Debian packages for set-up steps: whether they are installed, installing them as root, their files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "apt_available",
    "apt_install",
    "debian_installed",
    "extract_from_package",
    "package_files",
    "run",
]

APT_TIMEOUT_S = 900


def run(cmd: list[str], timeout: float = APT_TIMEOUT_S, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run a command non-interactively, capturing its output; never raises on a non-zero exit."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd, check=False)


def tail(proc: subprocess.CompletedProcess, lines: int = 5) -> str:
    """The last lines a command printed, on one line, for an error message."""
    text = (proc.stderr or proc.stdout or "").strip().splitlines()
    return " | ".join(text[-lines:])


def apt_available() -> bool:
    """True on a Debian-based system (dpkg and apt-get on the PATH)."""
    return shutil.which("dpkg-query") is not None and shutil.which("apt-get") is not None


def debian_installed(package: str) -> bool:
    proc = run(["dpkg-query", "-W", "-f=${Status}", package], timeout=60)
    return proc.returncode == 0 and "install ok installed" in proc.stdout


def _has_candidate(package: str) -> bool:
    proc = run(["apt-cache", "policy", package], timeout=120)
    match = re.search(r"Candidate:\s*(\S+)", proc.stdout)
    return proc.returncode == 0 and match is not None and match.group(1) != "(none)"


def apt_install(packages: tuple[str, ...], log: Callable[[str], None]) -> bool:
    """Install ``packages`` with apt-get (as root), running ``apt-get update`` only when needed."""
    updated = False
    if not all(_has_candidate(p) for p in packages):
        log("  package lists lack some of the packages; running apt-get update")
        proc = run(["apt-get", "update"])
        updated = True
        if proc.returncode != 0:
            log(f"  apt-get update failed: {tail(proc)}")
            return False
    cmd = ["apt-get", "install", "-y", "--no-install-recommends", *packages]
    log(f"  running: {' '.join(cmd)}")
    proc = run(cmd)
    if proc.returncode != 0 and not updated:
        # Stale package lists point at files the archive no longer has.
        log("  install failed; running apt-get update and retrying once")
        update = run(["apt-get", "update"])
        if update.returncode != 0:
            log(f"  apt-get update failed: {tail(update)}")
            return False
        proc = run(cmd)
    if proc.returncode != 0:
        log(f"  apt-get install failed: {tail(proc)}")
        return False
    return True


def package_files(packages: tuple[str, ...]) -> list[Path]:
    """Every path the installed ``packages`` own (``dpkg -L``); raises RuntimeError on failure."""
    proc = run(["dpkg", "-L", *packages], timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"dpkg -L {' '.join(packages)} failed: {tail(proc)}")
    return [Path(line.strip()) for line in proc.stdout.splitlines() if line.strip()]


def extract_from_package(package: str, pattern: str, workdir: Path, log: Callable[[str], None]) -> Path | None:
    """Download ``package``'s .deb and return its first file matching the glob ``pattern``.

    For files a dpkg configuration leaves out when installing (manual pages, say).
    """
    fetch = run(["apt-get", "download", package], cwd=workdir)
    debs = sorted(workdir.glob(f"{package}_*.deb"))
    if fetch.returncode != 0 or not debs:
        log(f"  apt-get download {package} failed: {tail(fetch)}")
        return None
    unpacked = workdir / "unpacked"
    proc = run(["dpkg-deb", "-x", str(debs[0]), str(unpacked)], timeout=120)
    if proc.returncode != 0:
        log(f"  dpkg-deb -x failed: {tail(proc)}")
        return None
    found = sorted(unpacked.rglob(pattern))
    return found[0] if found else None
