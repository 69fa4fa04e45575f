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
READS_TABLES = ("import", "import-pairs", "preferences", "status", "next", "estimate", "compare", "leaderboard", "plan")


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


def _ratings(tmp_path):
    rows = [(f"i{i}", s, float(1 + (i * 7 + k) % 5) if i < 30 else None) for k, s in enumerate("ab") for i in range(40)]
    path = tmp_path / "ratings.csv"
    pd.DataFrame(rows, columns=["item", "system", "score"]).to_csv(path, index=False)
    return path, ["--item", "item", "--system", "system", "--judgment", "score", "--question", "top:1"]


def test_an_output_that_is_an_input_or_no_regular_file_is_refused_and_a_link_written_through(tmp_path):
    import os

    path, options = _ratings(tmp_path)
    before = path.read_bytes()
    for command in (["status", str(path), *options, "--output", str(path)],
                    ["next", str(path), *options, "--budget", "3", "--output", str(path)]):  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "debias", *command], capture_output=True, text=True)
        assert done.returncode == 2 and "is an input of the command" in done.stderr
        assert path.read_bytes() == before
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "debias", "status", str(path), *options, "--output", str(fifo)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "not a regular file" in done.stderr and fifo.is_fifo()
    target, link = tmp_path / "target.csv", tmp_path / "link.csv"
    target.write_text("old\n")
    link.symlink_to(target)
    done = subprocess.run([sys.executable, "-m", "debias", "status", str(path), *options, "--output", str(link)])
    assert done.returncode == 0 and link.is_symlink() and target.read_text().startswith("system,versus")


def test_a_closed_pipe_ends_the_status_quietly(tmp_path):
    rows = [(f"i{i}", f"s{s}", float(1 + (i * 7 + s) % 5)) for s in range(80) for i in range(30)]
    path = tmp_path / "many.csv"  # 80 systems: thousands of open contrasts, more than a pipe holds
    pd.DataFrame(rows, columns=["item", "system", "score"]).to_csv(path, index=False)
    options = ["--item", "item", "--system", "system", "--judgment", "score", "--question", "ranks"]
    command = f"{sys.executable} -m debias status {path} {' '.join(options)} | head -c 10"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr and done.stdout == "system,ver"
