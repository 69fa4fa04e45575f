"""From a long table (one row per judgment) to the joined tables the workflow builds.

:func:`joined_tables` is what the public API (:mod:`debias.api`) runs first: the same tables as
the workflow's ``join`` step, so every later function gives the workflow's rows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from debias.tables.joined import JOINED_COLUMNS

__all__ = ["PROMPT", "SYSTEM", "TASK", "joined_tables"]

#: Task name the API's rows carry (the workflow's tables have one per configured task).
TASK = "evaluation"
#: System and prompt names when the table has no such column.
SYSTEM, PROMPT = "system", "score"


def _columns(frame: pd.DataFrame, names: Sequence[str | None], what: str = "table") -> None:
    missing = [name for name in names if name is not None and name not in frame.columns]
    if missing:
        raise ValueError(f"the {what} has no column {missing[0]!r} (columns: {list(frame.columns)})")


def joined_tables(
    frame: pd.DataFrame,
    *,
    item: str,
    judgment: str,
    system: str | None = None,
    prompt: str | None = None,
    rater: str | None = None,
    scores: Sequence[str] = (),
    population: pd.DataFrame | None = None,
    task: str = TASK,
) -> tuple[list[pd.DataFrame], list[str]]:
    """The joined tables (one per system) of a long table, and its prompts.

    Parameters are those of :func:`debias.api.estimate`. Several rows for the same item, system and prompt
    are that output's judgments, ordered by ``rater`` when given, else by row. An output's metric
    score must be the same on all its rows. Returns ``(tables, prompts)``.
    """
    scores = list(dict.fromkeys(scores))
    _columns(frame, [item, judgment, system, prompt, rater, *scores])
    if frame.empty:
        raise ValueError("the table has no rows")
    data = pd.DataFrame(
        {
            "id": frame[item].astype(str).to_numpy(),
            "system": frame[system].astype(str).to_numpy() if system else SYSTEM,
            "prompt": frame[prompt].astype(str).to_numpy() if prompt else PROMPT,
            "value": pd.to_numeric(frame[judgment], errors="coerce").to_numpy(dtype=float),
            "rater": frame[rater].astype(str).to_numpy() if rater else "",
            "row": np.arange(len(frame)),
        }
    )
    bad = ~np.isfinite(data["value"].to_numpy())
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {row + 1}: judgment {frame[judgment].iloc[row]!r} in column {judgment!r} is not a number"
        )
    for name in scores:
        data[name] = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
    outputs = _output_scores(data, scores, population, item=item, system=system)
    prompts = list(dict.fromkeys(data["prompt"]))
    data = data.sort_values(["system", "prompt", "id", "rater", "row"], kind="stable")
    keys = data[["system", "prompt", "id"]].to_numpy()
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)])  # sorted: each output's rows adjoin
    values = np.split(data["value"].to_numpy(), starts[1:])
    grouped = {tuple(key): part.tolist() for key, part in zip(keys[starts].tolist(), values)}
    tables = []
    for name, ids in outputs.groupby("system", sort=False):
        rows = []
        for prompt_name in prompts:
            for output in ids["id"]:
                values = grouped.get((name, prompt_name, output), [])
                mean = float(np.mean(values)) if values else np.nan
                rows.append((task, name, output, prompt_name, "", len(values), mean, _json(values), ""))
        table = pd.DataFrame(rows, columns=JOINED_COLUMNS)
        indexed = ids.set_index("id")
        for metric in scores:
            table[metric] = indexed.loc[table["id"], metric].to_numpy(dtype=float)
        tables.append(table)
    return tables, prompts


def _json(values: Sequence[float]) -> str:
    return json.dumps([float(v) for v in values])


def _output_scores(data, scores, population, *, item, system) -> pd.DataFrame:
    """One row per output (system, id) in order of appearance, with its metric scores."""
    judged = data.drop_duplicates(["system", "id"])[["system", "id"]]
    if scores:
        per_output = data.groupby(["system", "id"], sort=False)[scores]
        spread = per_output.max() - per_output.min()
        if (spread.to_numpy() > 0).any():
            system_name, output = spread.index[np.flatnonzero((spread.to_numpy() > 0).any(axis=1))[0]]
            raise ValueError(f"output {output!r} of system {system_name!r} has different scores on different rows")
        judged = judged.merge(per_output.first().reset_index(), on=["system", "id"], how="left")
    if population is None:
        outputs = judged
    else:
        _columns(population, [item, system, *scores], "population")
        extra = pd.DataFrame(
            {
                "system": population[system].astype(str).to_numpy() if system else SYSTEM,
                "id": population[item].astype(str).to_numpy(),
                **{m: pd.to_numeric(population[m], errors="coerce").to_numpy(dtype=float) for m in scores},
            }
        )
        outputs = pd.concat([judged, extra], ignore_index=True).drop_duplicates(["system", "id"], keep="first")
    if scores:
        missing = ~np.isfinite(outputs[scores].to_numpy(dtype=float))
        if missing.any():
            row = outputs.iloc[int(np.flatnonzero(missing.any(axis=1))[0])]
            raise ValueError(f"output {row['id']!r} of system {row['system']!r} has no finite score for every metric")
    return outputs.reset_index(drop=True)
