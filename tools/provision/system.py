"""Install the Debian packages the paper's metric implementations run on (``python -m tools.provision.system``).

ROUGE-1.5.5 is a Perl script that needs ``XML::Parser`` (Debian ``libxml-parser-perl``;
``DB_File`` comes with Debian's ``perl``); METEOR 1.5 is a Java program (Debian
``default-jre-headless``). Each package is looked for by what it provides (the Perl module
loads, ``java`` runs), so a Java installed some other way also counts. Missing ones are
installed with apt-get when running as root; otherwise the command exits non-zero and names
them.

Usage::

    python -m tools.provision.system --packages perl libxml-parser-perl default-jre-headless
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from tools.provision.apt import apt_available, apt_install

__all__ = ["PROVIDES", "main", "missing_packages"]

#: Debian package -> a command that succeeds when what the package provides is usable.
PROVIDES: dict[str, list[str]] = {
    "perl": ["perl", "-MDB_File", "-e", "1"],
    "libxml-parser-perl": ["perl", "-MXML::Parser", "-e", "1"],
    "default-jre-headless": ["java", "-version"],
    # For make cluster-test only: a single-node SLURM and its authentication daemon.
    "slurm-wlm": ["slurmctld", "-V"],
    "munge": ["munged", "--version"],
    # For `make test` only: the browser tests/test_html_report.py opens Snakemake's report in.
    "chromium": ["chromium", "--version"],
}


def _log(message: str) -> None:
    print(f"[system-packages] {message}", file=sys.stderr, flush=True)


def _works(command: list[str]) -> bool:
    if shutil.which(command[0]) is None:
        return False
    return subprocess.run(command, capture_output=True, check=False).returncode == 0


def missing_packages(packages: list[str]) -> list[str]:
    """The packages among ``packages`` whose capability is not usable here."""
    unknown = [p for p in packages if p not in PROVIDES]
    if unknown:
        raise ValueError(f"no check known for {', '.join(unknown)}; known: {', '.join(PROVIDES)}")
    return [p for p in packages if not _works(PROVIDES[p])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.provision.system", description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", required=True, help="Debian package names")
    args = parser.parse_args(argv)
    missing = missing_packages(args.packages)
    if not missing:
        _log(f"all present: {', '.join(args.packages)}")
        return 0
    names = " ".join(missing)
    if not apt_available():
        _log(f"missing: {names}. This is not a Debian-based system: install the equivalents of these packages.")
        return 1
    if os.geteuid() != 0:
        _log(f"missing Debian packages: {names}. Not running as root, so install them yourself, then rerun:")
        _log(f"  sudo apt-get update && sudo apt-get install -y --no-install-recommends {names}")
        return 1
    _log(f"installing Debian packages: {names}")
    started = time.monotonic()
    if not apt_install(tuple(missing), _log):
        _log(f"apt-get could not install {names}")
        return 1
    still = missing_packages(missing)
    if still:
        _log(f"installed, but still not usable: {' '.join(still)}")
        return 1
    _log(f"installed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
