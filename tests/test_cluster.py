"""The SLURM profile and the pieces of ``make cluster-test`` that need no SLURM: the slurm.conf
of the throw-away cluster, the node's memory, the comparison of two runs' results, and that
only a process of the expected name is ever stopped."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
import yaml
from conftest import REPO

from tools.cluster.check import compare_results, prepare_run_dir
from tools.cluster.daemons import pid_alive, terminate
from tools.cluster.slurm_conf import SlurmNode, node_real_memory_mb, profile_partition, render_slurm_conf

PROFILE = REPO / "workflow/profiles/slurm/config.yaml"


def node(tmp_path: Path, **changes) -> SlurmNode:
    settings = dict(
        root=tmp_path / "slurm",
        name="vm",
        cpus=2,
        memory_mb=3000,
        partition="debias",
        munge_socket=tmp_path / "slurm/munge/munge.socket",
    )
    return SlurmNode(**(settings | changes))


def parse_conf(text: str) -> dict[str, str]:
    """Key -> value of a slurm.conf; NodeName and PartitionName lines keep their whole value."""
    pairs = [line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#")]
    return {key: value for key, value in pairs}


def test_slurm_conf_needs_no_cgroups_or_accounting_and_writes_only_under_its_root(tmp_path):
    conf = parse_conf(render_slurm_conf(node(tmp_path, ctld_port=20001, slurmd_port=20002)))
    assert conf["ProctrackType"] == "proctrack/linuxproc" and conf["TaskPlugin"] == "task/none"
    assert conf["AccountingStorageType"] == "accounting_storage/none"
    assert conf["JobAcctGatherType"] == "jobacct_gather/none"
    assert conf["SlurmUser"] == conf["SlurmdUser"] == "root"
    assert conf["SelectTypeParameters"] == "CR_Core_Memory"
    # finished jobs stay visible to squeue far longer than the executor's 3 x status interval
    assert int(conf["MinJobAge"]) >= 300
    assert (conf["SlurmctldPort"], conf["SlurmdPort"]) == ("20001", "20002")
    assert conf["AuthInfo"] == f"socket={tmp_path}/slurm/munge/munge.socket"
    for key in ("StateSaveLocation", "SlurmdSpoolDir", "SlurmctldPidFile", "SlurmdPidFile", "SlurmctldLogFile"):
        assert Path(conf[key]).is_relative_to(tmp_path / "slurm"), key
    assert conf["NodeName"] == "vm NodeAddr=127.0.0.1 CPUs=2 RealMemory=3000 State=UNKNOWN"
    assert conf["PartitionName"].startswith("debias Nodes=vm Default=YES")
    assert conf["SlurmctldHost"] == "vm(127.0.0.1)"


def test_a_node_rejects_what_slurm_would_misread(tmp_path):
    with pytest.raises(ValueError, match="absolute"):
        node(tmp_path, root=Path("relative/dir"))
    with pytest.raises(ValueError, match="partition"):
        node(tmp_path, partition="two words")
    with pytest.raises(ValueError, match="different ports"):
        node(tmp_path, ctld_port=7000, slurmd_port=7000)
    with pytest.raises(ValueError, match="host name"):
        node(tmp_path, name="-bad")


def test_node_memory_is_the_machines_less_a_reserve():
    meminfo = "MemTotal:       24683520 kB\nMemFree:        20000000 kB\n"
    assert node_real_memory_mb(meminfo) == 24683520 // 1024 - 512
    assert node_real_memory_mb(meminfo, reserved_mb=0) == 24105
    with pytest.raises(ValueError, match="MemTotal"):
        node_real_memory_mb("MemFree: 1 kB\n")
    with pytest.raises(ValueError, match="reserved"):
        node_real_memory_mb("MemTotal: 409600 kB\n")


def test_profile_partition_is_read_from_default_resources(tmp_path):
    assert profile_partition(PROFILE) == yaml.safe_load(PROFILE.read_text())["default-resources"]["slurm_partition"]
    listed = tmp_path / "listed.yaml"
    listed.write_text("default-resources: ['mem_mb=100', 'slurm_partition=\"short\"']\n")
    assert profile_partition(listed) == "short"
    bare = tmp_path / "bare.yaml"
    bare.write_text("executor: slurm\n")
    with pytest.raises(ValueError, match="slurm_partition"):
        profile_partition(bare)


def test_the_profile_overrides_real_cluster_rules_and_sets_every_default():
    profile = yaml.safe_load(PROFILE.read_text())
    assert profile["executor"] == "slurm"
    assert {"slurm_partition", "mem_mb", "runtime", "cpus_per_task"} <= set(profile["default-resources"])
    sources = "".join(p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))
    rules = set(re.findall(r"^rule (\w+):", sources, re.M))
    snakefile = (REPO / "workflow/Snakefile").read_text()
    local = set(re.findall(r"^\s+(\w+),$", snakefile.split("localrules:")[1].split("\n\n")[0], re.M))
    assert local <= rules | {"all"}, local - rules
    heavy = set(profile["set-resources"])
    assert {"metrics", "curves", "coverage_system"} <= heavy <= rules
    assert not heavy & local, "a rule run on the submitting machine gets no cluster resources"
    for resources in profile["set-resources"].values():
        for value in resources.values():  # the expressions Snakemake evaluates, first attempt
            assert eval(str(value), {"__builtins__": {}}, {"attempt": 1}) > 0  # noqa: S307


def test_results_are_compared_byte_for_byte_leaving_out_logs(tmp_path):
    for side, text in (("a", "1,2\n"), ("b", "1,3\n")):
        results = tmp_path / side / "results"
        (results / "tables").mkdir(parents=True)
        (results / "logs").mkdir()
        (results / "tables/same.csv").write_text("x\n")
        (results / "tables/other.csv").write_text(text)
        (results / "logs/job.log").write_text(f"took {side}\n")
    (tmp_path / "b/results/tables/extra.md").write_text("|x|\n")
    same, differ, unpaired = compare_results(tmp_path / "a/results", tmp_path / "b/results")
    assert (same, differ, unpaired) == (["tables/same.csv"], ["tables/other.csv"], ["tables/extra.md"])


def test_run_directories_point_at_the_repositorys_data(tmp_path):
    run = prepare_run_dir(REPO, REPO / ".test/config/config.yaml", tmp_path / "run")
    config = yaml.safe_load((run / "config/config.yaml").read_text())
    assert config["results_dir"] == "results"
    assert Path(config["data_dir"]) == (REPO / ".test/data").resolve()
    assert Path(config["nltk_data"]) == (REPO / "nltk_data").resolve()


def test_only_a_process_of_the_expected_name_is_stopped():
    proc = subprocess.Popen(["sleep", "30"])
    try:
        messages = []
        terminate(proc.pid, "slurmd", messages.append)  # a pid file pointing at someone else's process
        time.sleep(0.1)
        assert proc.poll() is None and pid_alive(proc.pid, "sleep")
        assert "no longer running" in messages[0]
        terminate(proc.pid, "sleep", messages.append)
        assert proc.wait(timeout=5) != 0 and messages[-1].startswith("stopped sleep")
    finally:
        proc.kill()
        proc.wait()
