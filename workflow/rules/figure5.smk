# Figure 5: correlation of each metric with the mean human judgment, per system, for one task.


rule figure5:
    input:
        correlations=f"{RESULTS}/tables/correlations.csv",
    output:
        pdf=f"{RESULTS}/figures/figure5_{{task}}.pdf",
        png=report(
            f"{RESULTS}/figures/figure5_{{task}}.png",
            caption="../report/figure5.rst",
            category="Figures",
            subcategory="Figure 5",
        ),
    log:
        f"{RESULTS}/logs/figures/figure5_{{task}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=2,
    params:
        prompt=get_figure5_prompt,
        config=get_plot_config(),
    script:
        "../../scripts/figure5.py"
