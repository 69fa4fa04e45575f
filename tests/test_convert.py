"""The released-to-canonical conversion: counts, merging, sharing, and byte-reproducibility."""

import pytest

from debias.io.canonical import read_references, read_system
from debias.io.released import convert_lqual, convert_qa
from debias.io.released import main as convert_main

CNNDM_PROMPTS = {p: {"min": None, "max": None} for p in ("fluency", "redundancy", "overall", "edit")}
# As configured: a null correctness judgment (no passage supports the answer) counts as 0.
MSMARCO_PROMPTS = {p: {"min": 0, "max": 1, "null_as": 0} for p in ("any_correct", "avg_correct")}


def judged(items):
    return sum(1 for item in items if any(item.judgments.values()))


@pytest.fixture(scope="module")
def lqual(request):
    from conftest import REPO

    return convert_lqual(REPO / "data/raw/lqual.jsonl.gz")


@pytest.fixture(scope="module")
def qa():
    from conftest import REPO

    return convert_qa(REPO / "data/raw/qa.jsonl.gz")


def test_cnndm_items_with_judgments_per_system(lqual):
    counts = {s: len(lqual.records(s)) for s in lqual.systems}
    assert counts == {"seq2seq": 524, "pointer": 520, "ml": 519, "ml+rl": 522, "reference": 513}


def test_msmarco_has_500_items_per_system(qa):
    assert {s: len(qa.records(s)) for s in qa.systems} == {
        s: 500 for s in ("fastqa", "fastqa_ext", "snet.single", "snet.ensemble", "reference")
    }
    assert len(qa.references) == 500


def test_twice_judged_article_is_merged(lqual):
    item = lqual.systems["ml+rl"]["006588"]
    assert len(item["judgments"]["fluency"]) == 7  # 5 + 2 annotators
    assert item["judgment_records"] == [5, 2]
    assert sum("judgment_records" in r for system in lqual.systems.values() for r in system.values()) == 1
    assert any("006588" in note and "merged" in note for note in lqual.notes)


def test_unjudged_line_is_skipped_and_said(lqual):
    assert "000195" not in lqual.systems["ml"]
    assert any("000195" in note and "skipped" in note for note in lqual.notes)


def test_shared_output_is_in_each_system_and_names_its_judgment(lqual, qa):
    # the one cnndm line judged for "ml;ml+rl": both copies name the same released line
    shared_ml = {r["judged_output"]: i for i, r in lqual.systems["ml"].items() if "judged_output" in r}
    shared_mlrl = {r["judged_output"]: i for i, r in lqual.systems["ml+rl"].items() if "judged_output" in r}
    assert len(shared_ml) == 1 and shared_ml == shared_mlrl
    assert next(iter(shared_ml)).startswith("lqual.jsonl.gz:")
    # msmarco: many answers shared by snet.single and snet.ensemble, with the same judgments
    single, ensemble = qa.systems["snet.single"], qa.systems["snet.ensemble"]
    both = [
        i
        for i in single
        if single[i].get("judged_output") and single[i].get("judged_output") == ensemble.get(i, {}).get("judged_output")
    ]
    assert len(both) > 200
    for i in both:
        assert single[i]["judgments"] == ensemble[i]["judgments"] and single[i]["output"] == ensemble[i]["output"]
    # a line judged for one system alone names no shared judgment
    alone = [r for r in lqual.systems["seq2seq"].values()]
    assert alone and not any("judged_output" in r for r in alone)


def test_null_correctness_is_kept_as_released(qa, repo):
    values = [v for s in qa.systems for r in qa.systems[s].values() for v in r["judgments"]["any_correct"]]
    assert set(values) == {0, 1, None}
    # Released line 1127 (snet.single alone) has only null AnyCorrect votes: unjudged unless
    # the prompt says what a null counts as.
    refs = read_references(repo / "data/msmarco/references.jsonl.gz")
    path = repo / "data/msmarco/systems/snet.single.jsonl.gz"
    dropped = {
        i.id: i.judgments["any_correct"]
        for i in read_system(path, {p: {"min": 0, "max": 1} for p in MSMARCO_PROMPTS}, refs)
    }
    as_zero = {i.id: i.judgments["any_correct"] for i in read_system(path, MSMARCO_PROMPTS, refs)}
    empty = [i for i, v in dropped.items() if not v]
    assert empty and all(as_zero[i] and set(as_zero[i]) == {0.0} for i in empty)
    assert sum(len(v) for v in as_zero.values()) > sum(len(v) for v in dropped.values())


def test_questions_kept_with_msmarco_references(qa):
    assert len(qa.inputs) == len(qa.references) == 500
    assert all(isinstance(q, str) and q for q in qa.inputs.values())


def test_prompt_mapping(lqual):
    item = lqual.systems["seq2seq"][sorted(lqual.systems["seq2seq"])[0]]
    assert set(item["judgments"]) == {"fluency", "redundancy", "overall", "edit"}


def test_committed_canonical_files_load_and_match_counts(repo):
    for task, prompts, expected in (
        ("cnndm", CNNDM_PROMPTS, {"seq2seq": 524, "pointer": 520, "ml": 519, "ml+rl": 522, "reference": 513}),
        (
            "msmarco",
            MSMARCO_PROMPTS,
            dict.fromkeys(["fastqa", "fastqa_ext", "snet.single", "snet.ensemble", "reference"], 500),
        ),
    ):
        refs = read_references(repo / f"data/{task}/references.jsonl.gz")
        for system, count in expected.items():
            items = read_system(repo / f"data/{task}/systems/{system}.jsonl.gz", prompts, refs)
            assert judged(items) == count, (task, system)
            assert all(isinstance(i.id, str) for i in items)


def test_rerun_reproduces_committed_files_byte_for_byte(repo, tmp_path, capsys):
    assert convert_main(["--raw", str(repo / "data/raw"), "--out", str(tmp_path)]) == 0
    assert "msmarco: 500 references" in capsys.readouterr().out
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.jsonl.gz"))
    committed = sorted(
        p.relative_to(repo / "data")
        for task in ("cnndm", "msmarco")
        for p in (repo / "data" / task).rglob("*.jsonl.gz")
    )
    assert produced == committed
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (repo / "data" / rel).read_bytes(), rel
