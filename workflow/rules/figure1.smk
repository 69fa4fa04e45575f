# Figure 1: a metric's agreement with humans across systems (a) and on single outputs (b).


rule figure1:
    input:
        references=get_figure1_references,
        systems=get_figure1_systems,
    output:
        csv=report(
            f"{RESULTS}/tables/figure1.csv",
            caption="../report/figure1_table.rst",
            category="4 Table files (CSV)",
        ),
        a_pdf=f"{RESULTS}/figures/figure1a.pdf",
        a_png=report(
            f"{RESULTS}/figures/figure1a.png",
            caption="../report/figure1.rst",
            category="2 Figures",
            subcategory="Figure 1",
        ),
        b_pdf=f"{RESULTS}/figures/figure1b.pdf",
        b_png=report(
            f"{RESULTS}/figures/figure1b.png",
            caption="../report/figure1.rst",
            category="2 Figures",
            subcategory="Figure 1",
        ),
    log:
        f"{RESULTS}/logs/figures/figure1.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_figure1_mem_mb,
        runtime=get_figure1_runtime,
    params:
        figure1=config.get("figures", {}).get("figure1"),
        config=get_figure1_config,
    script:
        "../scripts/figure1.py"
