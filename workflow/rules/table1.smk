# Table 1: per panel, one task's judged responses by human judgment and metric, with an
# example per cell.


rule table1:
    input:
        get_table1_inputs,
    output:
        csv=report(
            f"{RESULTS}/tables/table1.csv",
            caption="../report/table1.rst",
            category="4 Table files (CSV)",
        ),
        md=f"{RESULTS}/tables/table1.md",
    log:
        f"{RESULTS}/logs/table1.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_table1_mem_mb,
        runtime=get_table1_runtime,
    params:
        table1=config.get("table1"),
        config=get_table1_config(),
    script:
        "../scripts/table1.py"
