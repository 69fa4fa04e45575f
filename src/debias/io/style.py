r"""Style covariates of responses, counted from their texts.

Given a response's text, the numbers style control adjusts for (:mod:`debias.stats.preferences.design`),
as Chatbot Arena's style control counts them (the LMSYS blog post "Does style matter?", 2024):

``length``
    Characters (AlpacaEval 2.0's length is characters too).
``headers``
    Markdown headers: lines starting with one to six ``#`` and a space.
``lists``
    List items: lines starting, after indentation, with ``-``, ``*`` or ``+`` and a space, or with
    a number, a full stop and a space.
``bold``
    Bold spans: ``**text**`` or ``__text__`` within a line.

A pair table names its two response columns as the covariate ``style``
(``covariates={"style": ("response_a", "response_b")}``, ``--covariate style=response_a,response_b``):
the four covariates above are then counted on each side. A missing text is an error naming its row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from debias.stats.preferences import STYLE_COVARIATES

__all__ = ["STYLE", "STYLE_COVARIATES", "covariate_names", "style_counts"]

#: The covariate name that stands for the four counts of two response columns.
STYLE = "style"

_HEADER = re.compile(r"^#{1,6} ", re.MULTILINE)
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


def style_counts(texts: Iterable[str]) -> dict[str, np.ndarray]:
    """The four counts of :data:`STYLE_COVARIATES` for each text.

    Examples
    --------
    >>> counts = style_counts(["# Title\\n- a\\n- **b**\\n1. c", "plain"])
    >>> {name: value.tolist() for name, value in counts.items()}
    {'length': [24.0, 5.0], 'headers': [1.0, 0.0], 'lists': [3.0, 0.0], 'bold': [1.0, 0.0]}
    """
    texts = list(texts)
    return {
        "length": np.array([len(t) for t in texts], dtype=float),
        "headers": np.array([len(_HEADER.findall(t)) for t in texts], dtype=float),
        "lists": np.array([len(_LIST.findall(t)) for t in texts], dtype=float),
        "bold": np.array([len(_BOLD.findall(t)) for t in texts], dtype=float),
    }


def covariate_names(spec: Mapping[str, Sequence[str]] | Sequence[str]) -> list[str]:
    """The covariates a specification gives, :data:`STYLE` read as its four counts."""
    names: list[str] = []
    for name in spec:
        names.extend(STYLE_COVARIATES if name == STYLE else [name])
    return names
