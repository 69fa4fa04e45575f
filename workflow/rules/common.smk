# Configuration and input checks at start-up, and the input functions every rule uses.
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from debias.config import (
    compare_spec,
    computed_metrics,
    estimates_spec,
    figure_names,
    plan_spec,
    provided_metrics,
)
from debias.inputs import judged_systems, references_path, system_path, validate_inputs
from debias.io import InputError
from debias.resources import (
    bootstrap_mem_mb,
    bootstrap_runtime,
    coverage_mem_mb,
    coverage_runtime,
    metrics_mem_mb,
    metrics_runtime,
    paired_coverage_mem_mb,
    system_outputs,
    table_mem_mb,
)
from debias.metric_parts import DEFAULT_CHUNK_OUTPUTS, line_blocks
from debias.metrics import resolve_implementations

validate(config, schema="../schemas/config.schema.yaml")

# Every input is read and checked now, before any job runs: a bad line stops the whole
# workflow with its file and line number, and nothing in results/ is touched.
try:
    validate_inputs(config)
except InputError as error:
    raise WorkflowError(f"invalid input: {error}") from None


def check_wordnet():
    """METEOR is never computed without WordNet: stop now rather than in the first metrics job."""
    if (
        "nltk-meteor" not in resolve_implementations(config["metrics"]).values()
        or (Path(config["nltk_data"]) / "corpora/wordnet").is_dir()
    ):
        return
    from debias.wordnet import PROVISION_HINT, WordNetUnavailableError, use_wordnet

    try:
        use_wordnet(config["nltk_data"])  # WordNet elsewhere on NLTK's search path
    except WordNetUnavailableError:
        raise WorkflowError(
            f"WordNet 3.0, which METEOR needs, is not in {config['nltk_data']}/corpora/wordnet "
            f"(config key nltk_data) nor anywhere else NLTK looks. {PROVISION_HINT}"
        ) from None


check_wordnet()


def check_metric_implementations():
    """Every configured metric can run here: stop now, naming what to install, if one cannot."""
    from debias.metrics import implementation_unavailable

    problems = []
    for metric, implementation in resolve_implementations(config["metrics"]).items():
        reason = implementation_unavailable(implementation)
        if reason:
            problems.append(f"metric '{metric}' ({implementation}): {reason}")
    figure1 = (config.get("figures") or {}).get("figure1")
    if figure1 and implementation_unavailable(figure1["implementation"]):
        problems.append(
            f"figure1 ({figure1['implementation']}): {implementation_unavailable(figure1['implementation'])}"
        )
    for panel, spec in (config.get("table1") or {}).items():
        reason = spec.get("implementation") and implementation_unavailable(
            spec["implementation"]
        )
        if reason:
            problems.append(f"table1.{panel} ({spec['implementation']}): {reason}")
    if problems:
        raise WorkflowError(
            "configured metrics cannot run on this machine:\n  " + "\n  ".join(problems)
        )


check_metric_implementations()

RESULTS = config["results_dir"]
TASKS = list(config["tasks"])
METRICS = list(config["metrics"])
COMPUTED_METRICS = computed_metrics(config)
PROVIDED_METRICS = provided_metrics(config)
# Metric name -> the implementation that computes it (a params value: changing it reruns).
IMPLEMENTATIONS = resolve_implementations(config["metrics"])
ENV = "../envs/debias.yaml"


wildcard_constraints:
    task="[^/]+",
    system="[^/]+",
    prompt="[^/]+",
    panel="[A-Za-z0-9]+",


def scored_systems(task):
    """Configured systems of a task (judged references are not scored by metrics)."""
    return list(config["tasks"][task]["systems"])


def per_system(pattern, systems=scored_systems):
    """A results pattern with {task} and {system} expanded over every task's systems."""
    return [pattern.format(task=t, system=s) for t in TASKS for s in systems(t)]


def get_system_file(wildcards):
    return system_path(config, wildcards.task, wildcards.system)


def get_references_file(wildcards):
    return references_path(config, wildcards.task)


