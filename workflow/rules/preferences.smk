# Pairwise preferences (config key preferences): each task's win rates and Bradley-Terry
# strengths by every estimator, how each judge agrees with people, the leaderboard with its
# rank-sets, and the figures of the win rates and of the leaderboard, one job per task (the tables take about a second on Chatbot Arena's 26,919 battles).


rule preferences:
    input:
        get_preference_tables,
    output:
        table=report(
            f"{RESULTS}/tables/preferences/{{preference}}/preferences.csv",
            caption="../report/preferences.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        agreement=report(
            f"{RESULTS}/tables/preferences/{{preference}}/judge_agreement.csv",
            caption="../report/judge_agreement.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        leaderboard=report(
            f"{RESULTS}/tables/preferences/{{preference}}/leaderboard.csv",
            caption="../report/preference_leaderboard.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        summary=f"{RESULTS}/tables/preferences/{{preference}}/summary.json",
        pdf=report(
            f"{RESULTS}/figures/preferences_{{preference}}.pdf",
            caption="../report/preferences_figure.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
        png=f"{RESULTS}/figures/preferences_{{preference}}.png",
        leaderboard_pdf=f"{RESULTS}/figures/preference_leaderboard_{{preference}}.pdf",
        leaderboard_png=report(
            f"{RESULTS}/figures/preference_leaderboard_{{preference}}.png",
            caption="../report/preference_leaderboard_figure.rst",
            category="Preferences",
            subcategory="{preference}",
        ),
    log:
        f"{RESULTS}/logs/preferences/{{preference}}.log",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_preferences_mem_mb,
        runtime=2,
    params:
        settings=get_preference_settings,
    script:
        "../scripts/preferences.py"
