# The report: the user's own tasks (estimates, comparisons, data efficiency, plans) and, for the
# paper's tasks, each number the paper states beside ours, with the figures it links.


rule report:
    input:
        table2=f"{RESULTS}/tables/table2.csv",
        by_system=f"{RESULTS}/tables/variance_by_system.csv",
        correlations=f"{RESULTS}/tables/correlations.csv",
        best_metrics=f"{RESULTS}/tables/best_metrics.csv",
        data_efficiency=f"{RESULTS}/tables/data_efficiency.csv",
        system_estimates=f"{RESULTS}/tables/system_estimates.csv",
        coverage=lambda wildcards: (
            f"{RESULTS}/tables/coverage.csv" if ESTIMATES["coverage"] else []
        ),
        comparisons=f"{RESULTS}/tables/system_comparisons.csv",
        comparison_coverage=lambda wildcards: (
            f"{RESULTS}/tables/comparison_coverage.csv" if COMPARE["coverage"] else []
        ),
        plan=f"{RESULTS}/tables/plan.csv",
        plan_check=lambda wildcards: (
            f"{RESULTS}/tables/plan_check.csv" if PLAN["check"] else []
        ),
        figures=get_figures(("png",)),
        figure1_figures=get_figure1_figures(("png",)),
        # Embedded in the sections about the user's own tasks.
        task_figures=[
            path
            for path in get_system_scores_figures()
            + get_comparison_figures()
            + get_leaderboard_figures()
            if path.endswith(".png")
        ],
        table1=lambda wildcards: (
            f"{RESULTS}/tables/table1.csv" if config.get("table1") else []
        ),
        figure1=lambda wildcards: (
            f"{RESULTS}/tables/figure1.csv" if config["figures"].get("figure1") else []
        ),
        paper_values=Path(workflow.basedir).parent / "data/paper/reported_values.yaml",
    output:
        report=f"{RESULTS}/report.md",
    log:
        f"{RESULTS}/logs/report.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=2,
    params:
        config=get_report_config(),
    script:
        "../scripts/report.py"
