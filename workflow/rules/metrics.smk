# Automatic metrics of every output of a scored system against its reference: one job per
# system, or, for a system with more than `metric_chunk_outputs` outputs, one job per block of
# lines (metrics_part) and a job that joins the blocks' tables in line order (metrics).


rule metrics:
    input:
        system=get_system_file,
        references=get_references_file,
        parts=get_metric_parts,
        part_versions=get_metric_part_versions,
    output:
        scores=f"{RESULTS}/metrics/{{task}}/{{system}}.csv",
        versions=f"{RESULTS}/metrics/{{task}}/{{system}}.json",
    log:
        f"{RESULTS}/logs/metrics/{{task}}/{{system}}.log",
    priority: 1  # on the longest path of a run: scheduled first when cores are scarce
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_metrics_mem_mb,
        runtime=get_metrics_runtime,
    params:
        metrics=get_task_implementations,
        provided=get_task_provided,
        prompts=get_prompt_bounds,
        nltk_data=config.get("nltk_data"),
        language=get_language,
        cache_dir=f"{RESULTS}/cache/metrics",
        lines=lambda wildcards: (0, None),
    script:
        "../scripts/compute_metrics.py"


rule metrics_part:
    input:
        system=get_system_file,
        references=get_references_file,
    output:
        scores=temp(f"{RESULTS}/metric_parts/{{task}}/{{system}}/{{part}}.csv"),
        versions=temp(f"{RESULTS}/metric_parts/{{task}}/{{system}}/{{part}}.json"),
    log:
        f"{RESULTS}/logs/metrics/{{task}}/{{system}}.{{part}}.log",
    priority: 1
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_metrics_mem_mb,
        runtime=get_metrics_runtime,
    params:
        metrics=get_task_implementations,
        provided=get_task_provided,
        prompts=get_prompt_bounds,
        nltk_data=config.get("nltk_data"),
        language=get_language,
        cache_dir=f"{RESULTS}/cache/metrics",
        lines=get_metric_part_lines,
    script:
        "../scripts/compute_metrics.py"
