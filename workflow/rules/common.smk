# The configuration checked and completed at start-up, every input checked, and the input
# functions of the rules. The settings each rule gets are in params.smk, job sizes in
# resources.smk, the final outputs in targets.smk.
import re
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from debias.config.labels import (
    compare_spec,
    computed_metrics,
    estimates_spec,
    plan_spec,
    provided_metrics,
    task_metrics,
)
from debias.config.tasks import (
    judged_systems,
    preference_files,
    references_path,
    system_path,
)
from debias.io.canonical import InputError
from debias.pipeline.metric_chunks import line_blocks
from debias.metrics import resolve_implementations
from debias.distribution.files import paper_values_file
from debias.config.settings import SCHEMA_PATH, schema_problem, yaml_problem
from debias.config.paths import rooted
from debias.pipeline.startup import (
    checked_inputs,
    checked_preferences,
    computes_nothing,
    implementation_problems,
    wordnet_problem,
)

# Aliases that would expand to millions of values, a key given twice in a mapping of a
# configuration file (YAML keeps the last of `1` and `1.0` without a word), or a value of the
# wrong type stops the run naming it; Snakemake's own
# validation then fills in the schema's defaults, which every later step reads from config.
problem = None
for given in workflow.overwrite_configfiles or workflow.configfiles:
    problem = problem or yaml_problem(given)
problem = problem or schema_problem(config, SCHEMA_PATH)
if problem:
    raise WorkflowError(f"invalid configuration: {problem}")
validate(config, schema=str(SCHEMA_PATH))

# A configuration that says so (as `debias import` writes them) reads its relative paths from
# its own folder: the workflow runs there, unless --directory names another folder. Used as a
# module of another workflow, it leaves that workflow's working directory where it is: the
# configuration's paths are joined to its folder instead (the last configuration file given).
if config["relative_to_config"]:
    given = [Path(f) for f in workflow.overwrite_configfiles or workflow.configfiles]
    if getattr(workflow.modifier, "is_module", False):
        if given:
            config = rooted(config, given[-1].resolve().parent)
    else:
        workflow.workdir(str(given[-1].resolve().parent))

# Every input is checked now, before any job runs: a bad line stops the whole workflow with
# its file and line number, and nothing in results/ is touched. A check that passed on the same
# files and settings is not parsed again (cached under .snakemake/, keyed by their sha256). A
# configuration may hold preference tasks alone (no tasks of scored outputs, no metrics).
RATED = bool(config.get("tasks"))
try:
    INPUTS = checked_inputs(config) if RATED else None
    # Preference task -> its number of battles (for the job's memory).
    PREFERENCE_BATTLES = checked_preferences(config)
except InputError as error:
    raise WorkflowError(f"invalid input: {error}") from None

# METEOR is never computed without WordNet, nor a metric whose program is missing: stop now
# rather than in the first metrics job. A command that computes nothing (--report, --lint, a dry
# run) runs without them.
PROVISIONING_CHECKED = RATED and not computes_nothing()
problem = wordnet_problem(config) if PROVISIONING_CHECKED else None
if problem:
    raise WorkflowError(problem)
problems = implementation_problems(config) if PROVISIONING_CHECKED else []
if problems:
    raise WorkflowError(
        "configured metrics cannot run on this machine:\n  " + "\n  ".join(problems)
    )

RESULTS = config["results_dir"]
if str(RESULTS).startswith("~") or any(
    ord(c) < 32 or ord(c) == 127 for c in str(RESULTS)
):
    raise WorkflowError(
        f"invalid configuration: results_dir {str(RESULTS)[:200]!r}: a folder's name without a control"
        " character and not starting with '~' (not expanded to a home folder here: give the full path)"
    )
for _folder in [
    Path(RESULTS),
    *Path(RESULTS).parents,
]:  # the folder, or one holding it, a file
    try:
        _taken = _folder.exists() and not _folder.is_dir()
    except OSError as error:  # a name too long for the file system, say
        raise WorkflowError(
            f"invalid configuration: results_dir {str(RESULTS)[:80]!r}...: {error.strerror}"
        ) from None
    if _taken:
        raise WorkflowError(
            f"invalid configuration: results_dir {str(RESULTS)[:200]!r}: {str(_folder)[:200]!r} exists and is"
            " not a folder (a file or a device): name a folder for the outputs"
        )
TASKS = list(config.get("tasks") or {})
METRICS = list(config.get("metrics") or {})
PREFERENCES = list(config.get("preferences") or {})
# Metric name -> the implementation that computes it (a params value: changing it reruns).
IMPLEMENTATIONS = resolve_implementations(config.get("metrics") or {})
# The estimates, compare and plan sections with their defaults (debias.config.labels), with the
# level and base seed they share.
ESTIMATES = estimates_spec(config)
COMPARE = compare_spec(config)
PLAN = plan_spec(config)
ENV = "../envs/debias.yaml"


