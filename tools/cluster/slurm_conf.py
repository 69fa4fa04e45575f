"""The configuration of a throw-away single-node SLURM: what ``make cluster-test`` starts.

Pure functions: the ``slurm.conf`` text for a node, the node's memory from ``/proc/meminfo``, the
partition named by a Snakemake profile. Everything the daemons write (state, spool, logs, pid
files, the munge socket) lies under one directory, so nothing outside it is touched except
``/etc/slurm/slurm.conf``, which the job steps read (see :mod:`tools.cluster.daemons`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = ["SlurmNode", "node_real_memory_mb", "profile_partition", "render_slurm_conf"]

#: Memory left to the operating system and the daemons, MB.
RESERVED_MEMORY_MB = 512


@dataclass(frozen=True)
class SlurmNode:
    """One machine that is both the controller and the only compute node.

    Attributes
    ----------
    root : Path
        Directory for state, spool, logs and pid files (absolute).
    name : str
        Node name, the short host name (``hostname -s``); slurmd is started with ``-N name``.
    cpus : int
        CPUs the node offers (``nproc``).
    memory_mb : int
        ``RealMemory`` of the node, at most what the machine has (see :func:`node_real_memory_mb`).
    partition : str
        Name of the node's only partition, the default one.
    munge_socket : Path
        Socket of the munged this cluster authenticates with.
    ctld_port, slurmd_port : int
        TCP ports of slurmctld and slurmd; not SLURM's defaults (6817, 6818), so as not to meet a
        SLURM the machine may already run.
    """

    root: Path
    name: str
    cpus: int
    memory_mb: int
    partition: str
    munge_socket: Path
    ctld_port: int = 16817
    slurmd_port: int = 16818

    def __post_init__(self) -> None:
        if not Path(self.root).is_absolute():
            raise ValueError(f"root must be an absolute path, got {self.root!r}")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", self.name):
            raise ValueError(f"node name {self.name!r} is not a host name")
        if not re.fullmatch(r"[A-Za-z0-9_-]+", self.partition):
            raise ValueError(f"partition {self.partition!r}: expected letters, digits, '_' or '-'")
        if self.cpus < 1 or self.memory_mb < 1:
            raise ValueError(f"cpus and memory_mb must be positive, got {self.cpus} and {self.memory_mb}")
        if self.ctld_port == self.slurmd_port:
            raise ValueError("slurmctld and slurmd need different ports")

    def path(self, name: str) -> Path:
        """A file or directory of this cluster, under :attr:`root`."""
        return Path(self.root) / name


def render_slurm_conf(node: SlurmNode) -> str:
    """The ``slurm.conf`` of a single-node cluster without cgroups or accounting.

    Processes are tracked through ``/proc`` (``proctrack/linuxproc``, ``task/none``), so no cgroup
    set-up is needed. There is no accounting daemon, so job states come from the controller
    alone: ``MinJobAge=600`` keeps finished jobs visible to ``squeue`` for ten minutes, long
    enough for Snakemake's status checks. Cores and memory are consumable resources
    (``CR_Core_Memory``), so jobs run side by side as their ``--mem`` and ``--cpus-per-task`` allow.
    """
    p = node.path
    lines = [
        "# A single-node SLURM for python -m tools.cluster.check; everything it writes is under",
        f"# {node.root}",
        "ClusterName=debias-test",
        f"SlurmctldHost={node.name}(127.0.0.1)",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"SlurmctldPort={node.ctld_port}",
        f"SlurmdPort={node.slurmd_port}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={node.munge_socket}",
        f"StateSaveLocation={p('state')}",
        f"SlurmdSpoolDir={p('spool')}",
        f"SlurmctldPidFile={p('slurmctld.pid')}",
        f"SlurmdPidFile={p('slurmd.pid')}",
        f"SlurmctldLogFile={p('slurmctld.log')}",
        f"SlurmdLogFile={p('slurmd.log')}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "SchedulerType=sched/backfill",
        "MpiDefault=none",
        "ReturnToService=2",
        "MinJobAge=600",
        "SlurmctldTimeout=30",
        "SlurmdTimeout=60",
        f"NodeName={node.name} NodeAddr=127.0.0.1 CPUs={node.cpus} RealMemory={node.memory_mb} State=UNKNOWN",
        f"PartitionName={node.partition} Nodes={node.name} Default=YES MaxTime=INFINITE State=UP",
    ]
    return "\n".join(lines) + "\n"


def node_real_memory_mb(meminfo: str, reserved_mb: int = RESERVED_MEMORY_MB) -> int:
    """``RealMemory`` for the node: the machine's ``MemTotal`` (from ``/proc/meminfo`` text) less
    ``reserved_mb``, in MB. slurmd drains a node that claims more memory than it has."""
    match = re.search(r"^MemTotal:\s+(\d+)\s+kB", meminfo, flags=re.MULTILINE)
    if match is None:
        raise ValueError("no 'MemTotal: <n> kB' line in /proc/meminfo")
    total_mb = int(match.group(1)) // 1024
    if total_mb <= reserved_mb:
        raise ValueError(f"the machine has {total_mb} MB of memory, not more than the {reserved_mb} MB reserved")
    return total_mb - reserved_mb


def profile_partition(profile: Path) -> str:
    """The ``slurm_partition`` of a Snakemake profile's ``default-resources`` (its config.yaml)."""
    settings = yaml.safe_load(Path(profile).read_text()) or {}
    resources = settings.get("default-resources") or {}
    if isinstance(resources, list):  # the command-line form: ["slurm_partition=x", ...]
        resources = dict(item.split("=", 1) for item in resources)
    partition = resources.get("slurm_partition")
    if not partition:
        raise ValueError(f"{profile}: default-resources has no slurm_partition")
    return str(partition).strip("'\"")
