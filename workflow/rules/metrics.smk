# Automatic metrics of every output of a scored system against its reference, one job per system.


rule metrics:
    input:
        system=get_system_file,
        references=get_references_file,
    output:
        scores=f"{RESULTS}/metrics/{{task}}/{{system}}.csv",
        versions=f"{RESULTS}/metrics/{{task}}/{{system}}.json",
    log:
        f"{RESULTS}/logs/metrics/{{task}}/{{system}}.log",
    priority: 1  # on the longest path of a run: scheduled first when cores are scarce
    conda:
        ENV
    params:
        metrics=IMPLEMENTATIONS,
        provided=PROVIDED_METRICS,
        prompts=get_prompt_bounds,
        nltk_data=config["nltk_data"],
        cache_dir=f"{RESULTS}/cache/metrics",
    script:
        "../../scripts/compute_metrics.py"
