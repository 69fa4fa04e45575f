# Table 1: per panel, one task's judged responses by human judgment and metric, with an
# example per cell.


rule table1:
    input:
        get_table1_inputs,
    output:
        csv=report(
            f"{RESULTS}/tables/table1.csv",
            caption="../report/table1.rst",
            category="Tables",
        ),
        md=f"{RESULTS}/tables/table1.md",
    log:
        f"{RESULTS}/logs/table1.log",
    conda:
        ENV
    params:
        table1=config.get("table1"),
        config={key: config[key] for key in ("data_dir", "tasks", "metrics")},
    script:
        "../../scripts/table1.py"
