# Bootstrap CI width against n for the four conditions, one job per system, then the
# data-efficiency grid over every task x prompt x system x metric.


rule curves:
    input:
        joined=f"{RESULTS}/joined/{{task}}/{{system}}.csv",
    output:
        curves=f"{RESULTS}/curves/{{task}}/{{system}}.csv",
        efficiency=f"{RESULTS}/efficiency/{{task}}/{{system}}.csv",
    log:
        f"{RESULTS}/logs/curves/{{task}}/{{system}}.log",
    priority: 1  # on the longest path of a run: scheduled first when cores are scarce
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_curves_mem_mb,
        runtime=get_curves_runtime,
    params:
        prompts=get_prompt_names,
        metrics=METRICS,
        bootstrap=config.get("bootstrap"),
    script:
        "../scripts/bootstrap_curves.py"


rule data_efficiency:
    input:
        get_efficiency_files(),
    output:
        csv=report(
            f"{RESULTS}/tables/data_efficiency.csv",
            caption="../report/data_efficiency.rst",
            category="4 Table files (CSV)",
        ),
        md=f"{RESULTS}/tables/data_efficiency.md",
    log:
        f"{RESULTS}/logs/data_efficiency.log",
    priority: 1
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=300,
        runtime=1,
    params:
        labels=get_labels(),
    script:
        "../scripts/data_efficiency.py"
