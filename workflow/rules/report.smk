# The reproduction report: our numbers beside the paper's, with the figures embedded.


rule report:
    input:
        table2=f"{R}/tables/table2.csv",
        correlations=f"{R}/tables/correlations.csv",
        data_efficiency=f"{R}/tables/data_efficiency.csv",
        paper_values=Path(workflow.basedir) / "data/paper/reported_values.yaml",
        figures=figure_files(),
    output:
        report=f"{R}/report.md",
    log:
        f"{R}/logs/report.log",
    script:
        "../../scripts/write_report.py"
