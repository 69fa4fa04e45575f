"""One name per option across the commands: --input-format is the format of the tables a command
reads, --format only ever the format it prints."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pandas as pd

from debias.cli.analyse import _parser
from debias.cli.shared import FORMATS

#: The commands that read tables of the user's (not canonical files of a configuration).
READS_TABLES = ("import", "import-pairs", "preferences", "status", "next")


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = _parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_format_is_the_output_and_input_format_the_tables_read_on_every_command():
    for name, parser in _commands().items():
        shown = {o: a for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings}
        if "--format" in shown:
            assert tuple(shown["--format"].choices) == FORMATS, name
        if name in READS_TABLES:
            assert shown["--input-format"].dest == "input_format", name
            assert set(shown["--input-format"].choices) == {"csv", "tsv", "parquet", "jsonl"}, name
        else:
            assert "--input-format" not in shown, name


def test_a_former_spelling_is_still_read_and_names_the_new_one(tmp_path):
    frame = pd.DataFrame({"q": ["1", "2", "3"], "A": ["x", "y", "x"], "B": ["y", "x", "y"], "w": ["a", "b", "a"]})
    path = tmp_path / "battles.data"  # a name that says no format: the option must
    frame.to_csv(path, index=False)
    columns = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "w"]
    command = [sys.executable, "-m", "debias", "preferences", str(path), *columns]
    new = subprocess.run([*command, "--input-format", "csv"], capture_output=True, text=True)
    old = subprocess.run([*command, "--table-format", "csv"], capture_output=True, text=True)
    assert new.returncode == old.returncode == 0 and new.stdout == old.stdout
    assert "--table-format is now --input-format" in old.stderr and "now" not in new.stderr
    unread = subprocess.run(command, capture_output=True, text=True)
    assert unread.returncode == 2
