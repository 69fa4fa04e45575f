# How many items to have judged, and by how many annotators each: the least-cost design per
# system, prompt and target width, and the check of plans made from random 50-item pilots (with
# fresh raters drawn from a model fitted to the judged items, and by resampling them).


rule plan:
    input:
        joined=get_joined(),
    output:
        report(
            f"{RESULTS}/tables/plan.csv",
            caption="../report/plan.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/plan.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        prompts=task_prompts(),
        metrics=METRICS,
        plan=settings(
            PLAN,
            "target_widths",
            "auto_n",
            "level",
            "seed",
            "assurance",
            "cost_per_judgment",
            "cost_per_item",
            "max_judgments_per_item",
            "annotator_variance",
            "scales",
        ),
    script:
        "../scripts/plan.py"


rule plan_check:
    input:
        joined=get_joined(),
    output:
        report(
            f"{RESULTS}/tables/plan_check.csv",
            caption="../report/plan_check.rst",
            category="4 Table files (CSV)",
        ),
    log:
        f"{RESULTS}/logs/plan_check.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=get_tables_runtime,
    params:
        prompts=task_prompts(),
        metrics=METRICS,
        plan=settings(
            PLAN,
            "check",
            "level",
            "seed",
            "assurance",
            "cost_per_judgment",
            "cost_per_item",
            "max_judgments_per_item",
            "annotator_variance",
            "scales",
        ),
    script:
        "../scripts/plan_check.py"
