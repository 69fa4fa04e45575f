"""Today's sentence-level metrics from maintained packages: BLEU, chrF, ROUGE-1/2/L and METEOR.

The implementations behind the metric names ``bleu``, ``chrf``, ``chrfpp``, ``rouge1``,
``rouge2``, ``rougeL`` and ``meteor`` (see :mod:`debias.metrics` for the registry). Every
system output is scored against the single reference of its item; all scores lie in [0, 1].
The task's ``language`` (an ISO 639-1 code, default ``en``) chooses the tokenisation.

* ``bleu``: sacrebleu's sentence BLEU with its defaults (case-sensitive, exponential
  smoothing, effective n-gram order), divided by 100; tokenised with 13a, or for Chinese
  sacrebleu's ``zh``, for Japanese and Korean its MeCab tokenisers where installed, and
  characters for those and Thai, Lao, Khmer and Burmese otherwise (:func:`bleu_tokenizer`).
* ``chrf``, ``chrfpp``: sacrebleu's sentence chrF and chrF++ (character n-grams, and word
  bigrams for chrF++), divided by 100; they need no tokenisation and suit any language.
* ``rouge1``, ``rouge2``, ``rougeL``: F-measure of rouge-score's ``RougeScorer``. For English,
  with the Porter stemmer (rouge-score lowercases and keeps only ``[a-z0-9]`` runs as
  tokens). For any other language, the runs of letters and digits of any script, lowercased
  and not stemmed, each character a token in scripts written without spaces
  (:func:`unicode_tokens`).
* ``meteor``: NLTK's ``meteor_score`` (exact, Porter-stem and WordNet-synonym
  matching; alpha 0.9, beta 3, gamma 0.5) with WordNet 3.0 from the project's
  NLTK data directory.  It is never computed without WordNet:
  :func:`debias.metrics.wordnet.use_wordnet` raises when WordNet is missing.

Blank outputs and references never reach this module (the registry scores them 0).
Texts may contain the unknown-token mark ``▃`` (U+2583); BLEU and METEOR treat it as an
ordinary token, rouge-score's tokeniser drops it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import metadata

import numpy as np

from debias.distribution.extras import missing

try:
    import nltk
    import sacrebleu
    from nltk.stem.porter import PorterStemmer
    from nltk.translate.meteor_score import meteor_score
    from rouge_score import rouge_scorer, tokenize, tokenizers
    from sacrebleu.metrics import BLEU, CHRF
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
except ModuleNotFoundError as error:
    raise missing(error, "Computing BLEU, chrF, ROUGE and METEOR from texts") from None

from debias.metrics import IMPLEMENTATIONS
from debias.metrics.wordnet import (
    WordNetUnavailableError,
    loaded_wordnet,
    use_wordnet,
    wordnet_version,
)

__all__ = ["METRICS", "METEOR_PARAMS", "bleu_tokenizer", "meteor_tokens", "score", "unicode_tokens", "versions"]

#: The scores this module computes: the variants of the ``modern`` implementations, in registry order.
METRICS = tuple(entry.variant for entry in IMPLEMENTATIONS.values() if entry.family == "modern")

#: Languages written without spaces between words: their ROUGE tokens are characters.
UNSPACED = {"zh", "ja", "th", "lo", "km", "my"}

#: NLTK's defaults, recorded explicitly so that a change of default would show.
METEOR_PARAMS = {"alpha": 0.9, "beta": 3.0, "gamma": 0.5}

_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


def bleu_tokenizer(language: str = "en") -> str:
    """sacrebleu's tokeniser for a language: 13a unless the script needs another and it runs here."""
    if language == "zh":
        return "zh"
    if language in ("ja", "ko"):
        try:
            BLEU(tokenize=f"{language}-mecab")
            return f"{language}-mecab"
        except (RuntimeError, ImportError):
            return "char"
    return "char" if language in UNSPACED else "13a"


@lru_cache(maxsize=8)
def _bleu(language: str = "en") -> BLEU:
    # The same settings as sacrebleu.sentence_bleu's defaults; English keeps them exactly.
    if language == "en":
        return BLEU(effective_order=True)
    return BLEU(effective_order=True, tokenize=bleu_tokenizer(language))


@lru_cache(maxsize=2)
def _chrf(word_order: int) -> CHRF:
    return CHRF(word_order=word_order)


