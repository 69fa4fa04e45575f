"""The report's section about a preference task (config key ``preferences``): pairwise battles
judged by people and LLM judges.

In this order: what was judged (battles, systems, human verdicts, the judges' pool, the clusters
the battles share), the raters' disagreement, each system's win rate by the unbiased estimators
with its interval, what each judge saves (data efficiency against ``human``, or why it saves
nothing), whether each judge agrees with people (accuracy, Cohen's kappa, tie rates, its largest
bias) beside how people agree with each other, the figure, and links to the tables. Every number
is read from the task's tables (``preferences.csv``, ``judge_agreement.csv``, ``summary.json``),
none computed here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from debias.report.user_tables import cluster_sentence, finite, num
from debias.stats.common.vocabulary import ESTIMAND_LABELS, TIE_MODELS, TIES, describe, is_biased, is_people_only

__all__ = ["PreferenceTables", "preference_lines", "preferences_page"]

#: The report says an estimator saves human battles when its data efficiency exceeds this
#: (a saving under 5% is not worth stating).
SAVES = 1.05


@dataclass(frozen=True)
class PreferenceTables:
    """One preference task's tables as the workflow wrote them: ``preferences.csv``,
    ``judge_agreement.csv`` and ``summary.json`` (parsed)."""

    name: str
    table: pd.DataFrame
    agreement: pd.DataFrame
    summary: Mapping
    #: ``status.json`` (parsed) when the task declares a question, else ``None``.
    status: Mapping | None = None
    #: ``head_to_head.csv`` and ``judge_agreement_non_tie.csv`` when the workflow wrote them.
    head_to_head: pd.DataFrame | None = None
    non_tie: pd.DataFrame | None = None
    #: ``breakdown.csv`` when the task names a column to break the estimates down by.
    breakdown: pd.DataFrame | None = None


def _label(config: Mapping, name: str) -> str:
    return str(((config.get("preferences") or {}).get(name) or {}).get("label") or name)


def _judge_label(config: Mapping, name: str, judge: str) -> str:
    judges = (((config.get("preferences") or {}).get(name) or {}).get("judges")) or {}
    return str((judges.get(judge) or {}).get("label") or judge)


def _estimator_label(config: Mapping, name: str, estimator: str) -> str:
    info = describe(estimator)
    if info.people_only:
        return estimator
    return info.label(_judge_label(config, name, info.proxy) if info.proxy else None, all_proxies="all judges")


def _cell(row) -> str:
    if not finite(row.estimate):
        return f"none ({row.note})" if isinstance(row.note, str) and row.note else "none"
    if not (finite(row.ci_low) and finite(row.ci_high)):
        return f"{row.estimate:.3f} (no interval: {row.note})"
    return f"{row.estimate:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}]"


def _what_lines(tables: PreferenceTables, config: Mapping) -> list[str]:
    s, name = tables.summary, tables.name
    spec = (config.get("preferences") or {}).get(name) or {}
    judges = [_judge_label(config, name, j) for j in s.get("judge_unknown", {})]
    level = tables.table["level"].iloc[0] if len(tables.table) else float("nan")
    ties = {**TIES, **TIE_MODELS}.get(spec.get("ties"), TIES["half"])
    lines = [
        f"{s['battles']:,} battles between {len(s['systems'])} systems: {s['human_battles']:,} with a human "
        f"verdict ({s['human_verdicts']:,} verdicts), {s['pool_battles']:,} judged by the judges only. "
        f"Judges: {', '.join(judges) if judges else 'none (human estimates only)'}. Intervals at level "
        f"{num(level, 2)}; {ties}."
    ]
    if spec.get("human_battles"):
        lines.append(
            f"The human verdicts of {spec['human_battles']:,} battles drawn at random are kept and the "
            "others moved to the pool (human_battles), to show what the judges save."
        )
    if s.get("multiply_rated"):
        lines.append(
            f"Raters disagree: on the {s['multiply_rated']:,} battles with several human verdicts, the "
            f"variance of one rater's verdict around its battle's mean is {num(s['rater_variance'])} "
            "(the preference analogue of the annotator variance σ_a²; a verdict is 1, ½ or 0). Each "
            "battle's verdicts are averaged."
        )
    else:
        lines.append(
            "Each battle has one human verdict, so the raters' disagreement (σ_a²) cannot be told apart "
            "from the battles' own spread and is not reported."
        )
    missing = s.get("systems_without_human") or []
    if missing:
        whose = "its" if len(missing) == 1 else "their"
        lines.append(
            f"No unbiased estimate for {', '.join(missing)}: none of {whose} battles has a human verdict "
            "(the rows say so; only the biased judge-alone estimate exists)."
        )
    clustered = cluster_sentence(tables.table, "battles", s.get("clusters"))
    if clustered:
        lines.append(clustered)
    unknown = {j: n for j, n in (s.get("judge_unknown") or {}).items() if n}
    if unknown:
        told = ", ".join(f"{_judge_label(config, name, j)} {n:,}" for j, n in unknown.items())
        lines.append(f"Answers of the judges mapped to no verdict, counted as missing (never a tie): {told}.")
    return [lines[0], "", *(f"- {line}" for line in lines[1:])] if len(lines) > 1 else lines


def _estimate_lines(tables: PreferenceTables, config: Mapping) -> list[str]:
    rows = tables.table[tables.table["estimand"] == "win_rate"]
    estimators = [e for e in dict.fromkeys(rows["estimator"]) if not is_biased(str(e))]
    if rows.empty:
        return []
    human = rows[rows["estimator"].map(is_people_only)].set_index("system")["estimate"]
    systems = sorted(dict.fromkeys(rows["system"]), key=lambda s: -(human.get(s) if finite(human.get(s)) else -1))
    cells = {(r.system, r.estimator): _cell(r) for r in rows.itertuples(index=False)}
    head = ["system", *(_estimator_label(config, tables.name, e) for e in estimators)]
    judged = any(is_biased(str(e)) for e in rows["estimator"])
    lines = [
        "Each system's win rate (its share of its battles won) with its interval"
        + (
            ", by the unbiased estimators (the judges alone are biased: they are in the table and the figure):"
            if judged
            else ":"
        ),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for system in systems:
        lines.append("| " + " | ".join([str(system), *(cells.get((system, e), "") for e in estimators)]) + " |")
    # Here, not at the top: the statistics of preferences load scipy, which a report of rating
    # tasks alone (the paper's) does not need.
    from debias.stats.preferences import FEW_BATTLES

    shown = rows[rows["estimator"].isin(estimators)]
    few = shown[(shown["n_judged"] > 0) & (shown["n_judged"] < FEW_BATTLES)]
    if not few.empty:
        fewest = int(few["n_judged"].min())
        lines += [
            "",
            f"Intervals on fewer than {FEW_BATTLES} battles with a human verdict "
            f"({', '.join(dict.fromkeys(few['system'].astype(str)))}; as few as {fewest}) are widened to hold "
            "at small samples (they contain the Agresti-Coull interval) and say so in the table's note.",
        ]
    return lines


def _times(value) -> str | None:
    """A data efficiency as "1.16×", or ``None`` when there is none to state."""
    return f"{value:.2f}×" if value is not None and finite(value) and value > 0 else None


#: The rows style control, a baseline and Davidson's ties add to ``preferences.csv``.
COEFFICIENT = "coefficient:"
TIE_PARAMETER = "tie_parameter"
BASELINE_ROWS = ("baseline_win_rate", "lc_baseline_win_rate")


def _style_lines(tables: PreferenceTables, config: Mapping, folder: str) -> list[str]:
    """The paragraph about style control, the baseline win rates and the tie parameter, read from
    the people-only rows of ``preferences.csv``; none when the task configures none of them."""
    table = tables.table
    estimands = table["estimand"].astype(str)
    extra = estimands.str.startswith(COEFFICIENT) | estimands.isin([TIE_PARAMETER, *BASELINE_ROWS])
    rows = table[extra & table["estimator"].map(is_people_only)]
    if rows.empty:
        return []
    spec = (config.get("preferences") or {}).get(tables.name) or {}
    sentences = []
    coefficients = rows[rows["estimand"].astype(str).str.startswith(COEFFICIENT)]
    if not coefficients.empty:
        given = []
        for name, sides in (spec.get("covariates") or {}).items():
            columns = ", ".join(f"`{column}`" for column in sides)
            if name == "style":
                given.append(f"style (the length, headers, lists and bold counts of {columns})")
            else:
                given.append(f"{name} ({columns})")
        values = "; ".join(
            f"{str(row.estimand).removeprefix(COEFFICIENT)} {_cell(row)}" for row in coefficients.itertuples()
        )
        sentences.append(
            "The strengths are style-controlled: the Bradley-Terry model is fitted with the differences A − B of "
            + (", ".join(given) if given else "the covariates")
            + " (each divided by its root mean square), so a system's strength is what its verdicts say with "
            "style held equal, and the leaderboard ranks these strengths. The covariates' coefficients by people's "
            f"verdicts (log-odds per root mean square of the difference): {values}."
        )
    ties = rows[rows["estimand"] == TIE_PARAMETER]
    if not ties.empty:
        sentences.append(
            f"Ties are modelled by Davidson's tie parameter, by people's verdicts {_cell(ties.iloc[0])} (0: no ties;"
            " the win rates count a tie as half a win)."
        )
    against = rows[rows["estimand"].isin(BASELINE_ROWS)]
    if not against.empty:
        baseline = spec.get("baseline") or "the baseline"
        lc = (against["estimand"] == BASELINE_ROWS[1]).any()
        cells = {(r.system, r.estimand): r for r in against.itertuples()}
        parts = []
        for system in dict.fromkeys(against["system"]):
            if str(system) == str(baseline):
                continue
            part = f"{system} {_cell(cells[(system, BASELINE_ROWS[0])])}"
            if (system, BASELINE_ROWS[1]) in cells:
                part += f", length-controlled {_cell(cells[(system, BASELINE_ROWS[1])])}"
            parts.append(part)
        sentences.append(
            f"Win rates against the baseline {baseline} by people's verdicts"
            + (" (plain, then length-controlled as AlpacaEval 2.0's)" if lc else "")
            + ": "
            + "; ".join(parts)
            + "."
        )
    sentences.append(f"Every estimator's rows: [`{folder}/preferences.csv`]({folder}/preferences.csv).")
    return [" ".join(sentences)]


def _judge_only(summary: Mapping, estimator: str) -> int | None:
    """The battles without a human verdict that the estimator's judge(s) judged (``None`` when
    the summary does not say)."""
    counts = summary.get("judge_only_battles")
    if counts is None:
        return None
    proxy = describe(estimator).proxy
    return int(sum(counts.values())) if proxy is None else counts.get(proxy)


def _saving_lines(tables: PreferenceTables, config: Mapping) -> list[str]:
    ess = tables.summary.get("data_efficiency") or {}
    shown = {e: v for e, v in (ess.get("win_rate") or {}).items() if not is_people_only(e)}
    n = tables.summary["human_battles"]
    if not shown:
        return []
    if n == 0:
        return ["With no human verdict there is nothing to save: only the judges' (biased) estimates exist."]
    parts = []
    for estimator, value in shown.items():
        label = _estimator_label(config, tables.name, estimator)
        if _times(value) is None:
            parts.append(
                f"{label}: not computed (no system has an interval of positive width by both it and `human`: "
                "with a single human battle, or every human verdict the same, there is no spread to narrow)"
            )
        elif value > SAVES:
            parts.append(
                f"{label}: {_times(value)} (worth {value * n:,.0f} human battles, "
                f"{1 - 1 / value:.0%} fewer needed for the same width)"
            )
        elif _judge_only(tables.summary, estimator) == 0:
            whose = "the judges" if describe(estimator).combined else "the judge"
            parts.append(
                f"{label}: {_times(value)} (no saving: no battle without a human verdict was judged by {whose}, "
                "so its verdicts have nothing to add; PPI++ narrows an interval with battles only the judges "
                "saw, a pool)"
            )
        else:
            parts.append(f"{label}: {_times(value)} (no saving: the judge's verdicts do not narrow the intervals)")
    strength = {e: _times(v) for e, v in (ess.get("strength") or {}).items() if not is_people_only(e)}
    told = ", ".join(f"{_estimator_label(config, tables.name, e)} {v}" for e, v in strength.items() if v)
    tail = f" For the Bradley-Terry strengths: {told}." if told else ""
    battles = "single human battle counts" if n == 1 else f"{n:,} human battles count"
    return [
        "What the judges save, as the effective sample size of each estimator against `human` (the mean "
        f"over systems of the ratio of squared interval widths; the {battles} 1×): " + "; ".join(parts) + "." + tail
    ]


def _people_line(agreement: Mapping | None) -> str:
    """How people agree with each other: the yardstick of a judge's agreement with them."""
    if not agreement or not agreement.get("rater_pairs"):
        return (
            "How people agree with each other is not known here (no battle has several human verdicts), so a "
            "judge's agreement with people has no yardstick: two people need not agree more often."
        )
    battles = f"{agreement['battles']:,} battle" + ("s" if agreement["battles"] != 1 else "")
    pairs = f"{agreement['rater_pairs']:,} pair" + ("s" if agreement["rater_pairs"] != 1 else "")
    return (
        f"People against people, for comparison: on the {battles} with several human verdicts, two raters "
        f"of the same battle agree on {num(agreement['accuracy'])} of their {pairs} (Cohen's κ "
        f"{num(agreement['kappa'])}): a judge whose accuracy and κ above come near these stands in for one "
        "person about as well as another person does."
    )


