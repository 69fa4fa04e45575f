# Figure 6: bootstrap CI width against the number of human judgments, one configured panel each.


rule figure6:
    input:
        # The panel's own system only: adding another system does not redraw it.
        curves=lambda wildcards: get_figure6_system_file(wildcards, "curves"),
        efficiency=lambda wildcards: get_figure6_system_file(wildcards, "efficiency"),
        joined=lambda wildcards: get_figure6_system_file(wildcards, "joined"),
    output:
        pdf=f"{RESULTS}/figures/figure6{{panel}}.pdf",
        png=report(
            f"{RESULTS}/figures/figure6{{panel}}.png",
            caption="../report/figure6.rst",
            category="2 Figures",
            subcategory="Figure 6",
        ),
    log:
        f"{RESULTS}/logs/figures/figure6{{panel}}.log",
    priority: 2  # on the longest path of a run: scheduled first when cores are scarce
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=2,
    params:
        panel=get_figure6_panel,
        metrics=METRICS,
        config=get_figure6_config,
    script:
        "../scripts/figure6.py"
