"""Figure: a question's anytime-valid intervals narrowing as the votes arrive
(:func:`debias.stats.preferences.status.status_path`)."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from debias.plots.style import DPI, PALETTE, STYLE
from debias.stats.common.vocabulary import ESTIMAND_LABELS

__all__ = ["draw_status_path"]


def _inside(estimate, low, high):
    """The estimate drawn inside its interval: the intervals are clipped to the estimand's range
    (a win rate in [0, 1]) and an early PPI++ estimate can fall outside it, where the nearest
    value of the range is the better estimate; where there is no interval, the estimate as is."""
    return np.fmin(np.fmax(estimate, low), high)


_COLOURS = [
    PALETTE["blue"],
    PALETTE["vermillion"],
    PALETTE["bluish_green"],
    PALETTE["orange"],
    PALETTE["black"],
    PALETTE["grey"],
]
#: At most this many systems are drawn (the best by the last look's estimate).
MAX_SYSTEMS = 6


def draw_status_path(path, *, title: str = "", axis_label: str | None = None) -> Figure:
    """The question's intervals against the votes so far: for ``better:A,B`` the difference
    A - B with its interval and 0; otherwise each system's interval (the best
    :data:`MAX_SYSTEMS` by the last estimate); the look at which the question is settled, if it
    is, as a dotted line. ``axis_label`` defaults to the label of the status's estimand
    (:data:`~debias.stats.common.vocabulary.ESTIMAND_LABELS`)."""
    if axis_label is None:
        axis_label = ESTIMAND_LABELS.get(path.status.estimand, path.status.estimand)
    with mpl.rc_context(STYLE):
        fig = Figure(figsize=(6.4, 3.6), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        votes = path.votes
        if path.question.kind == "better":
            estimate, low, high = path.contrast.T
            a, b = path.question.systems
            ax.fill_between(votes, low, high, color=PALETTE["blue"], alpha=0.25, linewidth=0)
            ax.plot(votes, _inside(estimate, low, high), color=PALETTE["blue"], label=f"{a} − {b}")
            ax.axhline(0.0, color=PALETTE["black"], linewidth=0.8)
            ax.set_ylabel(f"difference of {axis_label}")
        else:
            last = np.where(np.isfinite(path.estimate[-1]), path.estimate[-1], -np.inf)
            order = np.argsort(-last, kind="stable")[:MAX_SYSTEMS]
            for k, i in enumerate(order):
                if not np.isfinite(last[i]):
                    continue
                colour = _COLOURS[k % len(_COLOURS)]
                ax.fill_between(votes, path.ci_low[:, i], path.ci_high[:, i], color=colour, alpha=0.15, linewidth=0)
                line = _inside(path.estimate[:, i], path.ci_low[:, i], path.ci_high[:, i])
                ax.plot(votes, line, color=colour, label=path.systems[i])
            ax.set_ylabel(axis_label)
        if path.resolved.any():
            settled = votes[np.argmax(path.resolved)]
            ax.axvline(settled, color=PALETTE["grey"], linestyle=":", label=f"settled at {settled:,} votes")
        ax.set_xlabel("votes (battles with a human verdict, in the table's order)")
        ax.set_title(f"{title}: {path.question.text}" if title else path.question.text)
        ax.legend(loc="best", fontsize="small")
    return fig
