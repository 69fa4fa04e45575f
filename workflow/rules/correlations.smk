# Instance-level correlation of every metric with the mean human judgment (Figure 5's numbers),
# and the best metric of every task x prompt x system, chosen once for every figure and the report.


rule correlations:
    input:
        joined=get_joined(),
    output:
        correlations=report(
            f"{RESULTS}/tables/correlations.csv",
            caption="../report/correlations.rst",
            category="4 Table files (CSV)",
        ),
        best_metrics=report(
            f"{RESULTS}/tables/best_metrics.csv",
            caption="../report/best_metrics.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/correlations.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        prompts=task_prompts(),
        metrics=METRICS,
    script:
        "../scripts/correlations.py"
