# Step 1: BLEU, ROUGE and METEOR for every output of every scored system, one job per system.


rule metrics:
    input:
        system=lambda w: system_path(config, w.task, w.system),
        references=lambda w: references_path(config, w.task),
    output:
        scores=f"{R}/metrics/{{task}}/{{system}}.csv",
        versions=f"{R}/metrics/{{task}}/{{system}}.json",
    log:
        f"{R}/logs/metrics/{{task}}/{{system}}.log",
    priority: 1  # on the longest path of a run: scheduled first when cores are scarce
    params:
        metrics=METRICS,
        prompts=lambda w: prompt_bounds(w.task),
        nltk_data=config["nltk_data"],
    script:
        "../../scripts/compute_metrics.py"
