"""Where automatic metrics and humans disagree (Section 2 of the paper: Table 1 and Figure 1).

Table 1 counts the judged system responses of a task in four quadrants: good or bad by the
human judgment (e.g. AnyCorrect >= 0.5, or Edit < 0.3) against high or low by the metric
(score > 0.5), with one example per quadrant. Figure 1 sets the system-level agreement
(mean metric against mean judgment, per system) beside the instance-level one (each
response a point).

A *response* is one judged output text: lines of several systems that share one judgment
(their ``judged_output``) are one response, listed with every system that gave it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from debias.data import Judgments
from debias.io.canonical import SystemItem
from debias.stats.common.resampling import setting_seed
from debias.stats.ratings import correlation

log = logging.getLogger(__name__)

__all__ = [
    "score_systems",
    "INSTANCE_DEFINITIONS",
    "QUADRANT_COLUMNS",
    "SystemPoint",
    "bias_quadrants",
    "instance_correlations",
    "system_level_points",
    "unique_responses",
]

RESPONSE_COLUMNS = ["id", "systems", "input", "reference", "output", "n_judgments", "mean_judgment"]


def unique_responses(
    items: Mapping[str, Sequence[SystemItem]],
    references: Mapping[str, str],
    prompt: str,
    scores: Mapping[str, pd.DataFrame] | None = None,
    inputs: Mapping[str, str] | None = None,
    ids: set[str] | None = None,
) -> pd.DataFrame:
    """One row per judged response of the given systems on ``prompt``.

    Parameters
    ----------
    items : mapping of str to sequence of SystemItem
        The lines of each system (as :func:`debias.io.canonical.read_system` returns them). Leave the
        judged references out to count system responses only.
    references : mapping of str to str
        Reference text of each item.
    prompt : str
        The prompt whose judgments decide; lines without a judgment on it are left out. A
        judgment may be NaN: a vote that was cast but says nothing (read the file with
        ``null_as: nan`` to keep null votes so). Such votes are left out of the mean, and a
        response with no other vote has a NaN mean.
    scores : mapping of str to pandas.DataFrame, optional
        Per system, its metric scores (a column ``id`` and one column per metric, as the
        metric and joined tables hold them); a shared response takes the scores of its
        first system in name order (the texts are the same).
    inputs : mapping of str to str, optional
        What each item showed the systems (the question), for examples.
    ids : set of str, optional
        Keep only these items (e.g. those with a judged reference).

    Returns
    -------
    pandas.DataFrame
        Columns ``id, systems, input, reference, output, n_judgments, mean_judgment`` and the
        metric columns; ``systems`` joins the systems' names with ``;``. Ordered by id, then
        systems.
    """
    rows: dict[tuple, dict] = {}
    for system in sorted(items):
        indexed = scores[system].set_index("id") if scores is not None else None
        for item in items[system]:
            values = item.judgments.get(prompt) or []
            if not values or (ids is not None and item.id not in ids):
                continue
            present = [v for v in values if not np.isnan(v)]
            key = ("shared", item.judged_output) if item.judged_output else ("own", system, item.id)
            if key in rows:
                rows[key]["systems"] += f";{system}"
                continue
            row = {
                "id": item.id,
                "systems": system,
                "input": (inputs or {}).get(item.id, ""),
                "reference": references[item.id],
                "output": item.output,
                "n_judgments": len(present),
                "mean_judgment": float(np.mean(present)) if present else float("nan"),
            }
            if indexed is not None:
                row.update(indexed.loc[item.id].to_dict())
            rows[key] = row
    frame = pd.DataFrame(list(rows.values()))
    if frame.empty:
        return pd.DataFrame(columns=RESPONSE_COLUMNS)
    return frame.sort_values(["id", "systems"], kind="stable").reset_index(drop=True)


QUADRANT_COLUMNS = [
    "judgment",
    "metric_side",
    "count",
    "percent",
    "total",
    "example_id",
    "example_systems",
    "example_input",
    "example_reference",
    "example_output",
    "example_judgment",
    "example_metric",
]


def bias_quadrants(
    responses: pd.DataFrame,
    judgment_threshold: float,
    metric: str | None = None,
    metric_threshold: float = 0.5,
    higher_is_better: bool = True,
) -> pd.DataFrame:
    """Table 1: responses counted by human judgment (good/bad) and metric (high/low).

    A response is *good* when its mean judgment is at least ``judgment_threshold`` (or,
    for a lower-is-better prompt such as Edit, below it) and *high* when its ``metric``
    score exceeds ``metric_threshold``. A response whose mean is NaN (only null votes) is
    bad: for MS MARCO that is an answer no annotator found supported by any passage.
    Without ``metric`` the responses are split by the judgment alone (two rows).

    Returns
    -------
    pandas.DataFrame
        One row per cell, in the paper's order (good/high, bad/high, good/low, bad/low),
        columns :data:`QUADRANT_COLUMNS`: the count, its percentage of all responses, and
        the cell's clearest example (metric furthest from its threshold, then judgment
        furthest from its threshold, then id): its id, systems, input, reference, output,
        mean judgment and metric score. Example fields are empty for an empty cell.
    """
    judged = responses["mean_judgment"].to_numpy(dtype=float)
    good = judged >= judgment_threshold if higher_is_better else judged < judgment_threshold
    judgment_distance = np.nan_to_num(np.abs(judged - judgment_threshold), nan=0.0)
    if metric is None:
        cells = [("good", "", good), ("bad", "", ~good)]
        metric_distance = np.zeros(len(responses))
    else:
        score = responses[metric].to_numpy(dtype=float)
        high = score > metric_threshold
        cells = [
            ("good", "high", good & high),
            ("bad", "high", ~good & high),
            ("good", "low", good & ~high),
            ("bad", "low", ~good & ~high),
        ]
        metric_distance = np.abs(score - metric_threshold)
    total = len(responses)
    rows = []
    for judgment, side, mask in cells:
        row = {"judgment": judgment, "metric_side": side, "count": int(mask.sum()), "total": total}
        row["percent"] = 100.0 * row["count"] / total if total else float("nan")
        if mask.any():
            candidates = responses[mask].assign(_metric=metric_distance[mask], _judgment=judgment_distance[mask])
            order = ["_metric", "_judgment", "id", "systems"]
            best = candidates.sort_values(order, ascending=[False, False, True, True], kind="stable").iloc[0]
            row.update(
                example_id=best["id"],
                example_systems=best["systems"],
                example_input=best["input"],
                example_reference=best["reference"],
                example_output=best["output"],
                example_judgment=float(best["mean_judgment"]),
                example_metric=float(best[metric]) if metric else float("nan"),
            )
        rows.append(row)
    return pd.DataFrame(rows).reindex(columns=QUADRANT_COLUMNS)


@dataclass(frozen=True)
class SystemPoint:
    """One system in Figure 1(a): mean judgment and mean metric with percentile intervals."""

    system: str
    n_items: int
    judgment: float
    judgment_low: float
    judgment_high: float
    metric: float
    metric_low: float
    metric_high: float


def system_level_points(
    joined: Mapping[str, pd.DataFrame],
    prompt: str,
    metric: str,
    level: float,
    replicates: int = 1000,
    seed: int = 0,
) -> tuple[list[SystemPoint], float]:
    """Figure 1(a): per system, the mean judgment and mean metric over its judged outputs.

    Each interval is the bootstrap percentile interval at ``level`` over the system's
    judged outputs (``replicates`` resamples; the same resampled items for both means,
    seeded by :func:`debias.stats.common.resampling.setting_seed` from ``seed``, the prompt, the metric
    and the system). Also returns Pearson's correlation of the systems' two means.
    """
    tail = 100 * (1 - level) / 2
    points = []
    for system in sorted(joined):
        frame = joined[system]
        rows = frame[(frame["prompt"] == prompt) & (frame["n_judgments"] > 0)]
        y = rows["mean_judgment"].to_numpy(dtype=float)
        g = rows[metric].to_numpy(dtype=float)
        rng = np.random.default_rng(setting_seed(seed, "figure1", prompt, metric, system))
        draws = rng.integers(0, len(y), size=(replicates, len(y)))
        y_boot, g_boot = y[draws].mean(axis=1), g[draws].mean(axis=1)
        y_low, y_high = np.percentile(y_boot, [tail, 100 - tail])
        g_low, g_high = np.percentile(g_boot, [tail, 100 - tail])
        points.append(SystemPoint(system, len(y), float(y.mean()), y_low, y_high, float(g.mean()), g_low, g_high))
    across = correlation([p.judgment for p in points], [p.metric for p in points]) if len(points) > 2 else np.nan
    return points, across


#: Definitions of an instance-level correlation that :func:`instance_correlations` reports.
INSTANCE_DEFINITIONS = {
    "item_means": "Pearson r of each judged output's mean judgment with its metric score",
    "own_lines": "the same over outputs judged for this system alone (shared judgments left out)",
    "per_judgment": "Pearson r over single judgments, each paired with its output's metric score",
    "corrected": "Cov(mean judgment, metric) / (sigma_f sd(metric)), the paper's Figure 5 quantity",
}


def instance_correlations(frame: pd.DataFrame, prompt: str, metrics: Sequence[str]) -> pd.DataFrame:
    """Figure 1(b): the instance-level correlation of one system, by every definition.

    ``frame`` is the system's joined table. One row per definition of
    :data:`INSTANCE_DEFINITIONS` and metric: columns ``definition, metric, rho, n``, where
    ``n`` counts the points (outputs, or judgments for ``per_judgment``).
    """
    from debias.stats.ratings import attenuation_corrected_correlation
    from debias.tables.joined import judged_rows

    rows = judged_rows(frame, prompt)
    own = rows[rows["judged_output"] == ""]
    judgments = Judgments.from_joined(rows)
    out = []
    for metric in metrics:
        g = rows[metric].to_numpy(dtype=float)
        y = rows["mean_judgment"].to_numpy(dtype=float)
        per_judgment_g = g[judgments.item_index]
        values = {
            "item_means": (correlation(y, g), len(rows)),
            "own_lines": (
                correlation(own["mean_judgment"].to_numpy(dtype=float), own[metric].to_numpy(dtype=float)),
                len(own),
            ),
            "per_judgment": (correlation(judgments.values, per_judgment_g), int(judgments.values.size)),
            "corrected": (attenuation_corrected_correlation(judgments, g), len(rows)),
        }
        for definition, (rho, n) in values.items():
            out.append({"definition": definition, "metric": metric, "rho": rho, "n": n})
    return pd.DataFrame(out, columns=["definition", "metric", "rho", "n"])


def score_systems(
    systems: Mapping[str, Sequence[SystemItem]], references: Mapping[str, str], implementation: str, column: str = "m"
) -> dict[str, pd.DataFrame]:
    """Every system's outputs scored against their references by one metric implementation:
    per system a frame with the score in ``column`` and the output's ``id``."""
    from debias.metrics import score_outputs

    scored = {}
    for system, items in systems.items():
        log.info("scoring %d outputs of %s with %s", len(items), system, implementation)
        frame = score_outputs(
            [i.output for i in items], [references[i.id] for i in items], metrics={column: implementation}
        )
        scored[system] = frame.assign(id=[i.id for i in items])
    return scored
