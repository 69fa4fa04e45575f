# A preference task's head-to-head matrix (every pair's win rate by every estimator, intervals
# simultaneous over the pairs shown) with its heatmap and each judge's agreement on non-tie
# verdicts (config key preferences.<name>.head_to_head, on unless false); and, when the task
# names a column (preferences.<name>.by), its estimates within each level of that column.


rule head_to_head:
    input:
        get_preference_tables,
    output:
        table=report(
            f"{RESULTS}/tables/preferences/{{preference}}/head_to_head.csv",
            caption="../report/head_to_head.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        non_tie=report(
            f"{RESULTS}/tables/preferences/{{preference}}/judge_agreement_non_tie.csv",
            caption="../report/judge_agreement_non_tie.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        pdf=f"{RESULTS}/figures/head_to_head_{{preference}}.pdf",
        png=report(
            f"{RESULTS}/figures/head_to_head_{{preference}}.png",
            caption="../report/head_to_head_figure.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
    log:
        f"{RESULTS}/logs/head_to_head/{{preference}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_preferences_mem_mb,
        runtime=2,
    params:
        settings=get_preference_settings,
    script:
        "../scripts/head_to_head.py"


rule breakdown:
    input:
        get_preference_tables,
    output:
        table=report(
            f"{RESULTS}/tables/preferences/{{preference}}/breakdown.csv",
            caption="../report/breakdown.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        pdf=f"{RESULTS}/figures/breakdown_{{preference}}.pdf",
        png=report(
            f"{RESULTS}/figures/breakdown_{{preference}}.png",
            caption="../report/breakdown_figure.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
    log:
        f"{RESULTS}/logs/breakdown/{{preference}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_preferences_mem_mb,
        runtime=2,
    params:
        settings=get_preference_settings,
    script:
        "../scripts/breakdown.py"
