# Each system's mean human score estimated from its judged outputs and the metrics on all of its
# outputs (mean, cv per metric, cv:combined, ppi++), and the check that the intervals hold their
# level: coverage by resampling the judged items, one job per system, then one table. The
# system-scores figure is drawn with the task's other figures (task_figures.smk).


rule system_estimates:
    input:
        joined=get_joined(),
    output:
        report(
            f"{RESULTS}/tables/system_estimates.csv",
            caption="../report/system_estimates.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/system_estimates.log",
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
    script:
        "../scripts/system_estimates.py"


rule coverage_system:
    input:
        joined=f"{RESULTS}/joined/{{task}}/{{system}}.csv",
    output:
        f"{RESULTS}/coverage/{{task}}/{{system}}.csv",
    log:
        f"{RESULTS}/logs/coverage/{{task}}/{{system}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_coverage_mem_mb,
        runtime=get_coverage_runtime,
    params:
        prompts=get_prompt_names,
        metrics=METRICS,
        estimates=settings(
            ESTIMATES, "sample_sizes", "repeats", "level", "seed", "ppi", "memory_mb"
        ),
    script:
        "../scripts/coverage_system.py"


rule coverage:
    input:
        get_coverage_files(),
    output:
        report(
            f"{RESULTS}/tables/coverage.csv",
            caption="../report/coverage.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/coverage.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    script:
        "../scripts/concat_tables.py"
