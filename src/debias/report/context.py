"""What the report's sections read (:class:`ReportContext`), and the table and number
formatting they share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from debias.report.comparison import NOT_COMPUTED, ComparisonRow, PaperPanel, comparison_rows, paper_panels
from debias.report.summary import configured_panels
from debias.tables.render import to_markdown

__all__ = ["ReportContext", "Section", "fmt", "table_lines"]


@dataclass
class ReportContext:
    """What the sections of the report read: the pipeline's tables, the paper's values, the
    configuration, the names of the figures that exist and the folders of figures and tables
    relative to the report."""

    table2: pd.DataFrame
    correlations: pd.DataFrame
    best_metrics: pd.DataFrame
    data_efficiency: pd.DataFrame
    paper_values: Mapping
    config: Mapping
    figures: frozenset[str]
    figures_dir: str
    tables_dir: str
    system_estimates: pd.DataFrame | None = None
    coverage: pd.DataFrame | None = None
    table1: pd.DataFrame | None = None
    figure1: pd.DataFrame | None = None
    comparisons: pd.DataFrame | None = None
    comparison_coverage: pd.DataFrame | None = None
    plan: pd.DataFrame | None = None
    plan_check: pd.DataFrame | None = None
    by_system: pd.DataFrame | None = None
    leaderboard: pd.DataFrame | None = None

    @cached_property
    def rows(self) -> list[ComparisonRow]:
        """One row per number the paper states."""
        return comparison_rows(
            self.table2,
            self.correlations,
            self.best_metrics,
            self.data_efficiency,
            self.paper_values,
            self.config,
            self.table1,
            self.figure1,
            self.by_system,
        )

    @cached_property
    def paper_panels(self) -> list[PaperPanel]:
        """The paper's Figure 6 numbers, resolved against the configuration."""
        return paper_panels(self.paper_values, self.config, self.best_metrics, self.data_efficiency)

    @cached_property
    def panels(self) -> dict[str, dict]:
        """The configured Figure 6 panels by letter, their metrics resolved."""
        return {p["name"]: p for p in configured_panels(self.config, self.best_metrics)}

    def table_link(self, name: str) -> str:
        return f"{self.tables_dir}/{name}.csv"


Section = Callable[[ReportContext], list[str]]


def table_lines(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table of text cells, every column left to the renderer's default alignment."""
    frame = pd.DataFrame(rows, columns=header, dtype=object)
    return to_markdown(frame, align=["default"] * len(header)).rstrip("\n").split("\n")


def fmt(value: float | None) -> str:
    return NOT_COMPUTED if value is None else f"{value:.3f}"
