# Paired comparisons of every two systems of a task on the items both have judged (mean, cv on
# the metric difference, cv:combined) and their coverage check by resampling (one job per task);
# the leaderboard: every system's rank-set per task, prompt and estimator. Their figures (one
# forest plot per task, a panel per prompt, and the leaderboard's) are drawn with the task's
# other figures (task_figures.smk).


rule system_comparisons:
    input:
        joined=get_joined(),
    output:
        report(
            f"{RESULTS}/tables/system_comparisons.csv",
            caption="../report/system_comparisons.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/system_comparisons.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        prompts=task_prompts(),
        metrics=METRICS,
        compare=settings(COMPARE, "level", "sample_sizes", "de_n", "min_items"),
    script:
        "../scripts/system_comparisons.py"


rule leaderboard:
    input:
        joined=get_joined(),
    output:
        report(
            f"{RESULTS}/tables/leaderboard.csv",
            caption="../report/leaderboard.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/leaderboard.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        prompts=task_prompts(),
        metrics=METRICS,
        level=ESTIMATES["level"],
        seed=COMPARE["seed"],
        lower_is_better=lower_is_better_prompts(),
    script:
        "../scripts/leaderboard.py"


rule comparison_coverage_task:
    input:
        joined=get_task_joined,
    output:
        f"{RESULTS}/comparisons/{{task}}.csv",
    log:
        f"{RESULTS}/logs/comparisons/{{task}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_comparison_coverage_mem_mb,
        runtime=get_comparison_coverage_runtime,
    params:
        prompts=get_prompt_names,
        metrics=METRICS,
        compare=settings(
            COMPARE,
            "sample_sizes",
            "repeats",
            "level",
            "seed",
            "min_items",
            "pairs",
            "memory_mb",
        ),
        # Each pair's rows, kept so that a system added to the task resamples its new pairs only.
        cache_dir=f"{RESULTS}/cache/comparisons",
    script:
        "../scripts/comparison_coverage.py"


rule comparison_coverage:
    input:
        expand(f"{RESULTS}/comparisons/{{task}}.csv", task=TASKS),
    output:
        report(
            f"{RESULTS}/tables/comparison_coverage.csv",
            caption="../report/comparison_coverage.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/comparison_coverage.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    script:
        "../scripts/concat_tables.py"