wildcard_constraints:
    task="[^/]+",
    system="[^/]+",
    prompt="[^/]+",
    panel="[A-Za-z0-9]+",
    preference="[^/]+",


def if_rated(path):
    """``path`` when the configuration has tasks of scored outputs, else nothing."""
    return path if RATED else []


def scored_systems(task):
    """Configured systems of a task (judged references are not scored by metrics)."""
    return list(config["tasks"][task]["systems"])


def outputs_of(task, system):
    """Outputs (non-blank lines) of a judged system's file, as the input check counted them."""
    return INPUTS.outputs[task][system]


def ranked_tasks():
    """Tasks with at least two scored systems: what is compared and ranked (and drawn so)."""
    return [task for task in TASKS if len(scored_systems(task)) > 1]


def one_of(names):
    """A wildcard constraint matching exactly ``names`` (none at all for an empty list)."""
    return "|".join(re.escape(name) for name in names) or "(?!)"


def computing_systems(task):
    """Scored systems of a task that has metrics computed from texts."""
    return scored_systems(task) if computed_metrics(config, task) else []


def per_system(pattern, systems=scored_systems):
    """A results pattern with {task} and {system} expanded over every task's systems."""
    return [pattern.format(task=t, system=s) for t in TASKS for s in systems(t)]


def get_system_file(wildcards):
    return system_path(config, wildcards.task, wildcards.system)


def get_references_file(wildcards):
    """The task's references file; none for a task whose metrics are all provided."""
    return references_path(config, wildcards.task) or []


def get_metric_scores(wildcards):
    """The system's computed metric scores; a judged-reference system has none, and neither
    does any system of a task whose metrics are all provided with the system files."""
    if wildcards.system not in scored_systems(wildcards.task) or not computed_metrics(
        config, wildcards.task
    ):
        return []
    return f"{RESULTS}/metrics/{wildcards.task}/{wildcards.system}.csv"


def metric_blocks(task, system):
    """Blocks of lines a system's metrics are computed in (one, unless it is large)."""
    return line_blocks(outputs_of(task, system), config["metric_chunk_outputs"])


def get_metric_parts(wildcards, suffix="csv"):
    """The blocks' score tables of a system split into several metrics jobs, else nothing."""
    count = len(metric_blocks(wildcards.task, wildcards.system))
    if count == 1:
        return []
    part = f"{RESULTS}/metric_parts/{wildcards.task}/{wildcards.system}"
    return [f"{part}/{i}.{suffix}" for i in range(count)]


def get_metric_part_versions(wildcards):
    return get_metric_parts(wildcards, "json")


def get_joined(systems=scored_systems):
    return per_system(f"{RESULTS}/joined/{{task}}/{{system}}.csv", systems)


def get_judged_joined():
    """Joined tables of every judged system, references included."""
    return get_joined(lambda task: judged_systems(config, task))


def get_task_joined(wildcards):
    """Joined tables of one task's scored systems."""
    return [
        f"{RESULTS}/joined/{wildcards.task}/{system}.csv"
        for system in scored_systems(wildcards.task)
    ]


def get_coverage_files():
    return per_system(f"{RESULTS}/coverage/{{task}}/{{system}}.csv")


def get_efficiency_files():
    return per_system(f"{RESULTS}/efficiency/{{task}}/{{system}}.csv")


def get_table1_inputs(wildcards):
    """Every Table 1 panel's references and system files; a panel that counts only items
    with a judged reference also reads the reference system's file."""
    files = []
    for spec in config.get("table1", {}).values():
        task = spec["task"]
        systems = scored_systems(task)
        if spec["require_judged_reference"]:
            systems = systems + [config["tasks"][task]["reference_system"]]
        files.append(references_path(config, task))
        files += [system_path(config, task, s) for s in systems]
    return sorted(set(files))


def get_figure1_references(wildcards):
    return references_path(config, config["figures"]["figure1"]["task"])


def get_figure1_systems(wildcards):
    task = config["figures"]["figure1"]["task"]
    return [system_path(config, task, s) for s in scored_systems(task)]


def get_figure6_panel(wildcards):
    return config["figures"]["figure6"][wildcards.panel]


def get_figure6_system_file(wildcards, kind):
    """The panel system's per-system table (``curves``, ``efficiency`` or ``joined``)."""
    panel = get_figure6_panel(wildcards)
    return f"{RESULTS}/{kind}/{panel['task']}/{panel['system']}.csv"


def get_preference_tables(wildcards):
    """The tables a preference task reads: battles, pool and the judges' own tables."""
    return preference_files(config, wildcards.preference)
