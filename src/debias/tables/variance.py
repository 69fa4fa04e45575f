"""Table 2 and the per-system variance components, from the joined tables.

Which judged lines a task pools, and how often each counts, is a :class:`RecordHandling`; the
components themselves are :func:`debias.stats.ratings.variance.variance_components`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from debias.data import Judgments
from debias.stats.ratings import variance_components
from debias.tables.joined import JOINED_COLUMNS, judged_rows

__all__ = [
    "RecordHandling",
    "TABLE2_COLUMNS",
    "by_task",
    "noted_rows",
    "pooled_judged_rows",
    "table2",
    "variance_by_system",
]


@dataclass(frozen=True)
class RecordHandling:
    """Which judged lines of a task Table 2 pools, and how often each counts.

    ``shared_judgments``: a judgment that several systems' lines share (their
    ``judged_output``) counts ``"once"``, or once for each system (``"per_system"``), as the
    paper's analysis counted the MS MARCO answers several systems gave. ``once`` treats each
    judgment as one observation; ``per_system`` weighs an answer by how many systems gave it.

    ``require_judged_reference``: leave out the lines of items whose reference
    (``reference_system``) has no judgment on the prompt, as the paper's analysis did for
    CNN/Daily Mail, where these are the pilot batch (five annotators per summary, articles
    whose references were never judged). ``False`` keeps every judged line.

    ``judgment_records``: an output judged in several crowd records (its line's
    ``judgment_records``) is one item whose judgments are all of them (``"merged"``), or one
    item per record (``"separate"``), as the paper's analysis counted the CNN/Daily Mail
    summary that was judged twice.
    """

    shared_judgments: str = "once"
    require_judged_reference: bool = False
    reference_system: str | None = None
    judgment_records: str = "merged"

    def __post_init__(self):
        if self.shared_judgments not in SHARED_JUDGMENTS:
            raise ValueError(f"shared_judgments must be one of {SHARED_JUDGMENTS}, not {self.shared_judgments!r}")
        if self.judgment_records not in JUDGMENT_RECORDS:
            raise ValueError(f"judgment_records must be one of {JUDGMENT_RECORDS}, not {self.judgment_records!r}")
        if self.require_judged_reference and not self.reference_system:
            raise ValueError("require_judged_reference needs the name of the reference system")

    @classmethod
    def from_config(cls, task_config: Mapping) -> RecordHandling:
        """From a task's configuration (its ``table2`` entry and ``reference_system``)."""
        options = task_config.get("table2") or {}
        return cls(
            shared_judgments=options.get("shared_judgments", "once"),
            require_judged_reference=bool(options.get("require_judged_reference", False)),
            reference_system=task_config.get("reference_system"),
            judgment_records=options.get("judgment_records", "merged"),
        )


SHARED_JUDGMENTS = ("once", "per_system")
JUDGMENT_RECORDS = ("merged", "separate")


def split_judgment_records(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per crowd record: a row whose ``judgment_records`` lists several records
    becomes one row per record, each with that record's judgments, count and mean, in place."""
    several = (rows["judgment_records"] != "").to_numpy()
    if not several.any():
        return rows
    records = []
    for position in np.flatnonzero(several):
        row = rows.iloc[position].to_dict()
        values = Judgments.from_joined(rows.iloc[[position]]).values.tolist()
        bounds = np.cumsum([0, *json.loads(row["judgment_records"])])
        for start, stop in zip(bounds[:-1], bounds[1:]):
            part = values[start:stop]
            records.append(
                {
                    **row,
                    "n_judgments": len(part),
                    "mean_judgment": float(np.mean(np.array(part, dtype=float))),
                    "judgments": part,
                    "judgment_records": "",
                    "_position": position,
                }
            )
    kept = rows[~several].assign(_position=np.flatnonzero(~several))
    split = pd.concat([kept, pd.DataFrame(records)], ignore_index=True)
    split = split.sort_values("_position", kind="stable").drop(columns="_position")
    return split.reset_index(drop=True)[list(rows.columns)]


def pooled_judged_rows(
    systems: Mapping[str, pd.DataFrame], prompt: str, handling: RecordHandling | None = None
) -> pd.DataFrame:
    """Every judged output of a task on ``prompt``, pooled over systems (references included).

    ``systems`` maps system name to its joined table (:mod:`debias.tables.joined`). With the default
    handling a line that names a ``judged_output`` shares that judgment with other systems'
    lines and the judgment is kept once (for the first system in name order); every other
    line is its own judged output, even when another system produced the same text. See
    :class:`RecordHandling` for the other choices.
    """
    handling = handling or RecordHandling()
    parts = [judged_rows(systems[name], prompt) for name in sorted(systems)]
    pooled = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=JOINED_COLUMNS)
    if handling.shared_judgments == "once":
        shared = pooled["judged_output"] != ""
        pooled = pooled[~(shared & pooled["judged_output"].duplicated())]
    if handling.require_judged_reference:
        reference = systems.get(handling.reference_system)
        judged_ids = set(judged_rows(reference, prompt)["id"]) if reference is not None else set()
        pooled = pooled[pooled["id"].isin(judged_ids)]
    pooled = pooled.reset_index(drop=True)
    if handling.judgment_records == "separate":
        pooled = split_judgment_records(pooled)
    return pooled


