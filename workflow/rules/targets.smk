# The final outputs the configuration asks for: what `rule all` requests.
from debias.config.labels import figure_names

#: The files of one preference task's folder under tables/preferences/.
PREFERENCE_TABLES = (
    "preferences.csv",
    "judge_agreement.csv",
    "leaderboard.csv",
    "summary.json",
)


def get_figures(suffixes=("pdf", "png")):
    """Figures 3, 5 and 6 as configured (debias.config.labels.figure_names)."""
    if not RATED:
        return []
    return [
        f"{RESULTS}/figures/{name}.{ext}"
        for name in figure_names(config)
        for ext in suffixes
    ]


def get_figure1_figures(suffixes=("pdf", "png")):
    """Figure 1's two panels when the config asks for them (figures.figure1), else nothing."""
    if not RATED or not config["figures"].get("figure1"):
        return []
    return [f"{RESULTS}/figures/figure1{p}.{e}" for p in "ab" for e in suffixes]


def get_system_scores_figures():
    return [
        f"{RESULTS}/figures/system_scores_{task}.{ext}"
        for task in TASKS
        for ext in ("pdf", "png")
    ]


def get_comparison_figures():
    """One forest plot per task with at least two systems to compare."""
    return [
        f"{RESULTS}/figures/comparisons_{task}.{ext}"
        for task in ranked_tasks()
        for ext in ("pdf", "png")
    ]


def get_preference_outputs(suffixes=("pdf", "png")):
    """Each preference task's tables and figures (the report reads the tables and the PNGs)."""
    outputs = []
    for name in PREFERENCES:
        folder = f"{RESULTS}/tables/preferences/{name}"
        outputs += [f"{folder}/{table}" for table in PREFERENCE_TABLES]
        outputs += [
            f"{RESULTS}/figures/{kind}_{name}.{ext}"
            for kind in ("preferences", "preference_leaderboard")
            for ext in suffixes
        ]
        outputs += get_status_outputs(name, suffixes)
        outputs += get_head_to_head_outputs(name, suffixes)
    return outputs


def get_head_to_head_outputs(name, suffixes=("pdf", "png")):
    """A preference task's head-to-head matrix (unless head_to_head: false) and its breakdown
    by a column (when it names one, by:), head_to_head.smk."""
    spec = config["preferences"][name]
    folder = f"{RESULTS}/tables/preferences/{name}"
    outputs = []
    if spec.get("head_to_head", True):
        outputs += [
            f"{folder}/head_to_head.csv",
            f"{folder}/judge_agreement_non_tie.csv",
        ]
        outputs += [f"{RESULTS}/figures/head_to_head_{name}.{ext}" for ext in suffixes]
    if spec.get("by"):
        outputs += [f"{folder}/breakdown.csv"]
        outputs += [f"{RESULTS}/figures/breakdown_{name}.{ext}" for ext in suffixes]
    return outputs


def get_status_outputs(name, suffixes=("pdf", "png")):
    """A preference task's question status (status.smk), when it declares a question."""
    if not config["preferences"][name].get("question"):
        return []
    folder = f"{RESULTS}/tables/preferences/{name}"
    return [f"{folder}/status.csv", f"{folder}/status.json"] + [
        f"{RESULTS}/figures/status_{name}.{ext}" for ext in suffixes
    ]


def get_final_tables():
    if not RATED:
        return []
    tables = ["table2.csv", "table2.md", "table2.tex", "variance_by_system.csv"]
    tables += ["correlations.csv", "best_metrics.csv"]
    tables += ["data_efficiency.csv", "data_efficiency.md", "system_estimates.csv"]
    if ESTIMATES["coverage"]:
        tables.append("coverage.csv")
    tables += ["system_comparisons.csv", "leaderboard.csv"]
    if COMPARE["coverage"]:
        tables.append("comparison_coverage.csv")
    tables.append("plan.csv")
    if PLAN["check"]:
        tables.append("plan_check.csv")
    if config.get("table1"):
        tables += ["table1.csv", "table1.md"]
    if config["figures"].get("figure1"):
        tables.append("figure1.csv")
    return [f"{RESULTS}/tables/{name}" for name in tables]


def table_caption(table):
    """The caption (workflow/report/<name>.rst) of a table of results/tables/."""
    stem = Path(table).stem
    return {"figure1": "figure1_table"}.get(stem, stem)


def get_leaderboard_figures():
    """One leaderboard figure per task with at least two systems to rank."""
    return [
        f"{RESULTS}/figures/leaderboard_{task}.{ext}"
        for task in ranked_tasks()
        for ext in ("pdf", "png")
    ]


def get_final_outputs():
    scores = per_system(f"{RESULTS}/metrics/{{task}}/{{system}}.csv", computing_systems)
    return (
        scores
        + get_final_tables()
        + get_figures()
        + get_system_scores_figures()
        + get_comparison_figures()
        + get_leaderboard_figures()
        + get_figure1_figures()
        + get_preference_outputs()
        + [f"{RESULTS}/report.md", f"{RESULTS}/report.html"]
    )
