# A preference task's question (config key preferences.<name>.question): what its votes settle,
# with anytime-valid intervals (confidence sequences), what is not settled yet with the votes it
# needs, and a figure of the intervals narrowing as the votes arrived, one job per task that
# declares a question.


rule preference_status:
    input:
        get_preference_tables,
    output:
        table=report(
            f"{RESULTS}/tables/preferences/{{preference}}/status.csv",
            caption="../report/preference_status.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        summary=f"{RESULTS}/tables/preferences/{{preference}}/status.json",
        pdf=f"{RESULTS}/figures/status_{{preference}}.pdf",
        png=report(
            f"{RESULTS}/figures/status_{{preference}}.png",
            caption="../report/preference_status_figure.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
    log:
        f"{RESULTS}/logs/preference_status/{{preference}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_preferences_mem_mb,
        runtime=2,
    params:
        settings=get_preference_settings,
    script:
        "../scripts/status.py"
