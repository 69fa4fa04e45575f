r"""The data model: judgments of items, an evaluation sample, a paired sample of two systems, and
judged pairs (battles of two systems with human and judge verdicts).

Everything the statistics core (:mod:`debias.stats`) computes starts from these frozen types.
Items come first on every axis. Judgments are ragged (item i has :math:`k_i \ge 1` of them), so
they are stored flat, item after item, with their counts: memory grows with the number of
judgments, never with items times the longest list.

Only numpy is imported here: the types are built from arrays. A table becomes judgments through
the one reader of tables, :mod:`debias.io.reader` (:func:`~debias.io.reader.read_judgments` for
one system's, :func:`~debias.io.reader.read_evaluation_table` for a whole evaluation), which
trims names and refuses a rater who judged an item twice.
"""

from __future__ import annotations

from debias.data.judgments import Judgments, as_judgments
from debias.data.names import find_name, shown_name, shown_names
from debias.data.pairs import JudgedPairs, verdict_codes
from debias.data.samples import EvalSample, PairedSample

__all__ = [
    "EvalSample",
    "JudgedPairs",
    "Judgments",
    "PairedSample",
    "as_judgments",
    "find_name",
    "shown_name",
    "shown_names",
    "verdict_codes",
]
