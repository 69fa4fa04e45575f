"""Convert the released crowd judgments (data/raw/) into the canonical input format (data/<task>/).

Run once by hand; a re-run reproduces the committed files byte for byte:

    python scripts/convert_released.py --raw data/raw --out data
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from debias.convert import convert_lqual, convert_qa
from debias.io import InputError, write_jsonl_gz

RELEASED = {"cnndm": ("lqual.jsonl.gz", convert_lqual), "msmarco": ("qa.jsonl.gz", convert_qa)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
