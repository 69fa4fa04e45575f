"""The reproduction report: one Markdown page comparing every number the paper states with the
value this pipeline computed, followed by the figures and links to the tables.

The paper's numbers come only from ``data/paper/reported_values.yaml`` (:mod:`.paper_values`)
and appear only in the "Paper" column; every value in the "Ours" column is read from the
pipeline's tables (:mod:`.comparison`, :mod:`.summary`). A number the tables do not contain is
reported as "not computed". :mod:`.markdown` assembles the page.
"""

from debias.report.markdown import build_report
from debias.report.paper_values import load_paper_values

__all__ = ["build_report", "load_paper_values"]
