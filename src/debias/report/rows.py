"""The building blocks of the paper-vs-reproduction rows: their statuses, the row type and the
row of one scalar. :mod:`debias.report.comparison` and the per-artefact row modules
(:mod:`debias.report.table2_rows`, :mod:`debias.report.bias_rows`) build on them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from debias.config.labels import metric_label

__all__ = [
    "DIFFERS",
    "NOT_CHECKABLE",
    "NOT_COMPARABLE",
    "NOT_COMPUTED",
    "OTHER_METRIC",
    "WITHIN",
    "ComparisonRow",
    "PaperPanel",
    "metric_reason",
    "paper_metric",
    "scalar_row",
    "signed",
    "tolerance",
]

NOT_COMPUTED = "not computed"
WITHIN = "within rounding"
DIFFERS = "differs"
OTHER_METRIC = "different metric"
NOT_CHECKABLE = "not checkable"
NOT_COMPARABLE = "not comparable"

# Why a number may differ, by kind of number. Each is one line in the report's table.
# What each of today's implementations differs from in the paper, by implementation name.
REASON_IMPLEMENTATION = {
    "rouge-score-1": "ROUGE-1 from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "rouge-score-2": "ROUGE-2 from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "rouge-score-L": "ROUGE-L from rouge-score (Python) vs the paper's ROUGE-1.5.5 (Perl, stop words removed)",
    "nltk-meteor": "METEOR from NLTK vs the paper's METEOR 1.5 (Java)",
    "sacrebleu": "BLEU implementation not stated in the paper",
}
REASON_VECSIM = "The paper used VecSim (sent2vec sentence embeddings), which this project does not have"
REASON_RANGE = "The paper does not say which systems, prompts and metrics its range spans"


@dataclass
class ComparisonRow:
    """One number the paper states, next to ours."""

    quantity: str
    where: str
    paper: str
    ours: str = NOT_COMPUTED
    difference: str = "—"
    agreement: str = NOT_COMPUTED
    reason: str = ""
    key: tuple = field(default=(), compare=False)


@dataclass
class PaperPanel:
    """A Figure 6 number of the paper and how the reproduction meets it.

    ``status`` is ``"compared"`` (we compute the paper's metric), ``"not comparable"`` (we
    do not, but compare another of the panel's numbers) or ``"substituted"`` (we compare the
    metric our configuration uses for that panel: ``metric``, ``chosen_as_best``). ``de`` is
    our data efficiency of the compared metric, ``None`` when the tables do not hold it.
    """

    entry: Mapping
    status: str
    metric: str | None = None
    chosen_as_best: bool = False
    de: float | None = None

    @property
    def missing(self) -> str:
        """The paper's metric and why we do not compute it, e.g. "VecSim, which this project
        does not have"."""
        if self.entry.get("available") is False:
            return f"{self.entry['metric_label']}, which this project does not have"
        return f"{self.entry['metric_label']}, which the configuration does not compute"

    @property
    def missing_reason(self) -> str:
        """Why the paper's number is not compared as it stands, as a sentence."""
        return REASON_VECSIM if self.entry["metric"] == "vecsim" else f"The paper used {self.missing}"


def paper_metric(entry: Mapping, config: Mapping) -> str | None:
    """The configured metric that stands for the paper's metric of ``entry``: the one computed by
    the paper's implementation (``entry["implementation"]``) when configured, else the metric of
    the paper's name, else ``None``."""
    from debias.metrics import resolve_implementations

    implementations = resolve_implementations(config.get("metrics") or {})
    wanted = entry.get("implementation")
    same = [name for name, implementation in implementations.items() if wanted and implementation == wanted]
    if same:
        return same[0]
    return entry["metric"] if entry["metric"] in (config.get("metrics") or {}) else None


def metric_reason(config: Mapping, metric: str, paper_implementation: str | None = None) -> str:
    """Why a number computed with the configured ``metric`` may differ from the paper's."""
    from debias.metrics import resolve_implementations

    implementation = resolve_implementations(config.get("metrics") or {}).get(metric)
    if implementation is not None and implementation == paper_implementation:
        return f"{metric_label(config, metric)} is the paper's implementation"
    return REASON_IMPLEMENTATION.get(implementation, "metric implementation differs")


def tolerance(paper_values: Mapping) -> float:
    """Half a unit in the paper's last stated digit (plus floating-point slack)."""
    return 0.5 * 10.0 ** (-int(paper_values.get("decimals", 2))) + 1e-9


def _fmt(value: float | None, digits: int = 3) -> str:
    return NOT_COMPUTED if value is None else f"{value:.{digits}f}"


def signed(value: float, digits: int = 3) -> str:
    return f"{value:+.{digits}f}"


def scalar_row(quantity, where, paper, ours, tol, reason, key, paper_digits) -> ComparisonRow:
    row = ComparisonRow(quantity=quantity, where=where, paper=f"{paper:.{paper_digits}f}", key=key)
    if ours is None:
        row.reason = "No matching row in the input tables."
        return row
    row.ours = _fmt(ours)
    row.difference = signed(ours - paper)
    if abs(ours - paper) <= tol:
        row.agreement, row.reason = WITHIN, "—"
    else:
        row.agreement, row.reason = DIFFERS, reason
    return row
