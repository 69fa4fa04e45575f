# One table per judged system: every output x prompt with its judgments and metric scores.
# Every later step reads these instead of the raw system files.


rule join:
    input:
        system=get_system_file,
        references=get_references_file,
        scores=get_metric_scores,
    output:
        f"{RESULTS}/joined/{{task}}/{{system}}.csv",
    log:
        f"{RESULTS}/logs/join/{{task}}/{{system}}.log",
    priority: 1
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_join_mem_mb,
        runtime=1,
    params:
        prompts=get_prompt_bounds,
        metrics=get_task_metrics,
        provided=get_task_provided,
        scored=lambda wildcards: wildcards.system in scored_systems(wildcards.task),
        cluster=get_task_cluster,
    script:
        "../scripts/join.py"
