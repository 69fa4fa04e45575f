"""The data model: judgments stored flat, evaluation and paired samples."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from debias.data import EvalSample, Judgments, PairedSample, as_judgments
from debias.io.canonical import InputError
from debias.io.reader import read_judgments


def test_judgments_from_lists_padded_and_long_agree():
    lists = [[4.0, 5.0], [3.0], [5.0, 4.0, 2.0]]
    a = Judgments.from_lists(lists, ids=["x", "y", "z"])
    padded = np.array([[4, 5, np.nan], [3, np.nan, np.nan], [5, 4, 2]], dtype=float)
    b = Judgments.from_padded(padded, ids=["x", "y", "z"])
    frame = pd.DataFrame({"item": ["z", "x", "y", "z", "x", "z"], "score": [5, 4, 3, 4, 5, 2]})
    c = read_judgments(frame, item="item", judgment="score")
    for j in (a, b):
        assert j.counts.tolist() == [2, 1, 3]
        assert j.values.tolist() == [4, 5, 3, 5, 4, 2]
    assert c.ids == ("z", "x", "y")  # order of first appearance
    assert c.lists() == [[5, 4, 2], [4, 5], [3]]
    np.testing.assert_allclose(a.item_means, [4.5, 3.0, 11 / 3])
    np.testing.assert_allclose(a.within_spread, [0.25, 0.0, np.var([5, 4, 2])])
    np.testing.assert_array_equal(a.padded(), padded)


def test_read_judgments_orders_an_items_judgments_by_rater():
    frame = pd.DataFrame({"item": ["a", "a", "a"], "rater": ["r3", "r1", "r2"], "score": [3, 1, 2]})
    assert read_judgments(frame, item="item", judgment="score", rater="rater").lists() == [[1, 2, 3]]
    with pytest.raises(ValueError, match="no column 'grade'"):
        read_judgments(frame, item="item", judgment="grade")


def test_read_judgments_follows_the_readers_rules():
    """Names trimmed, an item none of whose rows has a judgment left out, a rater judging an item
    twice and an empty item refused with row and column: as the ratings reader does."""
    frame = pd.DataFrame(
        {
            "item": ["a", " a ", "b", "c", "b"],
            "rater": ["r2", " r1", "r1", "r1", "r2 "],
            "score": [4.0, 5.0, 3.0, np.nan, 2.0],
        }
    )
    j = read_judgments(frame, item="item", judgment="score", rater="rater")
    assert j.ids == ("a", "b") and j.lists() == [[5.0, 4.0], [3.0, 2.0]]
    twice = frame.assign(rater=["r1", " r1 ", "r1", "r1", "r2"])
    with pytest.raises(InputError) as error:
        read_judgments(twice, item="item", judgment="score", rater="rater", source="t.csv")
    assert (error.value.file, error.value.row, error.value.column) == ("t.csv", 3, "rater")
    assert "rater 'r1' judged" in error.value.message and "(first on row 2)" in error.value.message
    with pytest.raises(InputError) as error:
        read_judgments(frame.assign(item=["a", "a", None, "c", "b"]), item="item", judgment="score")
    assert (error.value.row, error.value.column, error.value.message) == (4, "item", "column 'item' is empty")
    assert not hasattr(Judgments, "from_long")  # one way from a table to judgments: the reader


def test_from_joined_reads_the_typed_column():
    rows = pd.DataFrame({"id": ["1", "2"], "judgments": [json.dumps([0.1, 0.2]), json.dumps([1 / 3])]})
    j = Judgments.from_joined(rows)
    assert j.lists() == [[0.1, 0.2], [1 / 3]]  # full precision round trip
    assert j.ids == ("1", "2")


def test_storage_grows_with_judgments_not_with_the_longest_list():
    lists = [[1.0] * 100_000] + [[2.0]] * 1000
    j = Judgments.from_lists(lists)
    assert j.values.nbytes == 8 * (100_000 + 1000)
    assert j.item_means[0] == 1.0 and j.within_spread[0] == 0.0


def test_take_and_judgment_index_the_flat_storage():
    j = Judgments.from_lists([[1, 2], [3], [4, 5, 6]], ids=["a", "b", "c"])
    sub = j.take([2, 0])
    assert sub.lists() == [[4, 5, 6], [1, 2]] and sub.ids == ("c", "a")
    assert j.take(np.array([False, True, True])).lists() == [[3], [4, 5, 6]]
    np.testing.assert_array_equal(j.judgment(np.array([2, 0, 2]), np.array([2, 1, 0])), [6, 2, 4])


@pytest.mark.parametrize(
    ("values", "counts", "message"),
    [
        ([1.0, np.nan], [2], "finite"),
        ([1.0, np.inf], [2], "finite"),
        ([1e200, 1.0], [2], "squares"),
        ([1.0, 2.0], [1, 0, 1], "at least one judgment"),
        ([1.0, 2.0], [3], "add up to 3"),
    ],
)
def test_judgments_refuse_bad_input(values, counts, message):
    with pytest.raises(ValueError, match=message):
        Judgments(np.array(values), np.array(counts))


def test_padding_must_be_at_the_end():
    with pytest.raises(ValueError, match="NaN-padded at the end"):
        Judgments.from_padded(np.array([[np.nan, 1.0], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="at least one judgment"):
        Judgments.from_padded(np.array([[np.nan, np.nan], [1.0, 2.0]]))


def test_judgments_are_frozen():
    j = Judgments.from_lists([[1, 2]])
    with pytest.raises(AttributeError):
        j.counts = np.array([1])  # type: ignore[misc]
    with pytest.raises(ValueError):
        j.values[0] = 3.0


def test_as_judgments_accepts_every_form():
    lists = [[1.0, 2.0], [3.0]]
    assert as_judgments(lists).lists() == lists
    assert as_judgments(np.array([1.0, 2.0, 3.0])).counts.tolist() == [1, 1, 1]
    j = Judgments.from_lists(lists)
    assert as_judgments(j) is j


def test_eval_sample_takes_the_population_one_way_at_a_time():
    j = [[4, 5], [3], [5]]
    scores = np.array([0.9, 0.4, 0.8])
    by_unjudged = EvalSample.from_arrays(j, scores, unjudged_scores=[0.5, 0.7], metrics=["bleu"])
    assert by_unjudged.n_outputs == 5 and by_unjudged.unjudged.shape == (2, 1)
    np.testing.assert_allclose(by_unjudged.population[:, 0], [0.9, 0.4, 0.8, 0.5, 0.7])
    by_all = EvalSample.from_arrays(j, scores, all_scores=[0.9, 0.4, 0.8, 0.5, 0.7])
    assert by_all.n_outputs == 5 and by_all.unjudged is None and by_all.metrics == ("m0",)
    assert EvalSample.from_arrays(j, n_outputs=10).n_outputs == 10
    with pytest.raises(ValueError, match="give the population once"):
        EvalSample.from_arrays(j, scores, all_scores=scores, unjudged_scores=scores)
    with pytest.raises(ValueError, match="fewer than the 3 judged items"):
        EvalSample.from_arrays(j, scores, all_scores=scores[:2])
    with pytest.raises(ValueError, match="distinct"):
        EvalSample.from_arrays(j, np.c_[scores, scores], metrics=["m", "m"])


def test_paired_sample_from_two_samples():
    a = EvalSample.from_arrays([[1, 2], [3], [4]], [0.1, 0.2, 0.3], metrics=["m"])
    b = EvalSample.from_arrays([[2], [3, 5], [6]], [0.2, 0.1, 0.5], metrics=["m"])
    pair = PairedSample.from_samples(a, b)
    np.testing.assert_allclose(pair.differences, [0.5, 1.0, 2.0])
    assert pair.n_shared == 3 and pair.n_outputs == 3
    other = EvalSample.from_arrays([[1], [2], [3]], [0.1, 0.2, 0.3], metrics=["x"])
    with pytest.raises(ValueError, match="different metrics"):
        PairedSample.from_samples(a, other)
