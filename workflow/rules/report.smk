# The reproduction report: our numbers beside the paper's, with the figures embedded.
# `rule all` asks for the figures too, so a finished run has every file the report links.


rule report:
    input:
        table2=f"{R}/tables/table2.csv",
        correlations=f"{R}/tables/correlations.csv",
        data_efficiency=f"{R}/tables/data_efficiency.csv",
        paper_values=Path(workflow.basedir) / "data/paper/reported_values.yaml",
    output:
        report=f"{R}/report.md",
    log:
        f"{R}/logs/report.log",
    params:
        # the report links the figures by name; it does not wait for them to be drawn
        figures_dir=f"{R}/figures",
        report_config={
            k: config[k] for k in ("tasks", "metrics", "figures", "bootstrap")
        },
    script:
        "../../scripts/write_report.py"
