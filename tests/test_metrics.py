"""Sentence-level BLEU, ROUGE and METEOR on small hand-checked examples."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest
import sacrebleu
from nltk.translate.meteor_score import meteor_score
from rouge_score import rouge_scorer

from debias.metrics import METEOR_PARAMS, METRICS, meteor_tokens, metric_versions, score_outputs

REPO = Path(__file__).resolve().parent.parent
NLTK_DATA = REPO / "nltk_data"
UNK = "\u2583"  # the unknown-token mark of the CNN/Daily Mail outputs


@pytest.fixture(scope="module")
def nltk_data() -> Path:
    if not (NLTK_DATA / "corpora" / "wordnet" / ".provisioned").is_file():
        pytest.fail(
            f"WordNet is not provisioned in {NLTK_DATA}: run `make setup` "
            "(or `python -m tools.provision.wordnet --target nltk_data`)"
        )
    return NLTK_DATA


def score_one(output: str, reference: str, nltk_data: Path) -> dict:
    return score_outputs([output], [reference], nltk_data).iloc[0].to_dict()


class _NoSynonyms:
    """A WordNet stand-in that knows no word: METEOR with exact and stem matches only."""

    @staticmethod
    def synsets(word):
        return []


def test_columns_rows_and_index(nltk_data):
    frame = score_outputs(["a b c", "d e f", "g"], ["a b c", "x y z", "g h"], nltk_data)
    assert tuple(frame.columns) == METRICS == ("bleu", "rouge1", "rouge2", "rougeL", "meteor")
    assert list(frame.index) == [0, 1, 2]
    assert all(str(t) == "float64" for t in frame.dtypes)


def test_identical_texts_score_one(nltk_data):
    text = "The cat sat on the mat ."
    s = score_one(text, text, nltk_data)
    assert s["bleu"] == pytest.approx(1.0, abs=1e-12)
    assert s["rouge1"] == s["rouge2"] == s["rougeL"] == 1.0
    # NLTK's METEOR keeps a fragmentation penalty even for a perfect match:
    # one chunk of n = 7 matched tokens gives 1 - 0.5 * (1/7)**3.
    n = len(meteor_tokens(text))
    assert n == 7
    assert s["meteor"] == pytest.approx(1 - 0.5 * (1 / n) ** 3, abs=1e-12)
    assert s["meteor"] < 1.0


def test_disjoint_texts_score_zero(nltk_data):
    s = score_one("alpha beta gamma delta", "one two three four five", nltk_data)
    assert s == {m: 0.0 for m in METRICS}


def test_hand_computed_rouge(nltk_data):
    # Unigrams: output {the, brown, dog}, reference {the, quick, brown, fox}.
    # Two in common: P = 2/3, R = 2/4, F = 2PR/(P+R) = 4/7.  No bigram in common.
    # Longest common subsequence "the brown": ROUGE-L F is 4/7 as well.
    s = score_one("The brown dog", "the quick brown fox", nltk_data)
    assert s["rouge1"] == pytest.approx(4 / 7)
    assert s["rouge2"] == 0.0
    assert s["rougeL"] == pytest.approx(4 / 7)


def test_rouge_l_uses_subsequence_not_unigram_overlap(nltk_data):
    # Same unigrams, reversed order: ROUGE-1 is 1 but the LCS has length 1 of 3.
    s = score_one("c b a", "a b c", nltk_data)
    assert s["rouge1"] == 1.0
    assert s["rougeL"] == pytest.approx(1 / 3)
    assert s["rouge2"] == 0.0


def test_rouge_stems_but_bleu_does_not(nltk_data):
    s = score_one("cats", "cat", nltk_data)
    assert s["rouge1"] == 1.0
    assert s["rougeL"] == 1.0
    assert s["bleu"] == 0.0
    unstemmed = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False).score("cat", "cats")
    assert unstemmed["rouge1"].fmeasure == 0.0  # so the 1.0 above is the stemmer's doing


def test_bleu_matches_sacrebleu_sentence_bleu_defaults(nltk_data):
    output = "The senator said on Tuesday that the bill would pass , probably ."
    reference = "On Tuesday the senator said the bill will probably pass."
    expected = sacrebleu.sentence_bleu(output, [reference]).score / 100
    s = score_one(output, reference, nltk_data)
    assert 0 < s["bleu"] < 1
    assert s["bleu"] == pytest.approx(expected, abs=1e-12)


def test_bleu_is_case_sensitive(nltk_data):
    assert score_one("THE CAT", "the cat", nltk_data)["bleu"] == 0.0
    assert score_one("THE CAT", "the cat", nltk_data)["rouge1"] == 1.0


def test_meteor_uses_wordnet_synonyms(nltk_data):
    output, reference = "the car is fast", "the auto is fast"
    s = score_one(output, reference, nltk_data)
    # With WordNet "car" matches its synonym "auto" (car.n.01): 4 of 4 tokens in one chunk.
    assert s["meteor"] == pytest.approx(1 - 0.5 * (1 / 4) ** 3)
    # Exact matching alone: the, is, fast (3 of 4) in 2 chunks ("the", "is fast"):
    # Fmean = 3/4, penalty = 0.5 * (2/3)**3, score = 0.75 * (1 - 4/27).
    exact_only = meteor_score([meteor_tokens(reference)], meteor_tokens(output), wordnet=_NoSynonyms(), **METEOR_PARAMS)
    assert exact_only == pytest.approx(0.75 * (1 - 4 / 27))
    assert s["meteor"] > exact_only + 0.3


def test_meteor_synonyms_are_looked_up_on_porter_stems(nltk_data):
    # NLTK's METEOR runs its WordNet stage on the Porter stems of the words left
    # unmatched: "automobile" becomes "automobil", which is no lemma of any synset
    # of "car", so this synonym pair is not matched (a property of NLTK's METEOR).
    s = score_one("the car is fast", "the automobile is fast", nltk_data)
    assert s["meteor"] == pytest.approx(0.75 * (1 - 4 / 27))


def test_meteor_matches_stems(nltk_data):
    # "walked" and "walk" share the Porter stem "walk".
    s = score_one("he walked home", "he walk home", nltk_data)
    assert s["meteor"] == pytest.approx(1 - 0.5 * (1 / 3) ** 3)


@pytest.mark.parametrize("blank", ["", " ", "\n\t  "])
def test_empty_output_or_reference_scores_zero(nltk_data, blank):
    frame = score_outputs([blank, "a real sentence ."], ["a real sentence .", blank], nltk_data)
    assert frame.to_dict("records") == [{m: 0.0 for m in METRICS}] * 2


def test_unknown_token_mark(nltk_data):
    output = f"Nepalese , {UNK} , sustained severe injuries ."
    reference = f"A {UNK} woman sustained severe injuries in Nepal ."
    assert UNK in meteor_tokens(output)
    s = score_one(output, reference, nltk_data)
    assert all(0.0 <= s[m] <= 1.0 for m in METRICS)
    assert s["meteor"] > 0 and s["bleu"] > 0
    only_unk = score_one(UNK, UNK, nltk_data)
    assert only_unk["bleu"] == pytest.approx(1.0)
    assert only_unk["meteor"] == pytest.approx(0.5)  # one token: penalty 0.5 * 1**3
    assert only_unk["rouge1"] == 0.0  # rouge-score's tokeniser keeps only [a-z0-9]


def test_all_scores_within_unit_interval(nltk_data):
    words = (
        "the a police man said on Monday that his dog ran away , and "
        f"{UNK} officials were looking for it near the river ."
    ).split()
    outputs, references = [], []
    for i in range(40):
        outputs.append(" ".join(words[(i * 7 + k) % len(words)] for k in range(3 + i % 17)))
        references.append(" ".join(words[(i * 3 + k * 2) % len(words)] for k in range(5 + i % 11)))
    frame = score_outputs(outputs, references, nltk_data)
    assert frame.shape == (40, len(METRICS))
    assert ((frame >= 0) & (frame <= 1)).all().all()
    assert (frame.max() > 0).all()  # not trivially all zero


def test_input_validation(nltk_data):
    with pytest.raises(ValueError, match="one reference per output"):
        score_outputs(["a", "b"], ["a"], nltk_data)
    with pytest.raises(TypeError):
        score_outputs(["a", None], ["a", "b"], nltk_data)
    with pytest.raises(TypeError):
        score_outputs("a b", "a b", nltk_data)


def test_meteor_tokens_use_13a_lowercased():
    assert meteor_tokens("Hello, World. It's 5:30!") == ["hello", ",", "world", ".", "it's", "5", ":", "30", "!"]
    assert meteor_tokens(f"  A {UNK} b\n") == ["a", UNK, "b"]
    assert meteor_tokens("   ") == []


def test_metric_versions(nltk_data):
    score_outputs(["x"], ["x"], nltk_data)
    versions = metric_versions()
    assert versions == metric_versions(nltk_data)
    assert versions["wordnet"] == "3.0"
    assert versions["sacrebleu"] == sacrebleu.__version__
    sig = versions["bleu_signature"]
    for part in ("tok:13a", "smooth:exp", "case:mixed", "eff:yes", f"version:{sacrebleu.__version__}"):
        assert part in sig
    assert versions["rouge_score"] == metadata.version("rouge-score")
    assert Path(versions["wordnet_path"]) == (nltk_data / "corpora" / "wordnet").resolve()
    for key in ("nltk", "meteor_settings", "rouge_settings"):
        assert versions[key]


def test_cached_rouge_tokenizer_matches_rouge_score_default():
    """The stem-caching tokenizer must give exactly rouge-score's stemmed tokens."""
    from rouge_score import tokenizers

    from debias.metrics.modern import _StemmingTokenizer

    reference = tokenizers.DefaultTokenizer(use_stemmer=True)
    ours = _StemmingTokenizer()
    texts = [
        "The cats were running quickly towards the houses.",
        "Generously, relational ▃ conditional 5:30",
        "",
        "agreed agreement agreeing",
        "The cats were running quickly towards the houses.",
    ]
    for text in texts:
        assert ours.tokenize(text) == reference.tokenize(text)


def test_subset_of_metrics_needs_no_wordnet(tmp_path):
    """Without METEOR in the list, scoring works even where no WordNet exists."""
    from debias.metrics import metric_versions, score_outputs

    frame = score_outputs(
        ["the cat sat"], ["the cat sat on the mat"], tmp_path / "no-wordnet", metrics=["bleu", "rougeL"]
    )
    assert list(frame.columns) == ["bleu", "rougeL"]
    assert 0 < frame.loc[0, "bleu"] < 1 and frame.loc[0, "rougeL"] == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert metric_versions(tmp_path / "no-wordnet", meteor=False)["wordnet"].startswith("not used")
    with pytest.raises(ValueError, match="names no implementation"):
        score_outputs(["a"], ["a"], tmp_path, metrics=["cider"])
