"""Sentence-level automatic metrics: BLEU, ROUGE-1/2/L and METEOR.

Every system output is scored against the single reference of its item; all
scores lie in [0, 1].

* ``bleu``: sacrebleu's sentence BLEU with its defaults (13a tokenisation,
  case-sensitive, exponential smoothing, effective n-gram order), divided by
  100.
* ``rouge1``, ``rouge2``, ``rougeL``: F-measure of rouge-score's
  ``RougeScorer`` with the Porter stemmer (rouge-score lowercases and keeps
  only ``[a-z0-9]`` runs as tokens).
* ``meteor``: NLTK's ``meteor_score`` (exact, Porter-stem and WordNet-synonym
  matching; alpha 0.9, beta 3, gamma 0.5) with WordNet 3.0 from the project's
  NLTK data directory.  It is never computed without WordNet:
  :func:`debias.wordnet.use_wordnet` raises when WordNet is missing.

An output or reference that is empty or only whitespace scores 0 on every
metric.  Texts may contain the unknown-token mark ``▃`` (U+2583); BLEU and
METEOR treat it as an ordinary token, rouge-score's tokeniser drops it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from importlib import metadata

import nltk
import pandas as pd
import sacrebleu
from nltk.stem.porter import PorterStemmer
from nltk.translate.meteor_score import meteor_score
from rouge_score import rouge_scorer, tokenize, tokenizers
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from debias.config import COMPUTED_METRICS
from debias.wordnet import (
    WordNetUnavailableError,
    loaded_wordnet,
    use_wordnet,
    wordnet_version,
)

__all__ = ["METRICS", "METEOR_PARAMS", "meteor_tokens", "metric_versions", "score_outputs"]

METRICS = COMPUTED_METRICS

#: NLTK's defaults, recorded explicitly so that a change of default would show.
METEOR_PARAMS = {"alpha": 0.9, "beta": 3.0, "gamma": 0.5}

_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


@lru_cache(maxsize=1)
def _bleu() -> BLEU:
    # The same settings as sacrebleu.sentence_bleu's defaults.
    return BLEU(effective_order=True)


class _CachedStemmer:
    """NLTK's Porter stemmer (the one rouge-score uses) with its results memoised: the same
    words recur across thousands of outputs, and stemming is most of ROUGE's cost."""

    def __init__(self):
        self.stem = lru_cache(maxsize=200_000)(PorterStemmer().stem)


class _StemmingTokenizer(tokenizers.Tokenizer):
    """rouge-score's own tokenisation with stemming, through its documented Tokenizer
    extension point, so that the stems can be cached; tokens are identical to
    ``RougeScorer(..., use_stemmer=True)``'s."""

    def __init__(self):
        self._stemmer = _CachedStemmer()

    def tokenize(self, text):
        return tokenize.tokenize(text, self._stemmer)


@lru_cache(maxsize=1)
def _rouge() -> rouge_scorer.RougeScorer:
    return rouge_scorer.RougeScorer(list(_ROUGE_TYPES), use_stemmer=True, tokenizer=_StemmingTokenizer())


@lru_cache(maxsize=1)
def _tokenizer_13a() -> Tokenizer13a:
    return Tokenizer13a()


@lru_cache(maxsize=1)
def _stemmer() -> PorterStemmer:
    return PorterStemmer()


def meteor_tokens(text: str) -> list[str]:
    """Tokens METEOR sees: sacrebleu's 13a tokenisation of *text*, lowercased.

    NLTK's ``meteor_score`` wants pre-tokenised input.  NLTK's usual
    ``word_tokenize`` needs the downloadable punkt model, so the 13a tokeniser
    (the one BLEU uses, needing no data) splits the text instead: it separates
    ASCII punctuation from words and splits on whitespace; ``▃`` stays a token.
    """
    return _tokenizer_13a()(text.strip()).lower().split()


class _SynonymCache:
    """WordNet reader front that memoises ``synsets(word)``.

    METEOR asks for the synsets of every hypothesis word of every pair; the
    same words recur across thousands of summaries, so the lookups are cached.
    Only ``synsets`` is used by NLTK's METEOR.
    """

    def __init__(self, reader):
        self._reader = reader
        self.synsets = lru_cache(maxsize=200_000)(self._lookup)

    def _lookup(self, word: str):
        return tuple(self._reader.synsets(word))

    def __getattr__(self, name):
        return getattr(self._reader, name)


