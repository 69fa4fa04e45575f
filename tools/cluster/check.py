"""Run a configuration through the SLURM profile on a throw-away single-node SLURM and check its
results are byte-identical to a local run (``python -m tools.cluster.check``, ``make cluster-test``).

Steps: start munged, slurmctld and slurmd configured in a temporary directory (no cgroups, no
accounting; see :mod:`tools.cluster.slurm_conf`); run the configuration (by default the committed
test configuration, ``.test/config/config.yaml``) twice in fresh run directories, once with
``--profile workflow/profiles/slurm`` and once locally, side by side; compare every result file
but the logs; stop the daemons started here, also when a step fails. Needs root (the daemons run
as root) and Debian's ``slurm-wlm`` and ``munge`` (``python -m tools.provision.system --packages slurm-wlm
munge`` installs them as root).

Usage, from the repository root::

    python -m tools.cluster.check [--config .test/config/config.yaml] [--profile workflow/profiles/slurm] [--keep]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from tools.cluster.daemons import LocalSlurm
from tools.cluster.slurm_conf import SlurmNode, node_real_memory_mb, profile_partition

__all__ = ["compare_results", "main", "prepare_run_dir"]

TOOLS = ("munged", "munge", "unmunge", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "sinfo", "scancel")
#: Result folders not compared: job logs (timings, host names) and caches.
NOT_COMPARED = ("logs", "cache")
STARTED = time.monotonic()


def _log(message: str) -> None:
    print(f"[cluster-test {time.monotonic() - STARTED:6.1f} s] {message}", file=sys.stderr, flush=True)


def prepare_run_dir(repo: Path, config_file: Path, target: Path) -> Path:
    """A run directory whose ``config/config.yaml`` is ``config_file`` with its data and NLTK paths
    made absolute (relative ones are taken from ``repo``) and results written to ``results/``."""
    config = yaml.safe_load(config_file.read_text())
    for key in ("data_dir", "nltk_data"):
        path = Path(config[key])
        config[key] = str(path if path.is_absolute() else (repo / path).resolve())
    config["results_dir"] = "results"
    (target / "config").mkdir(parents=True, exist_ok=True)
    (target / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return target


def compare_results(first: Path, second: Path) -> tuple[list[str], list[str], list[str]]:
    """Files under two ``results/`` folders (logs and caches left out): the byte-identical ones,
    the differing ones, and those only one side has; each list sorted, paths relative."""

    def files(root: Path) -> set[str]:
        return {
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and p.relative_to(root).parts[0] not in NOT_COMPARED
        }

    left, right = files(first), files(second)
    both = sorted(left & right)
    same = [f for f in both if filecmp.cmp(first / f, second / f, shallow=False)]
    differ = [f for f in both if f not in set(same)]
    return same, differ, sorted(left ^ right)


def _snakemake(repo: Path, run_dir: Path, *options: str) -> list[str]:
    snakefile = repo / "workflow/Snakefile"
    return [sys.executable, "-m", "snakemake", "--snakefile", str(snakefile), "--directory", str(run_dir), *options]


def _missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


def run_check(repo: Path, config_file: Path, profile: Path, work: Path, status_seconds: int) -> bool:
    """Start the cluster in ``work``, run both, compare; True when every result file agrees."""
    node = SlurmNode(
        root=work / "slurm",
        name=socket.gethostname().split(".")[0],
        cpus=os.cpu_count() or 1,
        memory_mb=node_real_memory_mb(Path("/proc/meminfo").read_text()),
        partition=profile_partition(profile / "config.yaml"),
        munge_socket=work / "slurm/munge/munge.socket",
    )
    local_dir = prepare_run_dir(repo, config_file, work / "local")
    slurm_dir = prepare_run_dir(repo, config_file, work / "cluster")
    with LocalSlurm(node, _log) as cluster:
        cluster.start()
        # The local run, on one core beside the cluster's jobs, whose run is mostly waiting.
        local_log = work / "local.log"
        with local_log.open("w") as out:
            local = subprocess.Popen(
                _snakemake(repo, local_dir, "--cores", "1"), stdout=out, stderr=subprocess.STDOUT, cwd=local_dir
            )
        cluster_log = work / "cluster.log"
        _log(f"running {config_file} through {profile} (log: {cluster_log})")
        slurm_options = (
            "--profile",
            str(profile),
            "--slurm-status-command",
            "squeue",  # no accounting daemon, so no sacct; MinJobAge keeps finished jobs in squeue
            "--slurm-init-seconds-before-status-checks",
            str(status_seconds),
            "--seconds-between-status-checks",
            str(status_seconds),
            "--slurm-no-account",
        )
        try:
            with cluster_log.open("w") as out:
                started = time.monotonic()
                done = subprocess.run(
                    _snakemake(repo, slurm_dir, *slurm_options),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    cwd=slurm_dir,
                    env=cluster.env,
                    timeout=1200,
                    check=False,
                )
            _log(f"cluster run: exit {done.returncode} in {time.monotonic() - started:.0f} s")
            local.wait(timeout=1200)
        finally:
            if local.poll() is None:
                local.terminate()
                local.wait(timeout=60)
        _log(f"local run: exit {local.returncode}")
    if done.returncode != 0 or local.returncode != 0:
        failed = cluster_log if done.returncode != 0 else local_log
        _log(f"a run failed; the end of {failed}:\n{_tail(failed)}")
        return False
    same, differ, unmatched = compare_results(local_dir / "results", slurm_dir / "results")
    tables = [f for f in same if f.startswith("tables/")]
    _log(f"{len(same)} result files byte-identical ({len(tables)} tables); {len(differ)} differ")
    _log(f"{len(unmatched)} result files only on one side")
    for name in differ:
        _log(f"  differs: {name}")
    for name in unmatched:
        _log(f"  only on one side: {name}")
    return bool(tables) and not differ and not unmatched


def _exit_on_signal(signum, frame):
    _log(f"stopped by signal {signum}; stopping the daemons started here")
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cluster.check", description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="repository root (default: here)")
    parser.add_argument("--config", type=Path, default=Path(".test/config/config.yaml"))
    parser.add_argument("--profile", type=Path, default=Path("workflow/profiles/slurm"))
    parser.add_argument("--status-seconds", type=int, default=2, help="seconds between job status checks")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    config_file, profile = (p if p.is_absolute() else repo / p for p in (args.config, args.profile))
    if not (repo / "workflow/Snakefile").exists():
        _log(f"{repo} is not the repository root (no workflow/Snakefile)")
        return 2
    if os.geteuid() != 0:
        _log("the test starts munged, slurmctld and slurmd as root: run it as root")
        return 2
    missing = _missing_tools()
    if missing:
        _log(f"missing {', '.join(missing)}: run  python -m tools.provision.system --packages slurm-wlm munge  as root")
        return 2
    # Stopped from outside (SIGTERM, SIGHUP), it still stops its daemons on the way out.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_on_signal)
    work = Path(tempfile.mkdtemp(prefix="debias-cluster-"))
    ok = False
    try:
        ok = run_check(repo, config_file, profile, work, args.status_seconds)
    finally:
        if ok and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            _log(f"kept {work}")
    _log("PASSED: the SLURM run's results equal the local run's" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
