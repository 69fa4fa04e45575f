"""Labels beside scatter points that overlap neither each other, nor the points, nor given
obstacles (contour labels, say), and stay inside the axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

__all__ = ["place_labels"]

# Distances (points) tried between a point and its label, nearest first; a label further away
# than LEADER_DISTANCE gets a thin leader line back to its point.
_DISTANCES = (6, 14, 24, 36, 50, 66)
_LEADER_DISTANCE = 16
# Directions tried at each distance: offset signs and the text alignment that keeps the text
# on that side of the point.
_DIRECTIONS = [
    (1, 0, "left", "center"),
    (1, 1, "left", "bottom"),
    (1, -1, "left", "top"),
    (0, 1, "center", "bottom"),
    (0, -1, "center", "top"),
    (-1, 0, "right", "center"),
    (-1, 1, "right", "bottom"),
    (-1, -1, "right", "top"),
]
_FONTSIZE = 8
_OUTSIDE_COST = 1e9


def _candidate_offsets() -> list[tuple[float, float, str, str]]:
    """Text offsets (points) and alignments around an anchor, nearest first."""
    out = []
    for distance in _DISTANCES:
        for dx, dy, ha, va in _DIRECTIONS:
            scale = distance if dx == 0 or dy == 0 else distance * 0.75
            out.append((dx * scale, dy * scale, ha, va))
    return out


def _overlap_area(a: Bbox, b: Bbox) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0.0) * max(height, 0.0)


def _inside(box: Bbox, frame: Bbox) -> bool:
    return box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1


def place_labels(
    ax: Axes,
    fig: Figure,
    xs: Sequence[float],
    ys: Sequence[float],
    labels: Sequence[str],
    colors: Sequence[str],
    obstacles: Sequence = (),
) -> list[Annotation]:
    """Annotate the points ``(xs[i], ys[i])`` with ``labels[i]`` in ``colors[i]``.

    Points are labelled from left to right. Each label tries the offsets around its point,
    nearest first, and takes the first one that lies inside the axes and collides with no
    point, obstacle or label placed so far; if none is free, the one with the least overlap.
    The figure's layout is frozen first, so that the positions measured here are the saved
    ones. Returns the annotations, in drawing order.
    """
    fig.canvas.draw()
    fig.set_layout_engine("none")
    renderer = fig.canvas.get_renderer()
    axes_box = ax.get_window_extent(renderer)
    pad = 1.5 * fig.dpi / 72.0
    marker_half = 3.5 * fig.dpi / 72.0

    points = ax.transData.transform(np.column_stack([xs, ys]))
    blocked = [
        Bbox.from_extents(px - marker_half, py - marker_half, px + marker_half, py + marker_half) for px, py in points
    ]
    for artist in obstacles:
        if artist is not None and artist.get_visible():
            blocked.append(artist.get_window_extent(renderer))

    placed = []
    for i in np.argsort(np.asarray(xs, dtype=float), kind="stable"):
        best = None
        for dx, dy, ha, va in _candidate_offsets():
            probe = ax.annotate(
                labels[i],
                (xs[i], ys[i]),
                xytext=(dx, dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=_FONTSIZE,
                color=colors[i],
            )
            box = probe.get_window_extent(renderer).padded(pad)
            probe.remove()
            cost = sum(_overlap_area(box, other) for other in blocked)
            cost += 0.0 if _inside(box, axes_box) else _OUTSIDE_COST
            if best is None or cost < best[0]:
                best = (cost, dx, dy, ha, va, box)
            if cost == 0.0:
                break
        _, dx, dy, ha, va, box = best
        leader = np.hypot(dx, dy) > _LEADER_DISTANCE
        text = ax.annotate(
            labels[i],
            (xs[i], ys[i]),
            xytext=(dx, dy),
            textcoords="offset points",
            ha=ha,
            va=va,
            fontsize=_FONTSIZE,
            color=colors[i],
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
            arrowprops={"arrowstyle": "-", "color": colors[i], "lw": 0.6, "shrinkA": 1, "shrinkB": 4}
            if leader
            else None,
        )
        text.set_in_layout(False)
        blocked.append(box)
        placed.append(text)
    return placed