def get_metric_scores(wildcards):
    """The system's computed metric scores; a judged-reference system has none, and neither
    does any system when every metric is provided with the system files."""
    if wildcards.system not in scored_systems(wildcards.task) or not COMPUTED_METRICS:
        return []
    return f"{RESULTS}/metrics/{wildcards.task}/{wildcards.system}.csv"


def metric_blocks(task, system):
    """Blocks of lines a system's metrics are computed in (one, unless it is large)."""
    n_outputs = system_outputs(system_path(config, task, system))
    return line_blocks(
        n_outputs, config.get("metric_chunk_outputs", DEFAULT_CHUNK_OUTPUTS)
    )


def get_metric_parts(wildcards, suffix="csv"):
    """The blocks' score tables of a system split into several metrics jobs, else nothing."""
    count = len(metric_blocks(wildcards.task, wildcards.system))
    if count == 1:
        return []
    part = f"{RESULTS}/metric_parts/{wildcards.task}/{wildcards.system}"
    return [f"{part}/{i}.{suffix}" for i in range(count)]


def get_metric_part_versions(wildcards):
    return get_metric_parts(wildcards, "json")


def get_metric_part_lines(wildcards):
    """(start, stop) output numbers of one block of a system's lines."""
    return metric_blocks(wildcards.task, wildcards.system)[int(wildcards.part)]


def _metric_job_outputs(wildcards):
    """Outputs one metrics job scores: its block, the whole system, or none (a join of blocks)."""
    blocks = metric_blocks(wildcards.task, wildcards.system)
    if hasattr(wildcards, "part"):
        start, stop = blocks[int(wildcards.part)]
        return stop - start
    return 0 if len(blocks) > 1 else blocks[0][1]


def get_metrics_mem_mb(wildcards):
    return metrics_mem_mb(_metric_job_outputs(wildcards), IMPLEMENTATIONS.values())


def get_metrics_runtime(wildcards):
    return metrics_runtime(_metric_job_outputs(wildcards), IMPLEMENTATIONS.values())


def judged_outputs(wildcards):
    """Outputs of the system (an upper bound on its judged items), for sizing its jobs."""
    return system_outputs(system_path(config, wildcards.task, wildcards.system))


def get_curves_mem_mb(wildcards):
    bootstrap = config["bootstrap"]
    return bootstrap_mem_mb(
        judged_outputs(wildcards),
        len(METRICS),
        bootstrap["replicates"],
        bootstrap.get("grid_dense", 1000),
        bootstrap.get("grid_points", 500),
    )


def get_curves_runtime(wildcards):
    prompts = len(config["tasks"][wildcards.task]["prompts"])
    return bootstrap_runtime(
        judged_outputs(wildcards),
        len(METRICS),
        config["bootstrap"]["replicates"],
        prompts,
    )


def get_join_mem_mb(wildcards):
    """A joined table holds every output x prompt with its judgments and scores."""
    prompts = len(config["tasks"][wildcards.task]["prompts"])
    return table_mem_mb(judged_outputs(wildcards) * prompts)


def all_joined_rows():
    """Rows of every joined table together (outputs x prompts over all judged systems)."""
    return sum(
        system_outputs(system_path(config, task, system))
        * len(config["tasks"][task]["prompts"])
        for task in TASKS
        for system in judged_systems(config, task)
    )


def get_tables_mem_mb(wildcards):
    """Jobs that read every joined table at once (Table 2, correlations, estimates)."""
    return table_mem_mb(all_joined_rows())