TABLE2_COLUMNS = [
    "task",
    "prompt",
    "sigma2_a",
    "sigma2_f",
    "gamma",
    "sigma2_f_unbiased",
    "gamma_unbiased",
    "n_items",
    "n_judgments",
]


def by_task(joined: Sequence[pd.DataFrame]) -> dict[str, dict[str, pd.DataFrame]]:
    """Group joined tables (one per system) as task -> system -> table, in input order."""
    grouped: dict[str, dict[str, pd.DataFrame]] = {}
    for frame in joined:
        grouped.setdefault(frame["task"].iloc[0], {})[frame["system"].iloc[0]] = frame
    return grouped


def table2(
    joined: Mapping[str, Mapping[str, pd.DataFrame]],
    prompts: Mapping[str, Sequence[str]],
    handling: Mapping[str, RecordHandling] | None = None,
    *,
    with_note: bool = False,
) -> pd.DataFrame:
    """Table 2: per task and prompt, the variance components of every judged output pooled.

    ``joined`` maps task -> system -> joined table (references included, see :func:`by_task`);
    ``prompts`` maps task to its prompts in display order; ``handling`` maps task to its
    :class:`RecordHandling` (default: each judgment once, every judged line). With
    ``with_note`` a last column ``note`` says why a row's components are missing ("one
    judgment per item: ...", see :func:`debias.stats.ratings.variance.variance_note`; empty otherwise);
    ``table2.csv`` is written without it, as its counts already tell (as many judgments as items).
    """
    rows = []
    for task, systems in joined.items():
        for prompt in prompts[task]:
            pooled = pooled_judged_rows(systems, prompt, (handling or {}).get(task))
            rows.append({"task": task, "prompt": prompt, **variance_components(Judgments.from_joined(pooled))})
    return pd.DataFrame(rows, columns=TABLE2_COLUMNS + (["note"] if with_note else []))


def variance_by_system(
    joined: Mapping[str, Mapping[str, pd.DataFrame]], prompts: Mapping[str, Sequence[str]], *, with_note: bool = False
) -> pd.DataFrame:
    """The same components for each system on its own, and its mean judgment (the mean over
    its judged outputs of each output's mean judgment); ``with_note`` as in :func:`table2`."""
    rows = []
    for task, systems in joined.items():
        for system, frame in systems.items():
            for prompt in prompts[task]:
                judged = judged_rows(frame, prompt)
                matrix = Judgments.from_joined(judged)
                mean = float(judged["mean_judgment"].mean()) if len(judged) else float("nan")
                rows.append(
                    {"task": task, "system": system, "prompt": prompt, **variance_components(matrix), "mean": mean}
                )
    columns = ["task", "system"] + TABLE2_COLUMNS[1:] + ["mean"] + (["note"] if with_note else [])
    return pd.DataFrame(rows, columns=columns)


def noted_rows(table: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    """``"<key values>: <note>"`` for every row of a table made ``with_note`` whose note is not
    empty, for the log and the Markdown table."""
    if "note" not in table.columns:
        return []
    return [f"{'/'.join(str(row[k]) for k in keys)}: {row['note']}" for _, row in table.iterrows() if row["note"]]
