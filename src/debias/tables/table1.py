"""Table 1 of the paper, one configured panel at a time: load the task's judged system
responses, score them with the panel's metric implementation (if any) and count them in the
quadrants of :func:`debias.tables.bias.bias_quadrants`."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from debias.config.tasks import load_task, references_path
from debias.io.canonical import iter_json_lines
from debias.tables.bias import bias_quadrants, score_systems, unique_responses

__all__ = ["TABLE1_COLUMNS", "table1_panel", "table1_title"]

#: Columns of ``table1.csv`` before the quadrant columns of :data:`debias.tables.bias.QUADRANT_COLUMNS`.
TABLE1_COLUMNS = ["panel", "task", "prompt", "metric"]


def _loading_config(spec: Mapping, config: Mapping) -> dict:
    """The config with the panel task's null votes as the panel says: ``drop`` (default) leaves
    a null vote out of a response's mean (it is no vote), ``as_configured`` keeps ``null_as``."""
    task = spec["task"]
    task_spec = dict(config["tasks"][task])
    if spec.get("null_votes", "drop") == "drop":
        task_spec["prompts"] = {p: {**s, "null_as": float("nan")} for p, s in task_spec["prompts"].items()}
    return {**config, "tasks": {**config["tasks"], task: task_spec}}


def table1_panel(panel: str, spec: Mapping, config: Mapping) -> pd.DataFrame:
    """One panel of Table 1 from the configured data.

    Parameters
    ----------
    panel : str
        The panel's name (``a``, ``b``, ...), written in the ``panel`` column.
    spec : mapping
        The panel's config: ``task``, ``prompt``, ``judgment_threshold``, and optionally
        ``implementation`` (None: split by the judgment alone, two rows), ``metric_threshold``
        (0.5), ``null_votes`` (``drop``) and ``require_judged_reference`` (False: with True only
        the items whose reference text was judged on the prompt are counted, as the paper's
        CNN/Daily Mail analysis did).
    config : mapping
        The workflow config (``data_dir``, ``tasks``, ``metrics``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE1_COLUMNS` then :data:`debias.tables.bias.QUADRANT_COLUMNS`; ``metric`` is
        the implementation's name, empty for a judgment-only split.
    """
    task, prompt, implementation = spec["task"], spec["prompt"], spec.get("implementation")
    loading = _loading_config(spec, config)
    task_spec = loading["tasks"][task]
    systems = list(task_spec["systems"])
    reference_system = task_spec.get("reference_system")
    with_reference = bool(spec.get("require_judged_reference")) and reference_system
    references, items = load_task(loading, task, systems + ([reference_system] if with_reference else []))
    ids = None
    if with_reference:
        ids = {item.id for item in items.pop(reference_system) if item.judgments.get(prompt)}
    scores = score_systems(items, references, implementation) if implementation else None
    inputs = {row["id"]: row.get("input", "") for _, row in iter_json_lines(references_path(loading, task))}
    responses = unique_responses(items, references, prompt, scores, inputs, ids=ids)
    table = bias_quadrants(
        responses,
        spec["judgment_threshold"],
        "m" if implementation else None,
        spec.get("metric_threshold", 0.5),
        task_spec["prompts"][prompt].get("higher_is_better", True),
    )
    for position, (column, value) in enumerate(zip(TABLE1_COLUMNS, (panel, task, prompt, implementation or ""))):
        table.insert(position, column, value)
    return table


def table1_title(spec: Mapping, config: Mapping, total: int) -> str:
    """A panel's heading for ``table1.md``: how many responses, and what good and high mean."""
    from debias.metrics import IMPLEMENTATIONS

    task_spec = config["tasks"][spec["task"]]
    prompt = task_spec["prompts"][spec["prompt"]]
    higher = prompt.get("higher_is_better", True)
    good = f"{prompt['label']} {'≥' if higher else '<'} {spec['judgment_threshold']}"
    implementation = spec.get("implementation")
    if implementation:
        high = f", high when {IMPLEMENTATIONS[implementation].label} > {spec.get('metric_threshold', 0.5)}"
    else:
        high = " (no metric configured: split by the judgment alone)"
    return f"{total} judged {task_spec['label']} responses, good when {good}{high}"
