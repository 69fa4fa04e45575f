"""Metrics for any language: non-ASCII words are kept, CJK text is tokenised by character,
chrF is sacrebleu's, and English scores are those of the packages' own defaults."""

from __future__ import annotations

import pytest
from rouge_score import rouge_scorer
from sacrebleu import sentence_bleu, sentence_chrf

from debias.metrics import metric_versions, score_outputs
from debias.metrics.modern import bleu_tokenizer, unicode_tokens


def test_german_words_are_kept_whole():
    assert unicode_tokens("Das Flüchtlingshotel hat eine Größe von 5 Zimmern.", "de") == [
        "das", "flüchtlingshotel", "hat", "eine", "größe", "von", "5", "zimmern",
    ]  # fmt: skip
    scores = score_outputs(["Größe"], ["Grüße"], metrics=["rouge1", "bleu"], language="de")
    assert scores["rouge1"].iloc[0] == 0.0  # two different words (ASCII-only tokens made them equal)
    same = score_outputs(["Die Größe"], ["die Größe"], metrics=["rouge1"], language="de")
    assert same["rouge1"].iloc[0] == pytest.approx(1.0)


def test_chinese_is_tokenised_by_character():
    assert unicode_tokens("我爱北京。", "zh") == ["我", "爱", "北", "京"]
    assert bleu_tokenizer("zh") == "zh" and bleu_tokenizer("de") == "13a" and bleu_tokenizer("th") == "char"
    scores = score_outputs(["我爱北京天安门"], ["我爱北京"], metrics=["rouge1", "bleu", "chrf"], language="zh")
    assert 0.5 < scores["rouge1"].iloc[0] < 1.0
    assert 0.0 < scores["bleu"].iloc[0] < 1.0 and 0.0 < scores["chrf"].iloc[0] < 1.0


def test_chrf_is_sacrebleus():
    output, reference = "Die Größe des Hotels ist gut", "Die Grüße des Hotels sind gut"
    scores = score_outputs([output], [reference], metrics=["chrf", "chrfpp"])
    assert scores["chrf"].iloc[0] == pytest.approx(sentence_chrf(output, [reference]).score / 100)
    assert scores["chrfpp"].iloc[0] == pytest.approx(sentence_chrf(output, [reference], word_order=2).score / 100)


def test_english_scores_are_the_packages_defaults():
    outputs = ["The cats were sitting on the mats.", "a dog ran quickly"]
    references = ["The cat sat on the mat.", "the dogs run quick"]
    scores = score_outputs(outputs, references, metrics=["bleu", "rouge1", "rougeL"])
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    for row, (output, reference) in enumerate(zip(outputs, references)):
        assert scores["bleu"].iloc[row] == pytest.approx(sentence_bleu(output, [reference]).score / 100, abs=1e-12)
        expected = scorer.score(reference, output)
        assert scores["rouge1"].iloc[row] == pytest.approx(expected["rouge1"].fmeasure, abs=1e-12)
        assert scores["rougeL"].iloc[row] == pytest.approx(expected["rougeL"].fmeasure, abs=1e-12)


def test_versions_without_bleu():
    versions = metric_versions(metrics=["rouge1", "chrf"])
    assert versions["bleu_signature"].startswith("not used")
    score_outputs(["a b"], ["a c"], metrics=["bleu"], language="de")
    assert "tok:13a" in metric_versions(metrics=["bleu"], language="de")["bleu_signature"]
