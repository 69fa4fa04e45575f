# The figures of a task of scored outputs: each system's estimated mean human score per prompt
# (system_scores_<task>), and, for a task with at least two systems, every pair's difference
# (comparisons_<task>) and the leaderboard with its rank-sets (leaderboard_<task>). One job per
# task draws them all: a figure takes a fraction of a second to draw, its job's start-up (Python,
# pandas, matplotlib) most of a second.


rule task_figures:
    input:
        estimates=f"{RESULTS}/tables/system_estimates.csv",
        comparisons=f"{RESULTS}/tables/system_comparisons.csv",
        leaderboard=f"{RESULTS}/tables/leaderboard.csv",
    output:
        scores_pdf=f"{RESULTS}/figures/system_scores_{{task}}.pdf",
        scores_png=report(
            f"{RESULTS}/figures/system_scores_{{task}}.png",
            caption="../report/system_scores.rst",
            category="2 Figures",
            subcategory="System scores",
        ),
        comparisons_pdf=f"{RESULTS}/figures/comparisons_{{task}}.pdf",
        comparisons_png=report(
            f"{RESULTS}/figures/comparisons_{{task}}.png",
            caption="../report/comparisons.rst",
            category="2 Figures",
            subcategory="Comparisons",
        ),
        leaderboard_pdf=f"{RESULTS}/figures/leaderboard_{{task}}.pdf",
        leaderboard_png=report(
            f"{RESULTS}/figures/leaderboard_{{task}}.png",
            caption="../report/leaderboard_figure.rst",
            category="2 Figures",
            subcategory="Leaderboard",
        ),
    log:
        f"{RESULTS}/logs/figures/task_{{task}}.log",
    wildcard_constraints:
        task=one_of(ranked_tasks()),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=get_tables_mem_mb,
        runtime=2,
    params:
        config=get_task_labels,
        level=COMPARE["level"],
    script:
        "../scripts/task_figures.py"


# A task with a single system has nothing to compare or rank: its system-scores figure alone.
rule system_scores_figure:
    input:
        estimates=f"{RESULTS}/tables/system_estimates.csv",
    output:
        scores_pdf=f"{RESULTS}/figures/system_scores_{{task}}.pdf",
        scores_png=report(
            f"{RESULTS}/figures/system_scores_{{task}}.png",
            caption="../report/system_scores.rst",
            category="2 Figures",
            subcategory="System scores",
        ),
    log:
        f"{RESULTS}/logs/figures/system_scores_{{task}}.log",
    wildcard_constraints:
        task=one_of([task for task in TASKS if task not in ranked_tasks()]),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=2,
    params:
        config=get_task_labels,
    script:
        "../scripts/task_figures.py"
