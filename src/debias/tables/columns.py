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
    "EFFECTIVE_N",
    "INTERVAL",
    "LEADERBOARD_INTERVAL",
    "LEVEL",
    "NOTE",
    "N_JUDGED",
    "RETIRED",
    "interval_of",
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
#: Former names, used by no table: ``n_human`` (now :data:`N_JUDGED`), ``reason`` (now
#: :data:`NOTE`), ``bias_lower``/``bias_upper`` (now ``bias_ci_low``/``bias_ci_high``).
RETIRED = ("n_human", "reason", "bias_lower", "bias_upper", "low", "high")


def interval_of(quantity: str) -> tuple[str, str]:
    """The interval columns of a derived quantity: ``("<quantity>_ci_low", "<quantity>_ci_high")``."""
    return f"{quantity}_{CI_LOW}", f"{quantity}_{CI_HIGH}"