def _agreement_lines(tables: PreferenceTables, config: Mapping) -> list[str]:
    agreement = tables.agreement
    if agreement is None or agreement.empty:
        return []
    lines = [
        "Is a judge worth using? Its agreement with people on the battles both judged, and its bias "
        "(judge win rate minus human win rate; a system whose interval excludes 0 is misjudged):",
        "",
        "| judge | human verdicts compared | accuracy | Cohen's κ | ties (people / judge) | no verdict "
        "| systems misjudged | largest bias |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for judge, rows in agreement.groupby("judge", sort=False):
        first = rows.iloc[0]
        resolved = rows[(rows["bias_ci_low"] > 0) | (rows["bias_ci_high"] < 0)]
        biased = rows.dropna(subset=["bias"])
        if biased.empty:
            largest = "not computed"
        else:
            worst = biased.loc[biased["bias"].abs().idxmax()]
            low, high = worst["bias_ci_low"], worst["bias_ci_high"]
            largest = f"{worst['system']} {worst['bias']:+.3f} [{low:+.3f}, {high:+.3f}]"
        lines.append(
            f"| {_judge_label(config, tables.name, judge)} | {int(first['n_verdicts']):,} | {num(first['accuracy'])} "
            f"| {num(first['kappa'])} | {num(first['human_tie_rate'], 2)} / {num(first['judge_tie_rate'], 2)} "
            f"| {int(first['n_unknown']):,} | {len(resolved)} of {len(rows)} | {largest} |"
        )
    lines += ["", _people_line(tables.summary.get("human_agreement"))] if "human_agreement" in tables.summary else []
    lines += [
        "",
        "A biased judge is still of use through PPI++, whose weight corrects its bias with the human "
        "verdicts; what it saves is the effective sample size above.",
    ]
    return lines


def _head_to_head_lines(tables: PreferenceTables, config: Mapping, folder: str) -> list[str]:
    """The paragraph about the head-to-head matrix of people's verdicts and the judges'
    agreement on non-tie verdicts (``head_to_head.csv``, ``judge_agreement_non_tie.csv``)."""
    matrix = tables.head_to_head
    if matrix is None:
        return []
    lines = []
    human = matrix[matrix["estimator"].map(is_people_only)]
    if not human.empty:
        upper = human[human["system"] < human["opponent"]]
        live = upper.dropna(subset=["ci_low", "ci_high"])
        decided = live[(live["ci_low"] > 0.5) | (live["ci_high"] < 0.5)]
        level = float(human["level"].iloc[0])
        shown = human["system"].nunique()
        empty = int(upper["n_battles"].eq(0).sum())
        others = []
        for estimator, rows in matrix[~matrix["estimator"].map(lambda e: is_people_only(e) or is_biased(e))].groupby(
            "estimator", sort=False
        ):
            rows = rows[rows["system"] < rows["opponent"]].dropna(subset=["ci_low", "ci_high"])
            won = int(((rows["ci_low"] > 0.5) | (rows["ci_high"] < 0.5)).sum())
            others.append(f"{_estimator_label(config, tables.name, estimator)}: {won} of {len(rows)}")
        lines.append(
            f"Head to head, by people's verdicts: of the {len(live)} pairs of the {shown} systems shown with an "
            f"interval, {len(decided)} have a winner at the {level:.0%} level, the intervals holding together over "
            f"the {len(live)} pairs"
            + (f"; {empty} pairs never met" if empty else "")
            + (f" (with the judges: {'; '.join(others)})" if others else "")
            + f". Every estimator's matrix: [`{folder}/head_to_head.csv`]({folder}/head_to_head.csv)."
        )
    non_tie = tables.non_tie
    if non_tie is not None and not non_tie.empty:
        parts = [
            f"{_judge_label(config, tables.name, row.judge)} {num(row.non_tie_accuracy)} on "
            f"{int(row.n_non_tie):,} (against {num(row.accuracy)} on all verdicts)"
            for row in non_tie.itertuples()
        ]
        lines += [
            "",
            "Agreement with people on non-tie verdicts (neither says tie): " + "; ".join(parts) + ".",
        ]
    return lines


def _breakdown_lines(tables: PreferenceTables, folder: str) -> list[str]:
    """The paragraph about the estimates within each level of the task's breakdown column."""
    table = tables.breakdown
    if table is None or table.empty:
        return []
    levels = [str(v) for v in dict.fromkeys(table["by"].dropna())]
    rows = table[table["by"].notna() & (table["estimand"] == "win_rate") & table["estimator"].map(is_people_only)]
    best = []
    for level in levels:
        part = rows[rows["by"] == level].dropna(subset=["estimate"])
        if not part.empty:
            top = part.loc[part["estimate"].idxmax()]
            best.append(f"{level}: {top['system']} ({num(top['estimate'])})")
    level = float(table["level"].iloc[0])
    return [
        f"Within each of the {len(levels)} levels of the breakdown column (intervals at {level:.0%} holding "
        "together over the levels), the highest human win rate: " + "; ".join(best) + ". "
        f"Every estimand and estimator per level: [`{folder}/breakdown.csv`]({folder}/breakdown.csv)."
    ]


def _status_lines(status: Mapping, folder: str) -> list[str]:
    """The paragraph about the task's question (``status.json``)."""
    settled = status.get("settled_at_votes")
    if status["resolved"]:
        when = f", settled at {settled:,} votes" if settled else ""
        head = f"**Question `{status['question']}`: {status['answer']}** ({status['votes']:,} votes{when})."
        more = ""
    else:
        head = f"**Question `{status['question']}`: {status['answer']}** after {status['votes']:,} votes."
        if status.get("more_votes") is not None:
            more = (
                f" About {status['more_votes']:,} more votes in all, drawn as `debias next` draws them, would settle it"
            )
            more += " if the estimated gaps are the true ones (a rough guide)."
        else:
            more = f" No estimate of the votes still needed: {status.get('more_votes_note') or 'unknown'}."
    estimand = ESTIMAND_LABELS.get(status["estimand"], status["estimand"])
    return [
        f"{head} The intervals ({estimand}, `{status['estimator']}`) are confidence "
        f"sequences: all of them hold at level {status['level']:g} at every look at once, so the answer may be "
        f"read after every batch of votes.{more} Table: [`{folder}/status.csv`]({folder}/status.csv) (what is "
        "settled, and each pair still open with the votes it needs)."
    ]


def preference_lines(
    tables: PreferenceTables,
    config: Mapping,
    *,
    figures: frozenset[str] | set[str],
    figures_dir: str = "figures",
    tables_dir: str = "tables",
) -> list[str]:
    """The section of one preference task (module notes); ``figures`` are the names of the
    figures that exist, ``figures_dir`` and ``tables_dir`` are relative to the report."""
    lines = [f"## {_label(config, tables.name)} (pairwise preferences)", "", *_what_lines(tables, config)]
    folder = f"{tables_dir}/preferences/{tables.name}"
    for part in (_estimate_lines, _saving_lines, _agreement_lines):
        body = part(tables, config)
        if body:
            lines += ["", *body]
        if part is _estimate_lines:
            style = _style_lines(tables, config, folder)
            lines += ["", *style] if style else []
    for figure in (f"preferences_{tables.name}", f"preference_leaderboard_{tables.name}"):
        if figure in figures:
            lines += ["", f"![{figure}]({figures_dir}/{figure}.png)"]
    if tables.status is not None:
        lines += ["", *_status_lines(tables.status, folder)]
        figure = f"status_{tables.name}"
        if figure in figures:
            lines += ["", f"![{figure}]({figures_dir}/{figure}.png)"]
    for body, figure in (
        (_head_to_head_lines(tables, config, folder), f"head_to_head_{tables.name}"),
        (_breakdown_lines(tables, folder), f"breakdown_{tables.name}"),
    ):
        if body:
            lines += ["", *body]
            if figure in figures:
                lines += ["", f"![{figure}]({figures_dir}/{figure}.png)"]
    lines += [
        "",
        f"Tables: [`{folder}/preferences.csv`]({folder}/preferences.csv) (every system × estimand × "
        f"estimator, strengths included), [`{folder}/judge_agreement.csv`]({folder}/judge_agreement.csv) "
        f"(every judge × system), [`{folder}/leaderboard.csv`]({folder}/leaderboard.csv) (the rank-sets: "
        "the ranks each system may take, all systems' sets holding at once at the task's level).",
    ]
    return lines


def preferences_page(
    sections: list[PreferenceTables],
    config: Mapping,
    *,
    figures: frozenset[str] | set[str],
    figures_dir: str = "figures",
    tables_dir: str = "tables",
) -> str:
    """The report of a configuration of preference tasks alone, as Markdown."""
    names = ", ".join(_label(config, t.name) for t in sections)
    lines = [
        "# Evaluation report",
        "",
        f"Preference tasks: {names}. Each section gives the systems' win rates with their intervals, "
        "what the LLM judges save in human verdicts, and whether each judge agrees with people. Every "
        "number comes from the workflow's tables.",
    ]
    for tables in sections:
        lines += [
            "",
            *preference_lines(tables, config, figures=figures, figures_dir=figures_dir, tables_dir=tables_dir),
        ]
    return "\n".join(lines) + "\n"