@lru_cache(maxsize=8)
def _meteor_wordnet(reader) -> _SynonymCache:
    return _SynonymCache(reader)


def _is_blank(text: str) -> bool:
    return not text or text.isspace()


def _check_texts(name: str, texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a sequence of strings, not a single string")
    checked = list(texts)
    for i, text in enumerate(checked):
        if not isinstance(text, str):
            raise TypeError(f"{name}[{i}] is {type(text).__name__}, not str")
    return checked


def score_outputs(
    outputs: Sequence[str],
    references: Sequence[str],
    nltk_data_dir: str | os.PathLike,
    metrics: Sequence[str] = METRICS,
) -> pd.DataFrame:
    """Score each output against its reference on each of ``metrics`` (default: all of
    :data:`METRICS`).

    Returns a DataFrame with one row per output (in order, default index) and
    one float column per metric, every value in [0, 1].  When METEOR is asked
    for, WordNet is loaded from *nltk_data_dir* (see
    :func:`debias.wordnet.use_wordnet`) before anything is scored, so a missing
    WordNet fails loudly instead of lowering METEOR.
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; known: {', '.join(METRICS)}")
    outputs = _check_texts("outputs", outputs)
    references = _check_texts("references", references)
    if len(outputs) != len(references):
        raise ValueError(f"{len(outputs)} outputs but {len(references)} references; need one reference per output")
    wants_meteor = "meteor" in metrics
    wants_rouge = any(m in _ROUGE_TYPES for m in metrics)
    wordnet = _meteor_wordnet(use_wordnet(nltk_data_dir)) if wants_meteor else None
    bleu, rouge, stemmer = _bleu(), _rouge(), _stemmer()

    rows = []
    for output, reference in zip(outputs, references):
        if _is_blank(output) or _is_blank(reference):
            rows.append((0.0,) * len(METRICS))
            continue
        bleu_score = bleu.sentence_score(output, [reference]).score / 100.0 if "bleu" in metrics else 0.0
        rouge_scores = rouge.score(reference, output) if wants_rouge else {}  # (target, prediction)
        meteor = (
            meteor_score(
                [meteor_tokens(reference)],
                meteor_tokens(output),
                stemmer=stemmer,
                wordnet=wordnet,
                **METEOR_PARAMS,
            )
            if wants_meteor
            else 0.0
        )
        rows.append(
            (
                bleu_score,
                *(rouge_scores[kind].fmeasure if kind in rouge_scores else 0.0 for kind in _ROUGE_TYPES),
                float(meteor),
            )
        )
    frame = pd.DataFrame(rows, columns=list(METRICS), dtype=float)[list(metrics)]
    # Guard against floating-point overshoot (e.g. 1.0000000000000002) only.
    overshoot = (frame < -1e-9) | (frame > 1 + 1e-9)
    if overshoot.any().any():
        raise AssertionError(f"metric outside [0, 1]:\n{frame[overshoot.any(axis=1)]}")
    return frame.clip(0.0, 1.0)


def metric_versions(nltk_data_dir: str | os.PathLike | None = None, meteor: bool = True) -> dict:
    """Versions and settings of the metric implementations, to store with scores.

    The WordNet entry describes the WordNet of *nltk_data_dir*, or, when it is
    omitted, the one the latest :func:`score_outputs` call used; with
    ``meteor=False`` (METEOR not computed) no WordNet is involved.
    """
    if not meteor:
        reader = None
    elif nltk_data_dir is not None:
        reader = use_wordnet(nltk_data_dir)
    else:
        reader = loaded_wordnet()
        if reader is None:
            raise WordNetUnavailableError("no WordNet loaded yet: call score_outputs first or pass nltk_data_dir")
    bleu = _bleu()
    return {
        "bleu_signature": str(bleu.get_signature()),
        "sacrebleu": sacrebleu.__version__,
        "rouge_score": metadata.version("rouge-score"),
        "rouge_settings": "F-measure; rouge1, rouge2, rougeL; use_stemmer=True",
        "nltk": nltk.__version__,
        "meteor_settings": (
            "nltk.translate.meteor_score, "
            + ", ".join(f"{k}={v}" for k, v in METEOR_PARAMS.items())
            + "; tokens: sacrebleu 13a, lowercased"
        ),
        "wordnet": wordnet_version(reader) if reader is not None else "not used (METEOR not computed)",
        "wordnet_path": str(reader.root) if reader is not None else None,
    }
