# Table 2: annotator and human-metric variance of every judged output, per task and prompt.


rule table2:
    input:
        joined=get_judged_joined(),
    output:
        csv=report(
            f"{RESULTS}/tables/table2.csv",
            caption="../report/table2.rst",
            category="4 Table files (CSV)",
        ),
        md=f"{RESULTS}/tables/table2.md",
        tex=f"{RESULTS}/tables/table2.tex",
        by_system=report(
            f"{RESULTS}/tables/variance_by_system.csv",
            caption="../report/variance_by_system.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/table2.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        tasks=get_table2_tasks(),
    script:
        "../scripts/table2.py"
