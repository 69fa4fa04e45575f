"""Figures of the reproduction: Figure 1 (system- and instance-level agreement),
Figure 3 (inverse data efficiency over ρ and γ), Figure 5
(metric-human correlations) and Figure 6 (confidence-interval width against the number of
human judgments), each system's estimated mean human score (``draw_system_scores``) and the
pairwise differences between systems (``draw_comparisons``), the leaderboard with its rank-sets
(``draw_leaderboard``), and systems' win rates or strengths from pairwise verdicts by every
estimator (``draw_preferences``).

Every ``draw_*`` function takes the pipeline's tables (pandas frames) and the parsed config and
returns a :class:`matplotlib.figure.Figure`; none chooses a metric itself (the best metrics come
from ``results/tables/best_metrics.csv``, see :mod:`debias.tables.selection`). :func:`save_figure`
writes a figure as PDF and PNG.
"""

from debias.distribution.extras import missing

try:
    from debias.plots.comparisons import draw_comparisons
    from debias.plots.figure1 import draw_figure1a, draw_figure1b
    from debias.plots.figure3 import draw_figure3
    from debias.plots.figure5 import draw_figure5
    from debias.plots.figure6 import draw_figure6
    from debias.plots.labels import place_labels
    from debias.plots.leaderboard import draw_leaderboard, draw_preference_leaderboard
    from debias.plots.preferences import draw_preferences
    from debias.plots.style import DPI, FIGSIZE, PALETTE, STYLE, new_figure, save_figure
    from debias.plots.system_scores import draw_system_scores
except ModuleNotFoundError as error:
    raise missing(error, "Drawing figures (debias.plots)") from None

__all__ = [
    "DPI",
    "FIGSIZE",
    "PALETTE",
    "STYLE",
    "draw_comparisons",
    "draw_figure1a",
    "draw_figure1b",
    "draw_figure3",
    "draw_figure5",
    "draw_figure6",
    "draw_leaderboard",
    "draw_preference_leaderboard",
    "draw_preferences",
    "draw_system_scores",
    "new_figure",
    "place_labels",
    "save_figure",
]
