# Figure 3: inverse data-efficiency contours over (rho, gamma), each task x prompt's point on them.


rule figure3:
    input:
        table2=f"{RESULTS}/tables/table2.csv",
        best_metrics=f"{RESULTS}/tables/best_metrics.csv",
    output:
        pdf=f"{RESULTS}/figures/figure3.pdf",
        png=report(
            f"{RESULTS}/figures/figure3.png",
            caption="../report/figure3.rst",
            category="2 Figures",
            subcategory="Figure 3",
        ),
    log:
        f"{RESULTS}/logs/figures/figure3.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=2,
    params:
        config=get_labels(),
    script:
        "../scripts/figure3.py"
