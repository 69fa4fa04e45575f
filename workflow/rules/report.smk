# The report: the user's own tasks (estimates, comparisons, data efficiency, plans), each
# preference task and, for the paper's tasks, each number the paper states beside ours, with the
# figures it links.


rule report:
    input:
        table2=if_rated(f"{RESULTS}/tables/table2.csv"),
        by_system=if_rated(f"{RESULTS}/tables/variance_by_system.csv"),
        correlations=if_rated(f"{RESULTS}/tables/correlations.csv"),
        best_metrics=if_rated(f"{RESULTS}/tables/best_metrics.csv"),
        data_efficiency=if_rated(f"{RESULTS}/tables/data_efficiency.csv"),
        system_estimates=if_rated(f"{RESULTS}/tables/system_estimates.csv"),
        coverage=lambda wildcards: (
            f"{RESULTS}/tables/coverage.csv" if RATED and ESTIMATES["coverage"] else []
        ),
        comparisons=if_rated(f"{RESULTS}/tables/system_comparisons.csv"),
        comparison_coverage=lambda wildcards: (
            f"{RESULTS}/tables/comparison_coverage.csv"
            if RATED and COMPARE["coverage"]
            else []
        ),
        plan=if_rated(f"{RESULTS}/tables/plan.csv"),
        # A task whose items have clusters: how many, and their design effects.
        leaderboard=if_rated(f"{RESULTS}/tables/leaderboard.csv"),
        plan_check=lambda wildcards: (
            f"{RESULTS}/tables/plan_check.csv" if RATED and PLAN["check"] else []
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
            f"{RESULTS}/tables/figure1.csv"
            if RATED and config["figures"].get("figure1")
            else []
        ),
        # Each preference task's tables, summary and figure (its own section).
        preferences=get_preference_outputs(("png",)),
        # The checkout's data/paper/, or the copy inside the installed package.
        paper_values=paper_values_file(workflow.basedir),
        tables=[table for table in get_final_tables() if table.endswith(".csv")],
    output:
        report=f"{RESULTS}/report.md",
        # The same report as one page (figures embedded, the tables it links shown at its end),
        # and each table as a page of its own: what Snakemake's HTML report shows.
        html=report(
            f"{RESULTS}/report.html",
            caption="../report/report.rst",
            category="1 Report",
        ),
        table_pages=[
            report(
                f"{RESULTS}/html/{Path(table).stem}.html",
                caption=f"../report/{table_caption(table)}.rst",
                category="3 Tables",
            )
            for table in get_final_tables()
            if table.endswith(".csv")
        ],
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
