"""The tables of the report's sections about the user's own tasks
(:mod:`debias.report.user_tasks`): estimates ranked with their intervals, paired comparisons
and which are resolved, each metric's data efficiency, and the plans with their check. A number
that is not finite is written as its reason, never as "nan" or "inf"."""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from debias.config.labels import COMBINED, metric_label, prompt_is_lower_better, prompt_label, system_label
from debias.report.context import ReportContext, table_lines
from debias.stats.common.vocabulary import is_control_variate, is_people_only
from debias.tables.selection import (
    BEST_WIDTH_TOLERANCE,
    NO_METRIC_HELPS,
    best_control_variate,
    best_paired_control_variate,
)

__all__ = [
    "NO_METRIC_SCORES",
    "ONE_JUDGMENT",
    "cluster_lines",
    "cluster_sentence",
    "comparison_lines",
    "constant_metric_lines",
    "efficiency_lines",
    "estimate_lines",
    "no_scores_reason",
    "finite",
    "num",
    "of_task",
    "one_judgment_prompts",
    "plan_lines",
]

#: Why a cell's noise-free quantities are missing when every output has one judgment.
ONE_JUDGMENT = "not identifiable (one judgment per item)"
#: Why a system or pair has no control-variate row.
NO_METRIC_SCORES = "no metric scores"


def finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def num(value, digits: int = 3, reason: str = "not computed") -> str:
    return f"{float(value):.{digits}f}" if finite(value) else reason


def _interval(estimate, low, high, signed: bool = False) -> str:
    if not (finite(estimate) and finite(low) and finite(high)):
        return "not computed"
    sign = "+" if signed else ""
    return f"{estimate:{sign}.3f} [{low:{sign}.3f}, {high:{sign}.3f}]"


def _note(row) -> str:
    """A row's ``note`` (empty when it has none, or no such column: a table of an older run)."""
    note = getattr(row, "note", "")
    return note if isinstance(note, str) else ""


def of_task(frame: pd.DataFrame | None, task: str) -> pd.DataFrame:
    if frame is None or frame.empty or "task" not in frame.columns:
        return pd.DataFrame()
    return frame[frame["task"] == task]


def one_judgment_prompts(ctx: ReportContext, task: str) -> list[str]:
    """Prompts of ``task`` on which no output has two judgments (Table 2 counts as many
    judgments as items and has no σ_a²)."""
    rows = of_task(ctx.table2, task)
    return [
        str(r.prompt)
        for r in rows.itertuples(index=False)
        if not finite(r.sigma2_a) and r.n_items > 0 and r.n_items == r.n_judgments
    ]


def no_scores_reason(config: Mapping, task: str, *systems: str) -> str:
    """Why a system or pair has only the ``mean`` row: no metric scores, and which system is
    the task's reference (its outputs are the references the metrics compare with)."""
    reference = (config.get("tasks") or {}).get(task, {}).get("reference_system")
    if reference in systems:
        return f"{NO_METRIC_SCORES}: {system_label(config, task, reference)} is the reference system"
    return NO_METRIC_SCORES


def constant_metric_lines(correlations: pd.DataFrame | None, config: Mapping, task: str | None = None) -> list[str]:
    """A note naming each metric that is constant on a system's judged outputs (of ``task``, or
    every task): read from ``correlations.csv``, where its ρ is blank while another metric's is
    not. Empty when there is none."""
    if correlations is None or correlations.empty or "rho" not in correlations:
        return []
    rows = correlations[correlations["system"] != COMBINED]
    if task is not None:
        rows = rows[rows["task"] == task]
    found = []
    for (task_, prompt, system), cell in rows.groupby(["task", "prompt", "system"], sort=False):
        blank = cell["rho"].isna() & (cell["n_items"] > 1)
        if blank.any() and cell["rho"].notna().any():
            names = ", ".join(metric_label(config, m) for m in cell.loc[blank, "metric"])
            found.append(f"{names} on {system_label(config, task_, system)} ({prompt_label(config, task_, prompt)})")
    if not found:
        return []
    return [
        "",
        f"**Constant metrics.** One value on every judged output: {'; '.join(found)}. Their correlation "
        "is undefined, their control variate is the mean, and the pooled correlations (all systems, and "
        "Figure 3's ρ) leave those systems out; the job logs say the same.",
    ]


