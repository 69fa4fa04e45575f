"""Report rows for the numbers read from Table 2's tables: the variances and γ of Table 2, a
claimed ratio of two prompts' γ, the systems' mean judgments, and the claims the released files
cannot check."""

from __future__ import annotations

from debias.config.labels import prompt_label, system_label, task_label
from debias.report.rows import DIFFERS, NOT_CHECKABLE, WITHIN, ComparisonRow, scalar_row, signed
from debias.report.summary import lookup

__all__ = ["gamma_ratio_rows", "not_checkable_rows", "system_mean_rows", "table2_rows"]

REASON_TABLE2 = (
    "Same released judgments and record handling as configured (tasks.<task>.table2); a gap just past "
    "the rounding is consistent with the paper truncating rather than rounding; other handling (shared "
    "judgments once, 5-annotator pilot items kept, the output judged in two records counted as one item) "
    "moves it further."
)
REASON_GAMMA_ROUNDING = (
    "Consistent with the paper's rounded σ_a² and σ_f²: differences below their rounding are magnified in the ratio."
)


def table2_rows(table2, paper_values, config, tol, digits) -> list[ComparisonRow]:
    rows = []
    for entry in paper_values.get("table2") or []:
        task, prompt = entry["task"], entry["prompt"]
        for column, symbol in (("sigma2_a", "σ_a²"), ("sigma2_f", "σ_f²"), ("gamma", "γ")):
            ours = lookup(table2, column, task=task, prompt=prompt)
            reason = REASON_TABLE2
            if column == "gamma" and ours is not None:
                # The paper's gamma is a ratio of two variances it rounds: when ours lies in
                # the interval those rounded variances allow, rounding explains the gap.
                a, f = float(entry["sigma2_a"]), float(entry["sigma2_f"])
                half = tol - 1e-9
                if f > half and (a - half) / (f + half) <= ours <= (a + half) / (f - half):
                    reason = REASON_GAMMA_ROUNDING
            quantity = f"{symbol}, {task_label(config, task)} {prompt_label(config, task, prompt)}"
            key = ("table2", task, prompt, column)
            rows.append(scalar_row(quantity, entry["where"], float(entry[column]), ours, tol, reason, key, digits))
    return rows


def gamma_ratio_rows(table2, paper_values, config) -> list[ComparisonRow]:
    """A claim such as "three-fold": the ratio of two prompts' γ, at the precision stated."""
    rows = []
    for entry in paper_values.get("gamma_ratios") or []:
        task, top, bottom = entry["task"], entry["numerator"], entry["denominator"]
        decimals = int(entry["decimals"])
        quantity = (
            f"γ ratio, {task_label(config, task)} {prompt_label(config, task, top)} / "
            f"{prompt_label(config, task, bottom)}: {entry['description']}"
        )
        row = ComparisonRow(quantity, entry["where"], f"{entry['ratio']:.{decimals}f}", key=("gamma_ratio", task))
        high, low = lookup(table2, "gamma", task=task, prompt=top), lookup(table2, "gamma", task=task, prompt=bottom)
        if high is None or not low:
            row.reason = "No matching rows in Table 2."
        else:
            ours = high / low
            row.ours, row.difference = f"{ours:.3f}", signed(ours - float(entry["ratio"]))
            if abs(ours - float(entry["ratio"])) <= 0.5 * 10.0**-decimals + 1e-9:
                row.agreement = WITHIN
                row.reason = f"Stated to {decimals} decimals: within half a unit of that."
            else:
                row.agreement, row.reason = DIFFERS, REASON_TABLE2
        rows.append(row)
    return rows


REASON_SYSTEM_MEAN = (
    "The paper does not say how it averaged (over outputs or single judgments; null votes as "
    "configured by the prompt's null_as)"
)


def system_mean_rows(by_system, paper_values, config) -> list[ComparisonRow]:
    """A system's mean judgment, or its lead over another system, at the precision stated."""
    rows = []
    for entry in paper_values.get("system_means") or []:
        task, prompt, system, other = entry["task"], entry["prompt"], entry["system"], entry.get("minus")
        decimals = int(entry["decimals"])
        systems = ((config.get("tasks") or {}).get(task) or {}).get("systems") or {}
        subject = system_label(config, task, system) if system in systems else system
        if other:
            subject += f" − {system_label(config, task, other)}"
        quantity = (
            f"{prompt_label(config, task, prompt)} mean, {task_label(config, task)} {subject}: {entry['description']}"
        )
        ours = None
        if by_system is not None and "mean" in by_system.columns:
            ours = lookup(by_system, "mean", task=task, prompt=prompt, system=system)
            if ours is not None and other:
                base = lookup(by_system, "mean", task=task, prompt=prompt, system=other)
                ours = None if base is None else ours - base
        tol = 0.5 * 10.0**-decimals + 1e-9
        key = ("system_mean", task, prompt, system, other)
        rows.append(
            scalar_row(
                quantity, entry["where"], float(entry["mean"]), ours, tol, f"{REASON_SYSTEM_MEAN}.", key, decimals
            )
        )
    return rows


def not_checkable_rows(paper_values) -> list[ComparisonRow]:
    """Claims the released files cannot check (the authors' manual inspection)."""
    return [
        ComparisonRow(
            entry["claim"],
            entry["where"],
            entry["value"],
            agreement=NOT_CHECKABLE,
            reason="From the authors' manual inspection; the released files hold nothing to check it against.",
            key=("not_checkable", entry["claim"]),
        )
        for entry in paper_values.get("not_checkable") or []
    ]
