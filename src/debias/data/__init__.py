r"""The data model: judgments of items, an evaluation sample, a paired sample of two systems, and
judged pairs (battles of two systems with human and judge verdicts).

Everything the statistics core (:mod:`debias.stats`) computes starts from these frozen types.
Items come first on every axis. Judgments are ragged (item i has :math:`k_i \ge 1` of them), so
they are stored flat, item after item, with their counts: memory grows with the number of
judgments, never with items times the longest list.

Only numpy is imported here; the constructors from tables (:meth:`Judgments.from_long`,
:meth:`EvalSample.from_long`) take any frame with ``groupby`` and column access, such as a
pandas DataFrame, without importing pandas themselves.
"""

from __future__ import annotations

from debias.data.judgments import Judgments, as_judgments
from debias.data.pairs import JudgedPairs, verdict_codes
from debias.data.samples import EvalSample, PairedSample

__all__ = ["EvalSample", "JudgedPairs", "Judgments", "PairedSample", "as_judgments", "verdict_codes"]
