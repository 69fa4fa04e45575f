"""Ordering and Markdown rendering of the data-efficiency grid."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.labels import condition_label, prompt_label, system_label, task_label
from debias.tables.render import to_markdown

#: The conditions compared with humans alone, in table order.
CONDITIONS = ("cv", "noiseless", "perfect")


def sort_efficiency(table: pd.DataFrame, tasks: Mapping, metrics: Mapping) -> pd.DataFrame:
    """Rows in config order (task, prompt, system), then condition, then metric."""

    def rank(values, order):
        position = {name: i for i, name in enumerate(order)}
        return values.map(lambda v: position.get(v, len(position)))

    keys = pd.DataFrame(
        {
            "task": rank(table["task"], list(tasks)),
            "prompt": [list(tasks[t]["prompts"]).index(p) for t, p in zip(table["task"], table["prompt"])],
            "system": [list(tasks[t]["systems"]).index(s) for t, s in zip(table["task"], table["system"])],
            "condition": rank(table["condition"], CONDITIONS),
            "metric": rank(table["metric"], list(metrics) + ["perfect"]),
        }
    )
    order = keys.sort_values(list(keys.columns), kind="mergesort").index
    return table.loc[order].reset_index(drop=True)


def efficiency_markdown(table: pd.DataFrame, tasks: Mapping, metrics: Mapping) -> str:
    """One table per task and prompt: rows are condition x metric, columns are systems,
    cells read "bootstrap DE (theory DE)"."""
    config = {"tasks": tasks, "metrics": metrics}
    out = [
        "# Data efficiency",
        "",
        "Each cell: data efficiency from the bootstrap, with the theory's (1+γ)/(1−ρ²+γ) in brackets "
        "(noiseless: (1+γ)/(1−ρ²); perfect metric: (1+γ)/γ). Values above 1 mean fewer human judgments "
        "are needed for the same confidence-interval width.",
        "",
    ]
    for task, spec in tasks.items():
        for prompt in spec["prompts"]:
            part = table[(table["task"] == task) & (table["prompt"] == prompt)]
            if part.empty:
                continue
            systems = [s for s in spec["systems"] if s in set(part["system"])]
            cells = {
                (row.system, row.metric, row.condition): f"{row.de:.2f} ({row.de_theory:.2f})"
                for row in part.itertuples(index=False)
            }
            rows = [
                [condition_label(config, condition, metric)] + [cells.get((s, metric, condition), "–") for s in systems]
                for condition in CONDITIONS
                for metric in (["perfect"] if condition == "perfect" else list(metrics))
            ]
            grid = pd.DataFrame(rows, columns=["condition"] + systems, dtype=object)
            headers = ["condition"] + [system_label(config, task, s) for s in systems]
            out += [f"## {task_label(config, task)} — {prompt_label(config, task, prompt)}", ""]
            out.append(to_markdown(grid, headers=headers, align=["default"] + ["right"] * len(systems)))
    return "\n".join(out)
