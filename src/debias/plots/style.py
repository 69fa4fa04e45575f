"""One look for every figure: sizes, resolution, colours, rc settings, and the writer that saves
a figure as PDF and PNG.

Figures are built on the object-oriented API with an explicit Agg canvas, so nothing here
touches pyplot's global state or the process-wide backend.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import unicodedata
import warnings
from pathlib import Path

import matplotlib as mpl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from debias.io.atomic import atomic_path

__all__ = [
    "CONDITION_STYLES",
    "CORRELATION_CMAP",
    "DPI",
    "FIGSIZE",
    "PALETTE",
    "STYLE",
    "TASK_STYLES",
    "fit_fonts",
    "shorten_tick_labels",
    "grow_to_fit",
    "new_figure",
    "save_figure",
]

#: Raster resolution of every PNG (dots per inch).
DPI = 200

#: Figure sizes in inches, one per kind of figure. PNGs are FIGSIZE x DPI pixels.
FIGSIZE: dict[str, tuple[float, float]] = {
    "figure1": (3.4, 3.0),
    "figure3": (6.4, 4.6),
    "figure5": (6.4, 3.8),
    "figure6": (6.4, 4.4),
}

#: Okabe-Ito palette: distinguishable under the common colour-vision deficiencies.
PALETTE: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "grey": "#7F7F7F",
}

#: Diverging colormap for correlations (ColorBrewer PuOr: colour-blind safe), centred at 0.
CORRELATION_CMAP = "PuOr"

#: One style for every figure: bundled font, so output does not depend on system fonts.
STYLE: dict[str, object] = {
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.6,
    "pdf.fonttype": 42,
    "savefig.dpi": DPI,
}

#: Colour and marker of each task in Figure 3, in configuration order (cycled).
TASK_STYLES: list[dict[str, str]] = [
    {"color": PALETTE["blue"], "marker": "o"},
    {"color": PALETTE["vermillion"], "marker": "s"},
    {"color": PALETTE["bluish_green"], "marker": "^"},
    {"color": PALETTE["reddish_purple"], "marker": "D"},
]

#: Colour and line style of each bootstrap condition in Figure 6.
CONDITION_STYLES: dict[str, dict[str, str]] = {
    "mean": {"color": PALETTE["black"], "linestyle": "-"},
    "cv": {"color": PALETTE["blue"], "linestyle": "-"},
    "noiseless": {"color": PALETTE["vermillion"], "linestyle": ":"},
    "perfect": {"color": PALETTE["bluish_green"], "linestyle": ":"},
}

# Metadata that would change from run to run (creation dates, software version) is left out.
_METADATA = {"pdf": {"CreationDate": None, "ModDate": None}, "png": {"Software": None}}


# Fonts a label's characters are looked for in when the figures' own font lacks them, by name
# first (the common CJK fonts), then any other installed font; matplotlib's "Last Resort" font
# draws every character as a box and is no fallback.
_PREFERRED = ("Noto Sans CJK", "Noto Serif CJK", "Source Han", "WenQuanYi", "Droid Sans Fallback", "AR PL", "Noto Sans")
_NO_FALLBACK = ("Last Resort",)


@functools.lru_cache(maxsize=256)
def _characters(path: str) -> frozenset[int]:
    """The code points a font file has glyphs for (empty when it cannot be read)."""
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


def _drawn(text: str) -> set[int]:
    """The code points of ``text`` a font must draw (not spaces or control characters)."""
    return {ord(ch) for ch in text if not ch.isspace() and unicodedata.category(ch)[0] != "C"}


@functools.lru_cache(maxsize=64)
def _fallback_font(missing: frozenset[int]) -> str | None:
    """The name of an installed font with a glyph for each of ``missing``, or ``None``."""
    from matplotlib import font_manager

    fonts = [f for f in font_manager.fontManager.ttflist if not f.name.startswith(_NO_FALLBACK)]
    fonts.sort(key=lambda f: next((k for k, name in enumerate(_PREFERRED) if f.name.startswith(name)), len(_PREFERRED)))
    return next((f.name for f in fonts if missing <= _characters(f.fname)), None)


def fit_fonts(fig: Figure) -> None:
    """Give each text of ``fig`` whose characters the figures' font (:data:`STYLE`) lacks a
    fallback list with an installed font that has them (a CJK font for Chinese, Japanese or
    Korean names); when none has them, one :class:`~debias.io.canonical.InputWarning` names the
    labels drawn as boxes and the Debian package with the glyphs (matplotlib's own warning per
    character is silenced while the figure is laid out and saved: :func:`_glyph_warnings_silenced`)."""
    from matplotlib import font_manager

    from debias.io.canonical import InputWarning

    base = STYLE["font.family"]
    have = _characters(font_manager.findfont(font_manager.FontProperties(family=base)))
    lacking = [(t, _drawn(t.get_text()) - have) for t in fig.findobj(Text) if t.get_text()]
    lacking = [(t, missing) for t, missing in lacking if missing]
    if not lacking:
        return
    fallback = _fallback_font(frozenset().union(*(missing for _, missing in lacking)))
    if fallback is not None:
        for text, _ in lacking:
            text.set_fontfamily([base, fallback])
        return
    labels = list(dict.fromkeys(text.get_text() for text, _ in lacking))
    if getattr(fig, "_debias_fonts_told", None) == labels:  # laid out, then saved: told once
        return
    fig._debias_fonts_told = labels  # type: ignore[attr-defined]
    cjk = any(_is_cjk(chr(c)) for _, missing in lacking for c in missing)
    package = "fonts-noto-cjk" if cjk else "fonts-noto-core"
    shown = ", ".join(repr(label) for label in labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
    warnings.warn(
        f"figure labels {shown}: no installed font has their characters, so they are drawn as boxes"
        f" (install a font with them, such as the Debian package {package})",
        InputWarning,
        stacklevel=3,
    )


#: A tick label longer than this many characters is drawn shortened in its middle
#: (:func:`shorten_tick_labels`).
LONGEST_LABEL = 48


def shorten_tick_labels(fig: Figure) -> None:
    """Draw every tick label of ``fig`` longer than :data:`LONGEST_LABEL` characters as its
    start and end around an ellipsis (names that differ at the end, as versions do, stay
    apart), with one :class:`~debias.io.canonical.InputWarning` saying how many; without it a
    5,000-character system name squeezes the axes to nothing."""
    from debias.io.canonical import InputWarning

    shortened = 0
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            locations = axis.get_majorticklocs()
            labels = [str(label) for label in axis.get_major_formatter().format_ticks(locations)]
            short = [_shortened(label) for label in labels]
            if short == labels:
                continue
            shortened += sum(a != b for a, b in zip(labels, short))
            drawn = axis.get_majorticklabels()
            kept = {"rotation": drawn[0].get_rotation(), "ha": drawn[0].get_ha()} if drawn else {}
            axis.set_ticks(locations, short, **kept)
    if shortened:
        warnings.warn(
            f"{shortened} figure label(s) longer than {LONGEST_LABEL} characters drawn shortened in the middle",
            InputWarning,
            stacklevel=3,
        )


def _shortened(label: str) -> str:
    """``label`` if it is short enough, else its start and end around an ellipsis."""
    if len(label) <= LONGEST_LABEL:
        return label
    head = (LONGEST_LABEL - 1) * 2 // 3
    return f"{label[:head]}…{label[len(label) - (LONGEST_LABEL - 1 - head) :]}"


def _is_cjk(ch: str) -> bool:
    """Whether ``ch`` is of Chinese, Japanese or Korean writing."""
    name = unicodedata.name(ch, "")
    return name.startswith(
        ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC", "HALFWIDTH", "FULLWIDTH")
    )


@contextlib.contextmanager
def _glyph_warnings_silenced():
    """matplotlib's warning per character a font lacks, silenced: :func:`fit_fonts` says it once."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        yield


