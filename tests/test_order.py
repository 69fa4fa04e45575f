"""The order column of pairwise verdicts: when each vote arrived, wherever battles are read (the
Python API, the command line, a preference task's ``order`` key, ``import-pairs``). The battles
are read sorted by it, so the status path of a shuffled table with an order column is the path
of the table sorted by hand; a bad value names its file, row and column; the arrival-order note
speaks of a table sorted by cluster, and, with an order column, only of one that ties too often."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

import debias
from debias.api import PAIRS_KEYWORDS
from debias.cli.analyse import main
from debias.config.settings import schema_problem, with_defaults
from debias.config.tasks import load_preferences
from debias.io.canonical import InputError
from debias.stats.preferences.status import arrival_order_note, first_votes, status_path

COLUMNS = {"item": "q", "system_a": "A", "system_b": "B", "verdict": "winner"}
OPTIONS = ["--item", "q", "--system-a", "A", "--system-b", "B", "--verdict", "winner"]


def nanoseconds(times) -> np.ndarray:
    """Date-times as nanoseconds since 1970 UTC."""
    return np.array([pd.Timestamp(t).value for t in times], dtype=float)


def votes(n=240, seed=0, *, second=True):
    """Votes in the order they arrived, one a minute: system x better than y and z, raters
    ``r0``.. (with ``second``, a second rater on every 20th battle an hour later, the systems
    written the other way round), a judge, a topic per six consecutive battles."""
    rng = np.random.default_rng(seed)
    systems = np.array(["x", "y", "z"])
    a = rng.integers(0, 3, n)
    b = (a + 1 + rng.integers(0, 2, n)) % 3
    p_a = np.where(a == 0, 0.7, np.where(b == 0, 0.25, 0.5))
    winner = np.where(rng.random(n) < p_a, "a", np.where(rng.random(n) < 0.7, "b", "tie"))
    frame = pd.DataFrame(
        {
            "q": [f"q{k}" for k in range(n)],
            "A": systems[a],
            "B": systems[b],
            "winner": winner,
            "rater": [f"r{k % 7}" for k in range(n)],
            "gpt": np.where(rng.random(n) < 0.8, winner, "tie"),
            "topic": [f"t{k // 6:03d}" for k in range(n)],
            "when": [str(t.isoformat()) + "Z" for t in pd.date_range("2025-03-04 09:00", periods=n, freq="min")],
        }
    )
    if not second:
        return frame
    # a second rater on a few battles, an hour after the first
    again = frame.iloc[::20].copy()
    again["rater"] = "late"
    again["when"] = [str((pd.Timestamp(w) + pd.Timedelta(hours=1)).isoformat()) for w in again["when"]]
    again[["A", "B"]] = again[["B", "A"]].to_numpy()
    again["winner"] = again["winner"].map({"a": "b", "b": "a", "tie": "tie"})
    again["gpt"] = again["gpt"].map({"a": "b", "b": "a", "tie": "tie"})
    rows = pd.concat([frame, again], ignore_index=True)
    return rows.iloc[np.argsort(pd.to_datetime(rows["when"], utc=True).to_numpy(), kind="stable")].reset_index(
        drop=True
    )


def same_path(one, other):
    assert one.systems == other.systems
    np.testing.assert_array_equal(one.votes, other.votes)
    for name in ("estimate", "ci_low", "ci_high", "contrast"):
        np.testing.assert_array_equal(getattr(one, name), getattr(other, name), err_msg=name)
    np.testing.assert_array_equal(one.resolved, other.resolved)
    assert one.status.answer == other.status.answer


# --- reading ---------------------------------------------------------------------------------------


def test_a_shuffled_table_with_an_order_column_gives_the_path_of_the_sorted_table():
    arrived = votes()
    shuffled = arrived.sample(frac=1.0, random_state=5).reset_index(drop=True)
    columns = {**COLUMNS, "rater": "rater", "judges": ["gpt"]}
    in_order = debias.read_pairs(arrived, **columns)
    read = debias.read_pairs(shuffled, **columns, order="when")
    assert in_order.arrival is None and read.arrival is not None
    np.testing.assert_array_equal(read.items, in_order.items)
    np.testing.assert_array_equal(read.system_a, in_order.system_a)
    np.testing.assert_array_equal(read.human, in_order.human)
    np.testing.assert_array_equal(read.arrival, nanoseconds(arrived.groupby("q", sort=False)["when"].first()))
    for question in ("better:x,y", "top:1"):
        path = status_path(read, question, level=0.9, looks=6)
        same_path(path, status_path(in_order, question, level=0.9, looks=6))
        assert path.note == ""
    early = first_votes(read, 50)
    assert early.labelled.sum() == 50 and np.array_equal(early.arrival, read.arrival)
    np.testing.assert_array_equal(np.flatnonzero(early.labelled), np.arange(50))  # the first to arrive
    # the table sorted the other way round, by numbers: the path reads it from the end
    backwards = debias.read_pairs(arrived.assign(when=np.arange(len(arrived))[::-1]), **columns, order="when")
    assert backwards.items[0] == arrived["q"].iloc[-1]
    # with clusters the path looks at whole clusters in the order they first arrived
    clustered = debias.read_pairs(shuffled, **columns, cluster="topic", order="when")
    same_path(
        status_path(clustered, "top:1", level=0.9, looks=5),
        status_path(debias.read_pairs(arrived, **columns, cluster="topic"), "top:1", level=0.9, looks=5),
    )


def test_equal_orders_keep_the_tables_order_and_rows_without_a_verdict_may_leave_it_empty():
    frame = votes(60, second=False)[["q", "A", "B", "winner"]].copy()
    frame["when"] = np.repeat([3, 1, 2], 20)
    read = debias.read_pairs(frame, **COLUMNS, order="when")
    expected = np.concatenate([frame["q"][20:40], frame["q"][40:], frame["q"][:20]])
    np.testing.assert_array_equal(read.items, expected)
    frame.loc[[5, 30], "winner"] = ""
    frame["when"] = frame["when"].astype(object)
    frame.loc[[5, 30], "when"] = None
    read = debias.read_pairs(frame, **COLUMNS, order="when")
    assert read.labelled.sum() == 58 and not read.labelled[-2:].any(), "battles only judges saw come last"
    assert np.isnan(read.arrival[-2:]).all()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "column 'when' is empty"),
        ("next tuesday", "column 'when': 'next tuesday' is neither a number nor a date-time"),
        ("04/03/2025", "is neither a number nor a date-time"),
        ("inf", "is neither a number nor a date-time"),
        ("17", "'17' is a number, but the column's first value ({path}: row 2) is a date-time"),
    ],
)
def test_a_bad_order_names_its_file_row_and_column(tmp_path, capsys, value, message):
    path = tmp_path / "battles.csv"
    frame = votes(40)
    frame.loc[6, "when"] = value
    frame.to_csv(path, index=False)
    assert main(["status", str(path), *OPTIONS, "--order", "when", "--question", "top:1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{path}: row 8: " in err and message.format(path=path) in err
    with pytest.raises(InputError) as caught:
        debias.read_pairs(frame, **COLUMNS, order="when")
    assert caught.value.row == 8 and caught.value.column == "when"


def test_the_order_column_is_read_from_every_kind_of_value():
    frame = votes(30, second=False)[["q", "A", "B", "winner", "when"]]
    stamps = pd.to_datetime(frame["when"], utc=True)
    expected = nanoseconds(frame["when"])
    for when in (stamps, stamps.dt.tz_localize(None), frame["when"].str.replace("T", " ").str.rstrip("Z")):
        read = debias.read_pairs(frame.assign(when=when), **COLUMNS, order="when")
        np.testing.assert_array_equal(read.arrival, expected)
    shifted = frame.assign(when=[s.tz_convert("Europe/Paris").isoformat() for s in stamps])
    np.testing.assert_array_equal(debias.read_pairs(shifted, **COLUMNS, order="when").arrival, expected)
    seconds = frame.assign(when=np.arange(30) * 1.5)
    np.testing.assert_array_equal(debias.read_pairs(seconds, **COLUMNS, order="when").arrival, np.arange(30) * 1.5)
    with pytest.raises(InputError, match="'when': True is neither"):
        debias.read_pairs(frame.assign(when=True), **COLUMNS, order="when")
    with pytest.raises(InputError, match="no column 'time'"):
        debias.read_pairs(frame, **COLUMNS, order="time")
    with pytest.raises(InputError, match="judge 'when' is the table's order column"):
        debias.read_pairs(frame, **COLUMNS, judges=["when"], order="when")


def test_the_one_call_forms_take_order_and_ratings_refuse_it():
    assert "order" in PAIRS_KEYWORDS
    arrived = votes(120)
    shuffled = arrived.sample(frac=1.0, random_state=1)
    state = debias.status(shuffled, "better:x,y", **COLUMNS, order="when", level=0.9)
    assert state.n_votes == debias.status(arrived, "better:x,y", **COLUMNS, level=0.9).n_votes
    ratings = pd.DataFrame({"q": ["a", "b"], "s": ["x", "y"], "score": [1, 2], "when": [1, 2]})
    with pytest.raises(InputError, match="ratings do not take order="):
        debias.status(ratings, "top:1", item="q", system="s", judgment="score", order="when")


# --- the command line, a task's key and the import ----------------------------------------------------


def test_the_commands_take_order(tmp_path, capsys):
    path = tmp_path / "battles.csv"
    arrived = votes(120)
    arrived.sample(frac=1.0, random_state=2).to_csv(path, index=False)
    assert main(["preferences", str(path), *OPTIONS, "--order", "when"]) == 0
    assert main(["status", str(path), *OPTIONS, "--order", "when", "--question", "top:1"]) == 0
    capsys.readouterr()
    ratings = ["--item", "q", "--system", "A", "--judgment", "winner", "--order", "when", "--question", "top:1"]
    assert main(["status", str(path), *ratings]) == 2
    assert "--order: is an option of pairwise verdicts, not of ratings" in capsys.readouterr().err


def test_a_preference_task_and_import_pairs_keep_the_order(tmp_path, capsys):
    arrived = votes(120)
    shuffled = arrived.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled.to_csv(tmp_path / "raw.csv", index=False)
    config = tmp_path / "config.yaml"
    out = tmp_path / "data" / "mine"
    argv = ["import-pairs", str(tmp_path / "raw.csv"), "--task", "mine", *OPTIONS, "--rater", "rater"]
    assert main([*argv, "--judge", "gpt", "--order", "when", "--out", str(out), "--config", str(config)]) == 0
    written = pd.read_csv(out / "battles.csv", dtype=str, keep_default_na=False)
    assert list(written.columns) == ["item", "system_a", "system_b", "verdict", "rater", "order", "gpt"]
    assert written["order"].tolist() == shuffled["when"].tolist(), "the rows as the table has them"
    spec = yaml.safe_load(config.read_text())["preferences"]["mine"]
    assert spec["order"] == "order" and schema_problem(yaml.safe_load(config.read_text())) is None
    spec["battles"] = str(out / "battles.csv")
    pairs = load_preferences(with_defaults({"results_dir": "r", "preferences": {"mine": spec}}), "mine")
    direct = debias.read_pairs(arrived, **COLUMNS, rater="rater", judges=["gpt"])
    np.testing.assert_array_equal(pairs.items, direct.items)
    np.testing.assert_array_equal(pairs.human, direct.human)
    same_path(status_path(pairs, "top:1", level=0.9, looks=4), status_path(direct, "top:1", level=0.9, looks=4))
    assert schema_problem({"preferences": {"p": {"label": "P", "battles": "b.csv", "order": ""}}}) is not None
    assert main([*argv[:2], "--task", "x", *OPTIONS, "--judge", "when", "--order", "when"]) == 2
    assert "column 'when' is the --order column" in capsys.readouterr().err


# --- the arrival-order note --------------------------------------------------------------------------


def test_the_note_fires_on_a_table_sorted_by_cluster_and_not_on_a_shuffled_one():
    rng = np.random.default_rng(4)
    frame = votes(240, second=False)[["q", "A", "B", "winner"]]
    frame = frame.assign(topic=[f"topic {k}" for k in rng.integers(0, 40, len(frame))])
    by_name = frame.iloc[np.argsort(frame["topic"].to_numpy(), kind="stable")]
    note = arrival_order_note(debias.read_pairs(by_name, **COLUMNS, cluster="topic"))
    assert note.startswith("the table's rows look sorted by cluster") and "order" in note
    natural = frame.iloc[np.argsort([int(t.split()[1]) for t in frame["topic"]], kind="stable")]
    assert "sorted by cluster" in arrival_order_note(debias.read_pairs(natural, **COLUMNS, cluster="topic"))
    assert "sorted by cluster" in arrival_order_note(debias.read_pairs(by_name[::-1], **COLUMNS, cluster="topic"))
    for seed in range(5):
        shuffled = frame.sample(frac=1.0, random_state=seed)
        assert arrival_order_note(debias.read_pairs(shuffled, **COLUMNS, cluster="topic")) == ""
        # grouped by cluster, the clusters in a random order: what the path assumes (whole clusters)
        topics = shuffled["topic"].unique()
        grouped = shuffled.iloc[np.argsort(pd.Categorical(shuffled["topic"], topics).codes, kind="stable")]
        assert arrival_order_note(debias.read_pairs(grouped, **COLUMNS, cluster="topic")) == ""
    assert arrival_order_note(debias.read_pairs(by_name, **COLUMNS)) == "", "no cluster column"


def test_an_order_column_is_the_users_statement_unless_most_votes_tie_on_it():
    frame = votes(240, second=False)[["q", "A", "B", "winner", "when"]]
    by_pair = frame.iloc[np.lexsort((frame["B"], frame["A"]))]
    assert "sorted by pair of systems" in arrival_order_note(debias.read_pairs(by_pair, **COLUMNS))
    # the same table in the order its column says: a note only if that order is the table's own
    read = debias.read_pairs(by_pair.assign(when=np.arange(240)), **COLUMNS, order="when")
    assert arrival_order_note(read) == ""
    assert status_path(read, "top:1", level=0.9, looks=2).note == ""
    tied = by_pair.assign(when=np.repeat(np.arange(60), 4))  # 3 of 4 votes tie with the one before
    note = arrival_order_note(debias.read_pairs(tied, **COLUMNS, order="when"))
    assert note.startswith("75% of the votes share their place in the order column")
    third = by_pair.assign(when=np.repeat(np.arange(160), [2, 1] * 80))  # a third tie: the column says enough
    assert arrival_order_note(debias.read_pairs(third, **COLUMNS, order="when")) == ""
