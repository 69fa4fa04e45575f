# Figure 1: a metric's agreement with humans across systems (a) and on single outputs (b).


rule figure1:
    input:
        references=lambda wildcards: references_path(
            config, config["figures"]["figure1"]["task"]
        ),
        systems=lambda wildcards: [
            system_path(config, config["figures"]["figure1"]["task"], s)
            for s in scored_systems(config["figures"]["figure1"]["task"])
        ],
    output:
        csv=f"{RESULTS}/tables/figure1.csv",
        a_pdf=f"{RESULTS}/figures/figure1a.pdf",
        a_png=report(
            f"{RESULTS}/figures/figure1a.png",
            caption="../report/figure1.rst",
            category="Figures",
            subcategory="Figure 1",
        ),
        b_pdf=f"{RESULTS}/figures/figure1b.pdf",
        b_png=report(
            f"{RESULTS}/figures/figure1b.png",
            caption="../report/figure1.rst",
            category="Figures",
            subcategory="Figure 1",
        ),
    log:
        f"{RESULTS}/logs/figures/figure1.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wildcards: get_rouge021_mem_mb(
            config["figures"]["figure1"]["task"]
        ),
        runtime=lambda wildcards: get_rouge021_runtime(
            config["figures"]["figure1"]["task"]
        ),
    params:
        figure1=config.get("figures", {}).get("figure1"),
        config=lambda wildcards: get_one_task_config(
            config["figures"]["figure1"]["task"],
            ("data_dir", "metrics", "bootstrap"),
        ),
    script:
        "../scripts/figure1.py"
