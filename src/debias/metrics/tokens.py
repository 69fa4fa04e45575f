"""Word tokens as the paper's metric code saw them: NLTK's word tokenisation, with no data download.

The authors tokenised every output and reference with ``nltk.word_tokenize`` and joined the
tokens with single spaces before scoring them with ROUGE (March 2018: the ``rouge`` package,
case kept; July 2018: ROUGE-1.5.5, lowercased). ``word_tokenize`` first splits sentences
with NLTK's trained English Punkt model, which is a download (``punkt_tab``) that this
project cannot rely on. Here sentences are split by NLTK's Punkt algorithm *untrained*
(``PunktSentenceTokenizer()`` with empty parameters: a sentence ends at ``.``, ``?`` or ``!``
followed by white space, with no list of known abbreviations), and each sentence is then
tokenised by the same NLTK word tokenizer ``word_tokenize`` uses. The only difference from
the trained model is at abbreviations such as "Mr." or "U.S." followed by a space, where
the untrained splitter ends a sentence and the trained one may not; on the released
MS MARCO data this changes no Table 1 count.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["word_tokens", "tokenised_text"]


# NLTK is imported on first use: checking that a backend is available must not pay for it.
@lru_cache(maxsize=1)
def _sentences():
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer()


@lru_cache(maxsize=1)
def _words():
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def word_tokens(text: str) -> list[str]:
    """NLTK word tokens of ``text`` (line breaks count as spaces), sentence by sentence."""
    text = " ".join(text.split())
    words = _words()
    return [token for sentence in _sentences().tokenize(text) for token in words.tokenize(sentence)]


def tokenised_text(text: str, lowercase: bool = False) -> str:
    """``text`` as the authors passed it to ROUGE: its word tokens joined by single spaces."""
    joined = " ".join(word_tokens(text))
    return joined.lower() if lowercase else joined