def cluster_sentence(rows: pd.DataFrame, unit: str, total: int | None = None) -> str | None:
    """One sentence on clustered estimates (``rows`` with the ``clusters`` and ``design_effect``
    columns: :data:`debias.tables.columns.CLUSTER_COLUMNS`): how many clusters and the range of
    the design effects; ``None`` when no row has them. ``unit`` names what falls in clusters
    (``"judged items"``, ``"battles"``), ``total`` the clusters of the whole task when known."""
    if rows is None or rows.empty or "clusters" not in rows.columns:
        return None
    counts = pd.to_numeric(rows["clusters"], errors="coerce").dropna()
    effects = pd.to_numeric(rows["design_effect"], errors="coerce")
    effects = effects[effects.map(finite)]
    if counts.empty:
        return None
    low, high = int(counts.min()), int(counts.max())
    each = f"{low:,}" if low == high else f"{low:,} to {high:,}"
    where = f"{total:,} clusters, each estimate resting on {each}" if total else f"{each} clusters behind each estimate"
    effect = (
        f"design effects from {effects.min():.2f} to {effects.max():.2f}"
        if len(effects) and effects.min() != effects.max()
        else f"a design effect of {effects.iloc[0]:.2f}"
        if len(effects)
        else "no design effect computed"
    )
    return (
        f"The {unit} share clusters (the question or document several of them share): {where}, each cluster "
        f"counting as one unit in the intervals, with {effect} (an estimate's variance over what independent "
        f"{unit} would give; 1: the clusters cost nothing)."
    )


def cluster_lines(ctx: ReportContext, task: str) -> list[str]:
    """The sentence on a task whose items have clusters (:func:`cluster_sentence`, from
    ``leaderboard.csv``), or nothing."""
    sentence = cluster_sentence(of_task(ctx.leaderboard, task), "judged items")
    return [sentence] if sentence else []


def estimate_lines(ctx: ReportContext, task: str) -> list[str]:
    config, rows = ctx.config, of_task(ctx.system_estimates, task)
    if rows.empty:
        return []
    level = float(rows["level"].iloc[0])
    lines = [
        "### Estimated mean human scores",
        "",
        f"Each system's mean human score with its {level:.0%} interval from the judged outputs alone "
        "(*mean*), and with the best control variate (*cv:<metric>*, *cv:combined*: the narrowest "
        f"interval, only when more than {BEST_WIDTH_TOLERANCE:.0%} narrower than the mean's, else "
        f"*{NO_METRIC_HELPS}*; the system-scores figure draws the same). Systems are ranked by the "
        "mean; *effective n* is the number of judged outputs the plain mean would need for the same "
        "width.",
    ]
    for prompt, cell in rows.groupby("prompt", sort=False):
        means = cell[cell["estimator"].map(is_people_only)]
        lower = prompt_is_lower_better(config, task, prompt)
        means = means.sort_values("estimate", ascending=lower, kind="stable")
        table = []
        for rank, m in enumerate(means.itertuples(index=False), start=1):
            system = cell[cell["system"] == m.system]
            cvs = system[system["estimator"].map(is_control_variate)]
            cvs = cvs[(cvs["ci_high"] - cvs["ci_low"]).notna()]
            chosen = best_control_variate(system)
            why = _note(m)  # no interval: too few judged items, or no variation in them
            if why:
                best, effective = "–", "–"
            elif cvs.empty:
                best, effective = f"– ({no_scores_reason(config, task, m.system)})", num(m.effective_n, 0)
            elif chosen is None:
                best, effective = NO_METRIC_HELPS, num(m.effective_n, 0)
            else:
                b = next(system[system["estimator"] == chosen].itertuples())
                best = f"{b.estimator}: {_interval(b.estimate, b.ci_low, b.ci_high)}"
                effective = num(b.effective_n, 0)
            table.append(
                [
                    str(rank),
                    system_label(config, task, m.system),
                    f"{m.n_judged} of {m.n_outputs}",
                    (f"{num(m.estimate, 3)} ({why})" if finite(m.estimate) else why)
                    if why
                    else _interval(m.estimate, m.ci_low, m.ci_high),
                    best,
                    effective,
                ]
            )
        direction = " (lower is better)" if lower else ""
        header = ["Rank", "System", "Judged", "Mean [interval]", "Best control variate", "Effective n"]
        lines += ["", f"**{prompt_label(config, task, prompt)}**{direction}", "", *table_lines(header, table)]
    return lines + constant_metric_lines(ctx.correlations, config, task)


def _resolved(row) -> bool:
    return finite(row.ci_low) and finite(row.ci_high) and (row.ci_low > 0 or row.ci_high < 0)


def comparison_lines(ctx: ReportContext, task: str) -> list[str]:
    config, rows = ctx.config, of_task(ctx.comparisons, task)
    if rows.empty:
        return []
    lines = [
        "### Paired comparisons",
        "",
        "Every two systems judged on the same items: the difference B − A of mean human scores from the "
        "paired judgments (*mean*) and with the control variate on the metric difference that saves most "
        f"(*best cv*; only when it saves more than {BEST_WIDTH_TOLERANCE:.0%} over the paired mean, else "
        f"*{NO_METRIC_HELPS}*). A difference is *resolved* when its interval excludes 0.",
    ]
    for prompt, cell in rows.groupby("prompt", sort=False):
        table, resolved, pairs = [], 0, 0
        for (a, b), pair in cell.groupby(["system_a", "system_b"], sort=False):
            means = pair[pair["estimator"].map(is_people_only)]
            if means.empty:
                continue
            m = next(means.itertuples(index=False))
            cvs = pair[pair["estimator"].map(is_control_variate)]
            chosen = best_paired_control_variate(pair)
            if cvs.empty:
                best_text, best_resolved = f"– ({no_scores_reason(config, task, a, b)})", False
            elif chosen is None:
                best_text, best_resolved = NO_METRIC_HELPS, False
            else:
                c = next(pair[pair["estimator"] == chosen].itertuples(index=False))
                best_text = f"{c.estimator}: {_interval(c.difference, c.ci_low, c.ci_high, signed=True)}"
                best_resolved = _resolved(c)
            either = _resolved(m) or best_resolved
            pairs += 1
            resolved += either
            verdict = "yes" if _resolved(m) else ("yes, with the metric" if best_resolved else "no")
            table.append(
                [
                    f"{system_label(config, task, b)} − {system_label(config, task, a)}",
                    str(m.n_shared),
                    _interval(m.difference, m.ci_low, m.ci_high, signed=True),
                    best_text,
                    verdict,
                ]
            )
        header = ["Difference", "Shared items", "Mean [interval]", "Best cv [interval]", "Resolved"]
        lines += [
            "",
            f"**{prompt_label(config, task, prompt)}**: {resolved} of {pairs} differences resolved.",
            "",
            *table_lines(header, table),
        ]
    return lines