def get_tables_runtime(wildcards):
    return max(1, all_joined_rows() // 200_000)


def get_coverage_mem_mb(wildcards):
    spec = get_estimates_config()
    return coverage_mem_mb(judged_outputs(wildcards), len(METRICS), spec["repeats"])


def get_coverage_runtime(wildcards):
    spec = get_estimates_config()
    return coverage_runtime(
        judged_outputs(wildcards),
        len(METRICS),
        spec["repeats"],
        len(config["tasks"][wildcards.task]["prompts"]),
        len(spec["sample_sizes"]),
        spec["ppi"],
    )


def get_comparison_coverage_mem_mb(wildcards):
    """One task's pairs resampled one after the other: sized by its largest system."""
    largest = max(
        system_outputs(system_path(config, wildcards.task, s))
        for s in scored_systems(wildcards.task)
    )
    spec = get_compare_config()
    return paired_coverage_mem_mb(largest, len(METRICS), spec["repeats"])


def get_comparison_coverage_runtime(wildcards):
    spec = get_compare_config()
    systems = scored_systems(wildcards.task)
    largest = max(
        system_outputs(system_path(config, wildcards.task, s)) for s in systems
    )
    pairs = len(systems) * (len(systems) - 1) // 2
    return coverage_runtime(
        2 * largest,
        len(METRICS),
        spec["repeats"],
        len(config["tasks"][wildcards.task]["prompts"]) * max(pairs, 1),
        len(spec["sample_sizes"]),
        False,
    )


def task_outputs(task):
    return sum(
        system_outputs(system_path(config, task, s)) for s in scored_systems(task)
    )


def get_rouge021_mem_mb(task):
    """Table 1 and Figure 1 score a task's outputs with rouge 0.2.1 in the job itself."""
    return metrics_mem_mb(task_outputs(task), ["rouge021-L"])


def get_rouge021_runtime(task):
    return metrics_runtime(task_outputs(task), ["rouge021-L"])


def get_table1_panels():
    return list((config.get("table1") or {}).values())


def get_table1_mem_mb(wildcards):
    """Table 1 scores each panel's outputs with its implementation in the job itself, one
    panel after another: the largest panel's memory."""
    return max(
        (
            metrics_mem_mb(task_outputs(p["task"]), [p["implementation"]])
            if p.get("implementation")
            else metrics_mem_mb(0, [])
        )
        for p in get_table1_panels()
    )


def get_table1_runtime(wildcards):
    return sum(
        (
            metrics_runtime(task_outputs(p["task"]), [p["implementation"]])
            if p.get("implementation")
            else 1
        )
        for p in get_table1_panels()
    )


def get_table1_config():
    """Config for Table 1's params: its panels' tasks only (an added task elsewhere does not
    rerun it)."""
    shown = {key: config[key] for key in ("data_dir", "metrics")}
    shown["tasks"] = {
        p["task"]: config["tasks"][p["task"]] for p in get_table1_panels()
    }
    return shown


def get_prompt_bounds(wildcards):
    """Prompts of a task with their ranges only: a label edit must not rerun per-system jobs."""
    prompts = config["tasks"][wildcards.task]["prompts"]
    return {
        name: {"min": spec["min"], "max": spec["max"], "null_as": spec.get("null_as")}
        for name, spec in prompts.items()
    }


def get_joined(systems=scored_systems):
    return per_system(f"{RESULTS}/joined/{{task}}/{{system}}.csv", systems)


def get_judged_joined():
    """Joined tables of every judged system, references included."""
    return get_joined(lambda task: judged_systems(config, task))


def get_table1_inputs(wildcards):
    """Every Table 1 panel's references and system files; a panel that counts only items
    with a judged reference also reads the reference system's file."""
    files = []
    for spec in (config.get("table1") or {}).values():
        task = spec["task"]
        systems = scored_systems(task)
        if spec.get("require_judged_reference"):
            systems = systems + [config["tasks"][task]["reference_system"]]
        files.append(references_path(config, task))
        files += [system_path(config, task, s) for s in systems]
    return sorted(set(files))


def get_estimates_config():
    """The ``estimates`` section with its defaults, and the base seed of every random draw."""
    return estimates_spec(config)


def get_compare_config():
    """The ``compare`` section with its defaults, level, seed and min_judged_items."""
    return compare_spec(config)


def get_plan_config():
    """The ``plan`` section with its defaults, the estimates' level and the seed."""
    return plan_spec(config)


def get_task_joined(wildcards):
    """Joined tables of one task's scored systems."""
    return [
        f"{RESULTS}/joined/{wildcards.task}/{system}.csv"
        for system in scored_systems(wildcards.task)
    ]


def get_comparison_figures(suffixes=("pdf", "png")):
    return [
        f"{RESULTS}/figures/comparisons_{task}.{ext}"
        for task in TASKS
        if len(scored_systems(task)) > 1
        for ext in suffixes
    ]


def get_coverage_files():
    return per_system(f"{RESULTS}/coverage/{{task}}/{{system}}.csv")


def get_system_scores_figures():
    return [
        f"{RESULTS}/figures/system_scores_{task}.{ext}"
        for task in TASKS
        for ext in ("pdf", "png")
    ]


def get_efficiency_files():
    return per_system(f"{RESULTS}/efficiency/{{task}}/{{system}}.csv")


def get_figure6_panel(wildcards):
    return config["figures"]["figure6"][wildcards.panel]


def get_figure6_curves(wildcards):
    panel = get_figure6_panel(wildcards)
    return f"{RESULTS}/curves/{panel['task']}/{panel['system']}.csv"


def get_figure6_system_file(wildcards, kind):
    """The panel system's per-system table (``efficiency`` or ``joined``)."""
    panel = get_figure6_panel(wildcards)
    return f"{RESULTS}/{kind}/{panel['task']}/{panel['system']}.csv"


def get_figure5_prompt(wildcards):
    return config["figures"]["figure5"][wildcards.task]


def get_plot_config():
    """The parts of the config that figures and the report show (labels, panels, levels)."""
    shown = {key: config[key] for key in ("tasks", "metrics", "figures", "bootstrap")}
    shown["estimates"] = get_estimates_config()
    return shown


def get_task_plot_config(task, system=None):
    """:func:`get_plot_config` with only ``task`` (and only ``system`` of it, when given): a
    figure of one task or system is not redrawn when a system is added elsewhere."""
    shown = get_plot_config()
    spec = dict(config["tasks"][task])
    if system is not None:
        spec["systems"] = {system: spec["systems"][system]}
    shown["tasks"] = {task: spec}
    return shown


def get_figure6_config(wildcards):
    panel = get_figure6_panel(wildcards)
    return get_task_plot_config(panel["task"], panel["system"])


def get_one_task_config(task, keys):
    """Config ``keys`` with ``tasks`` reduced to ``task`` (Table 1 and Figure 1's params)."""
    shown = {key: config[key] for key in keys}
    shown["tasks"] = {task: config["tasks"][task]}
    return shown


def get_figures(suffixes=("pdf", "png")):
    return [
        f"{RESULTS}/figures/{name}.{ext}"
        for name in figure_names(config)
        for ext in suffixes
    ]


def get_figure1_figures(suffixes=("pdf", "png")):
    """Figure 1's two panels when the config asks for them (figures.figure1), else nothing."""
    if not (config.get("figures") or {}).get("figure1"):
        return []
    return [f"{RESULTS}/figures/figure1{p}.{e}" for p in "ab" for e in suffixes]


def get_final_outputs():
    tables = [
        "table2.csv",
        "table2.md",
        "table2.tex",
        "variance_by_system.csv",
        "correlations.csv",
    ]
    tables += ["best_metrics.csv", "data_efficiency.csv", "data_efficiency.md"]
    tables += ["system_estimates.csv"]
    if get_estimates_config()["coverage"]:
        tables.append("coverage.csv")
    tables.append("system_comparisons.csv")
    if get_compare_config()["coverage"]:
        tables.append("comparison_coverage.csv")
    tables.append("plan.csv")
    if get_plan_config()["check"]:
        tables.append("plan_check.csv")
    if config.get("table1"):
        tables += ["table1.csv", "table1.md"]
    if (config.get("figures") or {}).get("figure1"):
        tables.append("figure1.csv")
    scores = (
        per_system(f"{RESULTS}/metrics/{{task}}/{{system}}.csv")
        if COMPUTED_METRICS
        else []
    )
    return (
        scores
        + [f"{RESULTS}/tables/{name}" for name in tables]
        + get_figures()
        + get_system_scores_figures()
        + get_comparison_figures()
        + get_figure1_figures()
        + [f"{RESULTS}/report.md"]
    )
