"""Conversion of the paper's released crowd judgments into the canonical input format
(``debias-convert-released``).

The released files hold one line per crowd task; a line judged for several systems at once
(``"system": "a;b"``) is copied to each system, each copy naming the released line as its
``judged_output``. The mapping of field names is documented in ``data/README.md``. Run once;
a re-run reproduces the committed files byte for byte::

    debias-convert-released --raw data/raw --out data
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from debias.io.atomic import write_jsonl_gz
from debias.io.canonical import InputError, iter_json_lines

# released prompt name -> canonical prompt name
CNNDM_PROMPTS = {"grammar": "fluency", "redundancy": "redundancy", "overall": "overall", "hter": "edit"}
MSMARCO_PROMPTS = {"AnyCorrect": "any_correct", "AvgCorrect": "avg_correct"}
REFERENCE_SYSTEM = "reference"


@dataclass
class CanonicalTask:
    """A task in canonical form: references by id, and per system the lines of its file."""

    references: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, str] = field(default_factory=dict)
    systems: dict[str, dict[str, dict]] = field(default_factory=lambda: defaultdict(dict))
    notes: list[str] = field(default_factory=list)

    def add(
        self, system: str, item_id: str, output: str, judgments: dict[str, list], where: str, shared: bool = False
    ) -> None:
        """Add one judged output; a second judging of the same output is merged into the first,
        and ``judgment_records`` lists how many judgments each released line gave.

        ``shared`` marks a released line judged once for several systems: each system's copy
        names that line as its ``judged_output``, so that the judgment is counted once where
        judged outputs are pooled (Table 2).
        """
        existing = self.systems[system].get(item_id)
        if existing is None:
            record = {"id": item_id, "output": output, "judgments": judgments}
            if shared:
                record["judged_output"] = where.rsplit("/", 1)[-1]
            self.systems[system][item_id] = record
            return
        if existing["output"] != output:
            raise InputError(where, f"system '{system}' has two different outputs for id '{item_id}'")
        if shared or "judged_output" in existing:
            raise InputError(where, f"system '{system}' output for id '{item_id}' is judged twice, once shared")
        sizes = {len(values) for values in existing["judgments"].values()}
        added = {len(values) for values in judgments.values()}
        if len(sizes) != 1 or len(added) != 1 or set(existing["judgments"]) != set(judgments):
            raise InputError(
                where, f"system '{system}' output for id '{item_id}' is judged twice, on different prompts"
            )
        for prompt, values in judgments.items():
            existing["judgments"][prompt].extend(values)
        existing["judgment_records"] = existing.get("judgment_records", [sizes.pop()]) + [added.pop()]
        self.notes.append(
            f"{where}: {system} output for id {item_id} was judged again; its judgments are merged "
            "(the lists are concatenated) into one item, with judgment_records giving each record's count"
        )

    def records(self, system: str) -> list[dict]:
        return [self.systems[system][k] for k in sorted(self.systems[system])]

    def reference_records(self) -> list[dict]:
        records = [{"id": k, "reference": self.references[k]} for k in sorted(self.references)]
        for record in records:
            if record["id"] in self.inputs:
                record["input"] = self.inputs[record["id"]]
        return records


def _set_reference(task: CanonicalTask, item_id: str, reference: str, where: str) -> None:
    previous = task.references.setdefault(item_id, reference)
    if previous != reference:
        raise InputError(where, f"id '{item_id}' has two different reference texts")


def convert_lqual(path) -> CanonicalTask:
    """CNN/Daily Mail summaries: Likert fluency/redundancy/overall and post-edit distance."""
    task = CanonicalTask()
    for number, record in iter_json_lines(path):
        where = f"{path}:{number}"
        contents = record["input"]["contents"]
        responses = record["output"]["_responses"]
        item_id = str(contents["id"])
        _set_reference(task, item_id, contents["reference"], where)
        judgments = {new: list(responses.get(old) or []) for old, new in CNNDM_PROMPTS.items()}
        if not any(judgments.values()):
            task.notes.append(f"{where}: {contents['system']} output for id {item_id} has no judgments; skipped")
            continue
        systems = contents["system"].split(";")
        for system in systems:
            task.add(
                system, item_id, contents["text"], {k: list(v) for k, v in judgments.items()}, where, len(systems) > 1
            )
    return task


def convert_qa(path) -> CanonicalTask:
    """MS MARCO answers: AnyCorrect and AvgCorrect, null judgments kept as released.

    A null correctness judgment is an annotator who marked no passage as supporting the
    answer; the configuration says how it counts (``null_as`` of the prompt). The question
    is kept with the reference answer as the item's ``input``.
    """
    task = CanonicalTask()
    lines = list(iter_json_lines(path))
    for number, record in lines:
        contents = record["input"]["contents"]
        if REFERENCE_SYSTEM in contents["system"].split(";"):
            _set_reference(task, str(contents["id"]), contents["answer"], f"{path}:{number}")
            task.inputs[str(contents["id"])] = contents["query"]
    for number, record in lines:
        where = f"{path}:{number}"
        contents = record["input"]["contents"]
        responses = record["output"]["_responses"]
        item_id = str(contents["id"])
        if item_id not in task.references:
            task.notes.append(f"{where}: query {item_id} has no reference answer; skipped")
            continue
        judgments = {new: list(responses.get(old) or []) for old, new in MSMARCO_PROMPTS.items()}
        systems = contents["system"].split(";")
        for system in systems:
            task.add(
                system, item_id, contents["answer"], {k: list(v) for k, v in judgments.items()}, where, len(systems) > 1
            )
    return task


RELEASED = {"cnndm": ("lqual.jsonl.gz", convert_lqual), "msmarco": ("qa.jsonl.gz", convert_qa)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="debias-convert-released", description=__doc__.splitlines()[0])
    parser.add_argument("--raw", type=Path, default=Path("data/raw"), help="folder with the released files")
    parser.add_argument("--out", type=Path, default=Path("data"), help="folder to write <task>/ into")
    args = parser.parse_args(argv)
    for task_name, (filename, convert) in RELEASED.items():
        try:
            task = convert(args.raw / filename)
        except InputError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        out = args.out / task_name
        write_jsonl_gz(out / "references.jsonl.gz", task.reference_records())
        for system in sorted(task.systems):
            records = task.records(system)
            write_jsonl_gz(out / "systems" / f"{system}.jsonl.gz", records)
            print(f"{task_name}/{system}: {len(records)} items")
        print(f"{task_name}: {len(task.references)} references")
        for note in task.notes:
            print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
