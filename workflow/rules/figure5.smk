# Figure 5: correlation of each metric with the mean human judgment, per system, for one task.


rule figure5:
    input:
        # The task's own joined tables: a system added to another task does not redraw it.
        joined=get_task_joined,
    output:
        pdf=f"{RESULTS}/figures/figure5_{{task}}.pdf",
        png=report(
            f"{RESULTS}/figures/figure5_{{task}}.png",
            caption="../report/figure5.rst",
            category="2 Figures",
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
        metrics=METRICS,
        config=get_task_labels,
    script:
        "../scripts/figure5.py"