def unicode_tokens(text: str, language: str) -> list[str]:
    """ROUGE tokens for a language other than English: lowercased runs of letters and digits of
    any script (no stemming), split into characters for scripts written without spaces."""
    runs = re.findall(r"[^\W_]+", text.lower())
    if language in UNSPACED:
        return [char for run in runs for char in run]
    return runs


class _UnicodeTokenizer(tokenizers.Tokenizer):
    def __init__(self, language: str):
        self.language = language

    def tokenize(self, text):
        return unicode_tokens(text, self.language)


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


@lru_cache(maxsize=8)
def _rouge(language: str = "en") -> rouge_scorer.RougeScorer:
    if language != "en":
        return rouge_scorer.RougeScorer(list(_ROUGE_TYPES), tokenizer=_UnicodeTokenizer(language))
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


def score(
    outputs: Sequence[str], references: Sequence[str], variants: Sequence[str], context: Mapping
) -> dict[str, np.ndarray]:
    """Score non-blank ``outputs`` against ``references`` on each variant of :data:`METRICS`.

    ``context["nltk_data"]`` is the NLTK data directory WordNet is loaded from when METEOR
    is asked for (see :func:`debias.metrics.wordnet.use_wordnet`): it is loaded before anything is
    scored, so a missing WordNet fails loudly instead of lowering METEOR.
    """
    language = context.get("language") or "en"
    wants_meteor = "meteor" in variants
    wants_rouge = any(m in _ROUGE_TYPES for m in variants)
    wordnet = _meteor_wordnet(use_wordnet(context["nltk_data"])) if wants_meteor else None
    bleu, rouge, stemmer = _bleu(language), _rouge(language), _stemmer()
    chrf = {name: _chrf(order) for name, order in (("chrf", 0), ("chrfpp", 2)) if name in variants}
    scores = {name: np.zeros(len(outputs)) for name in variants}
    for row, (output, reference) in enumerate(zip(outputs, references)):
        if "bleu" in variants:
            scores["bleu"][row] = bleu.sentence_score(output, [reference]).score / 100.0
        for name, metric in chrf.items():
            scores[name][row] = metric.sentence_score(output, [reference]).score / 100.0
        if wants_rouge:
            rouge_scores = rouge.score(reference, output)  # (target, prediction)
            for kind in _ROUGE_TYPES:
                if kind in variants:
                    scores[kind][row] = rouge_scores[kind].fmeasure
        if wants_meteor:
            scores["meteor"][row] = meteor_score(
                [meteor_tokens(reference)], meteor_tokens(output), stemmer=stemmer, wordnet=wordnet, **METEOR_PARAMS
            )
    return scores


def versions(
    nltk_data_dir: str | os.PathLike | None = None, meteor: bool = True, bleu: bool = True, language: str = "en"
) -> dict:
    """Versions and settings of these implementations, to store with scores.

    The WordNet entry describes the WordNet of *nltk_data_dir*, or, when it is
    omitted, the one the latest scoring call used; with ``meteor=False``
    (METEOR not computed) no WordNet is involved.
    """
    if not meteor:
        reader = None
    elif nltk_data_dir is not None:
        reader = use_wordnet(nltk_data_dir)
    else:
        reader = loaded_wordnet()
        if reader is None:
            raise WordNetUnavailableError("no WordNet loaded yet: score METEOR first or pass nltk_data_dir")
    # sacrebleu knows a signature's reference count only after scoring: ask only when BLEU ran.
    signature = str(_bleu(language).get_signature()) if bleu else "not used (BLEU not computed)"
    return {
        "bleu_signature": signature,
        "sacrebleu": sacrebleu.__version__,
        "rouge_score": metadata.version("rouge-score"),
        "rouge_settings": "F-measure; rouge1, rouge2, rougeL; "
        + ("use_stemmer=True" if language == "en" else f"Unicode letter and digit runs, no stemmer ({language})"),
        "nltk": nltk.__version__,
        "meteor_settings": (
            "nltk.translate.meteor_score, "
            + ", ".join(f"{k}={v}" for k, v in METEOR_PARAMS.items())
            + "; tokens: sacrebleu 13a, lowercased"
        ),
        "wordnet": wordnet_version(reader) if reader is not None else "not used (METEOR not computed)",
        "wordnet_path": str(reader.root) if reader is not None else None,
    }
