# Table 1: judged responses of one task by human judgment and metric, with an example per cell.


rule table1:
    input:
        references=lambda wildcards: references_path(config, config["table1"]["task"]),
        systems=lambda wildcards: [
            system_path(config, config["table1"]["task"], s)
            for s in scored_systems(config["table1"]["task"])
        ],
    output:
        csv=report(
            f"{RESULTS}/tables/table1.csv",
            caption="../report/table1.rst",
            category="Tables",
        ),
        md=f"{RESULTS}/tables/table1.md",
    log:
        f"{RESULTS}/logs/table1.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wildcards: get_rouge021_mem_mb(config["table1"]["task"]),
        runtime=lambda wildcards: get_rouge021_runtime(config["table1"]["task"]),
    params:
        table1=config.get("table1"),
        config=lambda wildcards: get_one_task_config(
            config["table1"]["task"], ("data_dir", "metrics")
        ),
    script:
        "../../scripts/table1.py"