def efficiency_lines(ctx: ReportContext, task: str) -> list[str]:
    config, rows = ctx.config, of_task(ctx.data_efficiency, task)
    if rows.empty:
        return []
    single = set(one_judgment_prompts(ctx, task))
    lines = [
        "### Data efficiency of each metric",
        "",
        "How many times fewer human judgments the control variate with each metric needs for the same "
        "interval width (bootstrap; above 1 saves judgments), the median and range over systems, beside "
        "eq. (7) from the same ρ and γ, and the DE if the judgments had no annotator noise.",
    ]
    for prompt, cell in rows.groupby("prompt", sort=False):
        table = []
        cv, noiseless = cell[cell["condition"] == "cv"], cell[cell["condition"] == "noiseless"]
        for metric, of_metric in cv.groupby("metric", sort=False):
            de = of_metric["de"].astype(float)
            finite = de[de.notna() & (de.abs() != float("inf"))]
            quiet = noiseless[noiseless["metric"] == metric]["de"].astype(float).dropna()
            table.append(
                [
                    metric_label(config, metric),
                    num(finite.median(), 2) if len(finite) else "not computed",
                    f"{finite.min():.2f}–{finite.max():.2f}" if len(finite) else "not computed",
                    num(of_metric["de_theory"].astype(float).median(), 2),
                    num(of_metric["rho"].astype(float).median(), 2),
                    ONE_JUDGMENT if str(prompt) in single else num(quiet.median(), 2) if len(quiet) else "not computed",
                ]
            )
        header = ["Metric", "DE (median)", "DE range", "DE, eq. (7)", "ρ (median)", "DE, noiseless humans"]
        lines += ["", f"**{prompt_label(config, task, prompt)}**", "", *table_lines(header, table)]
    return lines


def plan_lines(ctx: ReportContext, task: str) -> list[str]:
    config, plan, check = ctx.config, of_task(ctx.plan, task), of_task(ctx.plan_check, task)
    if plan.empty:
        return []
    single = set(one_judgment_prompts(ctx, task))
    assurance = float(plan["assurance"].iloc[0])
    lines = [
        "### Planning the next evaluation",
        "",
        f"Outputs × judgments per output that reach each target width at the least cost with "
        f"{assurance:.0%} assurance, for judgments alone and for the best control variate.",
    ]
    table = []
    for (prompt, system, target), cell in plan.groupby(["prompt", "system", "target_width"], sort=False):
        designs = []
        people = cell["estimator"].map(is_people_only)
        for kind in ("mean", "cv"):
            rows = cell[people == (kind == "mean")]
            if rows.empty:
                designs.append("not planned")
                continue
            r = next(rows.itertuples(index=False))
            text = "unreachable" if not r.n else f"{r.n} × {r.k}"
            designs.append(text if kind == "mean" else f"{text} ({r.estimator})")
        table.append([prompt_label(config, task, prompt), system_label(config, task, system), num(target), *designs])
    header = ["Prompt", "System", "Target width", "mean: n × k", "best cv: n × k"]
    lines += ["", *table_lines(header, table)]
    if single & set(plan["prompt"].astype(str)):
        lines += [
            "",
            "With one judgment per item σ_a² is unknown: the judgments per output (k) cannot be planned "
            "from these data; give the annotator variance from another study to plan k.",
        ]
    if not check.empty:
        rows = []
        for estimator, group in check.groupby("estimator", sort=False):
            rows.append([estimator, num(group["met"].mean()), num(group["met"].min()), num(assurance, 2)])
        pilots, size = int(check["pilots"].iloc[0]), int(check["pilot_size"].iloc[0])
        lines += [
            "",
            f"Check of the plans: {pilots} random {size}-output pilots per system and prompt, each planning "
            "alone; *met* is the share of plans whose realised width met the target (it should reach the "
            "assurance).",
            "",
            *table_lines(["Estimator", "Mean met", "Lowest", "Assurance"], rows),
        ]
    return lines