def new_figure(kind: str) -> Figure:
    """An empty figure of the size of ``kind`` (``figure3``, ``figure5``, ``figure6``) on its own
    Agg canvas, with constrained layout."""
    fig = Figure(figsize=FIGSIZE[kind], dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _tight_box(fig: Figure):
    """The tight bounding box (inches) of ``fig`` laid out, measured on a copy so that ``fig``
    itself is laid out only when saved (a second layout pass would move it by a pixel)."""
    copy = pickle.loads(pickle.dumps(fig))
    FigureCanvasAgg(copy)
    copy.draw_without_rendering()
    return copy.get_tightbbox()


def grow_to_fit(fig: Figure, margin: float = 0.08, rounds: int = 4) -> Figure:
    """Enlarge ``fig`` until everything it draws lies on the canvas; returns ``fig``.

    Constrained layout fits the axes to the figure but cannot shrink a title, a legend or a
    row of tick labels wider than the canvas; those are clipped when saved. Here a copy of the
    figure is laid out, and while its tight bounding box reaches past an edge the canvas grows
    by the overhang (plus ``margin`` inches) and is measured again. A figure that fits is left
    exactly as it was. Labels get the fonts their characters need first (:func:`fit_fonts`).
    """
    shorten_tick_labels(fig)
    fit_fonts(fig)
    with _glyph_warnings_silenced():
        return _grow_to_fit(fig, margin, rounds)


def _grow_to_fit(fig: Figure, margin: float, rounds: int) -> Figure:
    for _ in range(rounds):
        box = _tight_box(fig)
        width, height = fig.get_size_inches()
        extra_w = max(0.0, -box.x0) + max(0.0, box.x1 - width)
        extra_h = max(0.0, -box.y0) + max(0.0, box.y1 - height)
        if extra_w <= 0 and extra_h <= 0:
            break
        fig.set_size_inches(
            width + (extra_w + margin if extra_w > 0 else 0), height + (extra_h + margin if extra_h > 0 else 0)
        )
    return fig


def save_figure(fig: Figure, path_without_suffix: str | os.PathLike) -> list[Path]:
    """Write ``fig`` as ``<path>.pdf`` (vector) and ``<path>.png`` (:data:`DPI`); returns both paths.

    Each file is written under a temporary name beside its target and renamed into place, so
    an interrupted save never leaves a truncated figure; the same figure gives the same bytes
    on every run.
    """
    base = Path(path_without_suffix)
    written = []
    shorten_tick_labels(fig)
    fit_fonts(fig)
    with mpl.rc_context(STYLE), _glyph_warnings_silenced():
        for suffix in ("pdf", "png"):
            target = base.with_name(f"{base.name}.{suffix}")
            with atomic_path(target) as tmp:
                fig.savefig(tmp, format=suffix, dpi=DPI, metadata=_METADATA[suffix])
            written.append(target)
    return written


#: How an interval estimate is drawn in the interval figures: the plain mean in black circles,
#: the control-variate estimate in blue squares, side by side around the row's position.
ESTIMATE_STYLES = {
    "mean": {"color": PALETTE["black"], "marker": "o", "offset": -0.14},
    "cv": {"color": PALETTE["blue"], "marker": "s", "offset": 0.14},
}


def draw_interval(ax, value: float, low: float, high: float, y: float, kind: str) -> float:
    """One estimate with its interval as a horizontal error bar at row ``y`` in the style of
    ``kind`` (a key of :data:`ESTIMATE_STYLES`); returns the bar's vertical position."""
    style = ESTIMATE_STYLES[kind]
    position = y + style["offset"]
    ax.errorbar(
        value,
        position,
        xerr=[[value - low], [high - value]],
        fmt=style["marker"],
        color=style["color"],
        markersize=4,
        capsize=2,
        linewidth=1.2,
    )
    return position


def label_interval(ax, text: str, high: float, position: float, kind: str, fontsize: float = 6.5) -> None:
    """Write ``text`` just right of an interval drawn by :func:`draw_interval` (its upper end
    ``high`` at height ``position``), in the colour of ``kind``."""
    ax.annotate(
        text,
        (high, position),
        xytext=(3, 0),
        textcoords="offset points",
        va="center",
        fontsize=fontsize,
        color=ESTIMATE_STYLES[kind]["color"],
    )


def estimate_legend_handles(mean_label: str, cv_label: str) -> list:
    """Legend entries for the two kinds of :data:`ESTIMATE_STYLES`."""
    from matplotlib.lines import Line2D

    return [
        Line2D([], [], color=ESTIMATE_STYLES[kind]["color"], marker=ESTIMATE_STYLES[kind]["marker"], label=label)
        for kind, label in (("mean", mean_label), ("cv", cv_label))
    ]
