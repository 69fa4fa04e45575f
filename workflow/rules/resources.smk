# What each job reserves (resources: mem_mb in MB, runtime in minutes), from the size of the
# data it gets: the outputs the input check counted, the configured metrics and repeats. The
# constants behind the sizes are measured (debias.pipeline.resources).
from debias.pipeline.resources import (
    bootstrap_mem_mb,
    bootstrap_runtime,
    coverage_mem_mb,
    coverage_runtime,
    metrics_mem_mb,
    metrics_runtime,
    paired_coverage_mem_mb,
    preferences_mem_mb,
    table_mem_mb,
)


def n_prompts(task):
    return len(config["tasks"][task]["prompts"])


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
    return outputs_of(wildcards.task, wildcards.system)


def get_curves_mem_mb(wildcards):
    bootstrap = config["bootstrap"]
    return bootstrap_mem_mb(
        judged_outputs(wildcards),
        len(METRICS),
        bootstrap["replicates"],
        bootstrap["grid_dense"],
        bootstrap["grid_points"],
    )


def get_curves_runtime(wildcards):
    return bootstrap_runtime(
        judged_outputs(wildcards),
        len(METRICS),
        config["bootstrap"]["replicates"],
        n_prompts(wildcards.task),
    )


def get_join_mem_mb(wildcards):
    """A joined table holds every output x prompt with its judgments and scores."""
    return table_mem_mb(judged_outputs(wildcards) * n_prompts(wildcards.task))


def all_joined_rows():
    """Rows of every joined table together (outputs x prompts over all judged systems)."""
    return sum(
        outputs_of(task, system) * n_prompts(task)
        for task in TASKS
        for system in judged_systems(config, task)
    )


def get_tables_mem_mb(wildcards):
    """Jobs that read every joined table at once (Table 2, correlations, estimates)."""
    return table_mem_mb(all_joined_rows())


def get_tables_runtime(wildcards):
    return max(1, all_joined_rows() // 200_000)


def get_coverage_mem_mb(wildcards):
    return coverage_mem_mb(
        judged_outputs(wildcards),
        len(METRICS),
        ESTIMATES["repeats"],
        ESTIMATES["memory_mb"],
    )


def get_coverage_runtime(wildcards):
    return coverage_runtime(
        judged_outputs(wildcards),
        len(METRICS),
        ESTIMATES["repeats"],
        n_prompts(wildcards.task),
        len(ESTIMATES["sample_sizes"]),
        ESTIMATES["ppi"],
    )


def largest_system(task):
    return max(outputs_of(task, s) for s in scored_systems(task))


def get_comparison_coverage_mem_mb(wildcards):
    """One task's pairs resampled one after the other: sized by its largest system."""
    return paired_coverage_mem_mb(
        largest_system(wildcards.task),
        len(METRICS),
        COMPARE["repeats"],
        COMPARE["memory_mb"],
    )


def get_comparison_coverage_runtime(wildcards):
    systems = len(scored_systems(wildcards.task))
    pairs = systems * (systems - 1) // 2
    if COMPARE["pairs"] != "all":  # adjacent in the ranking, plus the named pairs
        pairs = min(pairs, systems - 1 + len(COMPARE["pairs"]))
    return coverage_runtime(
        2 * largest_system(wildcards.task),
        len(METRICS),
        COMPARE["repeats"],
        n_prompts(wildcards.task) * max(pairs, 1),
        len(COMPARE["sample_sizes"]),
        False,
    )


def task_outputs(task):
    return sum(outputs_of(task, s) for s in scored_systems(task))


def get_figure1_mem_mb(wildcards):
    """Figure 1 scores its task's outputs in the job itself, sized as with rouge 0.2.1."""
    figure1 = config["figures"]["figure1"]
    return metrics_mem_mb(task_outputs(figure1["task"]), ["rouge021-L"])


def get_figure1_runtime(wildcards):
    figure1 = config["figures"]["figure1"]
    return metrics_runtime(task_outputs(figure1["task"]), ["rouge021-L"])


def get_table1_mem_mb(wildcards):
    """Table 1 scores each panel's outputs with its implementation in the job itself, one
    panel after another: the largest panel's memory."""
    return max(
        (
            metrics_mem_mb(task_outputs(p["task"]), [p["implementation"]])
            if p["implementation"]
            else metrics_mem_mb(0, [])
        )
        for p in config["table1"].values()
    )


def get_table1_runtime(wildcards):
    return sum(
        (
            metrics_runtime(task_outputs(p["task"]), [p["implementation"]])
            if p["implementation"]
            else 1
        )
        for p in config["table1"].values()
    )


def get_preferences_mem_mb(wildcards):
    return preferences_mem_mb(PREFERENCE_BATTLES[wildcards.preference])
