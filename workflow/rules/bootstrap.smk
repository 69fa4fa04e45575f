# Step 4: bootstrap CI width against n for the four conditions, one job per system, then the
# data-efficiency grid over every task x prompt x system x metric.


rule curves:
    input:
        system=lambda w: system_path(config, w.task, w.system),
        references=lambda w: references_path(config, w.task),
        scores=f"{R}/metrics/{{task}}/{{system}}.csv",
    output:
        curves=f"{R}/curves/{{task}}/{{system}}.csv",
        efficiency=f"{R}/efficiency/{{task}}/{{system}}.csv",
    log:
        f"{R}/logs/curves/{{task}}/{{system}}.log",
    priority: 1  # on the longest path of a run: scheduled first when cores are scarce
    params:
        prompts=lambda w: prompt_bounds(w.task),
        metrics=METRICS,
        bootstrap=config["bootstrap"],
    script:
        "../../scripts/bootstrap_curves.py"


rule data_efficiency:
    input:
        per_system(f"{R}/efficiency/{{task}}/{{system}}.csv"),
    output:
        csv=f"{R}/tables/data_efficiency.csv",
        md=f"{R}/tables/data_efficiency.md",
    log:
        f"{R}/logs/data_efficiency.log",
    params:
        tasks=config["tasks"],
        metrics=config["metrics"],
    script:
        "../../scripts/data_efficiency.py"
