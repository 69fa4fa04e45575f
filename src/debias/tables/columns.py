"""The column vocabulary of the public tables: one name for one thing in every table.

The names are those of the paper run's result tables (``system_estimates.csv``,
``system_comparisons.csv``, ``plan.csv``, ...), which stay as they were; newer tables follow them:

- :data:`CI_LOW`, :data:`CI_HIGH` (:data:`INTERVAL`): the bounds of an estimate's interval at
  ``level``; a derived quantity's interval is prefixed with its name (``bias_ci_low``,
  ``bias_ci_high`` in ``judge_agreement.csv``: :func:`interval_of`).
- :data:`N_JUDGED`: the human judgments (or battles with a human verdict) behind an estimate.
- :data:`EFFECTIVE_N`: the judgments the classical estimate would need for the same interval
  (:func:`debias.stats.common.intervals.effective_n`).
- :data:`NOTE`: why a value is missing (empty when nothing is).
- :data:`LEVEL`: the interval's nominal coverage.
- :data:`CLUSTERS`, :data:`DESIGN_EFFECT` (:data:`CLUSTER_COLUMNS`): with clustered data
  (judgments sharing a question), the clusters behind an estimate and its design effect (its
  variance over the variance with independent judgments), just before :data:`NOTE`; a table of
  estimates none of which is clustered has neither column (:func:`with_cluster_columns`).

The leaderboards (:data:`debias.tables.leaderboard.LEADERBOARD_COLUMNS`, of ratings and of
preferences alike, both built by :func:`debias.tables.leaderboard.leaderboard_rows`) keep
:data:`LEADERBOARD_INTERVAL`, ``lower``/``upper``: the paper run's ``leaderboard.csv`` predates
the vocabulary and stays byte-identical. No other table uses those names, nor the retired
:data:`RETIRED` ones.
"""

from __future__ import annotations

__all__ = [
    "CI_HIGH",
    "CI_LOW",
    "CLUSTERS",
    "CLUSTER_COLUMNS",
    "DESIGN_EFFECT",
    "EFFECTIVE_N",
    "INTERVAL",
    "LEADERBOARD_INTERVAL",
    "LEVEL",
    "NOTE",
    "N_JUDGED",
    "RETIRED",
    "cluster_values",
    "clustered",
    "interval_of",
    "with_cluster_columns",
]

CI_LOW = "ci_low"
CI_HIGH = "ci_high"
#: The bounds of an estimate's interval.
INTERVAL = (CI_LOW, CI_HIGH)
#: The interval's bounds in the leaderboards only (the paper run's ``leaderboard.csv``).
LEADERBOARD_INTERVAL = ("lower", "upper")
N_JUDGED = "n_judged"
EFFECTIVE_N = "effective_n"
NOTE = "note"
LEVEL = "level"
CLUSTERS = "clusters"
DESIGN_EFFECT = "design_effect"
#: The columns of clustered estimates: the clusters behind each (an integer) and its design effect.
CLUSTER_COLUMNS = (CLUSTERS, DESIGN_EFFECT)
#: Former names, used by no table: ``n_human`` (now :data:`N_JUDGED`), ``reason`` (now
#: :data:`NOTE`), ``bias_lower``/``bias_upper`` (now ``bias_ci_low``/``bias_ci_high``).
RETIRED = ("n_human", "reason", "bias_lower", "bias_upper", "low", "high")


def interval_of(quantity: str) -> tuple[str, str]:
    """The interval columns of a derived quantity: ``("<quantity>_ci_low", "<quantity>_ci_high")``."""
    return f"{quantity}_{CI_LOW}", f"{quantity}_{CI_HIGH}"


def clustered(results) -> bool:
    """Whether some result (a :class:`~debias.stats.common.joint.JointEstimate`, or anything with
    ``n_clusters``) rests on clustered data: only then do its tables get :data:`CLUSTER_COLUMNS`."""
    return any(getattr(result, "n_clusters", None) is not None for result in results)


def cluster_values(result, index) -> dict:
    """``{clusters, design_effect}`` of system ``index`` of ``result`` (missing when it has none)."""
    n, effect = getattr(result, "n_clusters", None), getattr(result, "design_effect", None)
    return {
        CLUSTERS: None if n is None else int(n[index]),
        DESIGN_EFFECT: float("nan") if effect is None else float(effect[index]),
    }


def with_cluster_columns(frame, columns, *, clustered: bool):
    """``frame`` with ``columns`` in order, :data:`CLUSTER_COLUMNS` among them just before
    :data:`NOTE` (or last) when ``clustered``; ``clusters`` as whole numbers (empty where missing).
    Without ``clustered`` the columns are ``columns``, as for data of independent judgments."""
    import pandas as pd

    columns = list(columns)
    if not clustered:
        return frame[columns]
    at = columns.index(NOTE) if NOTE in columns else len(columns)
    columns[at:at] = list(CLUSTER_COLUMNS)
    frame = frame.reindex(columns=columns)
    frame[CLUSTERS] = pd.to_numeric(frame[CLUSTERS]).astype("Int64")
    frame[DESIGN_EFFECT] = frame[DESIGN_EFFECT].astype(float)
    return frame
