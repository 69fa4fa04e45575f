"""ROUGE of the ``rouge`` package at version 0.2.1, which the paper's Table 1 used (March 2018).

``Rouge().get_scores(output, reference)`` with both texts as NLTK word tokens joined by
spaces, case kept (:func:`debias.metrics.tokens.tokenised_text`); the package splits on
single spaces and neither stems nor lowercases. Its ROUGE-L is the sentence-level LCS
F-measure, with its own small epsilons (``f = (1 + b²) r p / (r + b² p + 1e-12)``,
``b = p / (r + 1e-12)``). Variants ``1``, ``2`` and ``L`` give the package's ``f``.

The package's ``setup.py`` imports the package itself (and so numpy) to read its version;
it installs with ``pip install --no-build-isolation rouge==0.2.1`` once numpy and wheel
are present, which ``make setup`` does.

References
----------
C.-Y. Lin. 2004. ROUGE: A package for automatic evaluation of summaries. In *Text
Summarization Branches Out*, ACL Workshop, pages 74-81.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import metadata

import numpy as np

from debias.metrics.tokens import tokenised_text

__all__ = ["VERSION", "VARIANTS", "score", "unavailable", "versions"]

VERSION = "0.2.1"
VARIANTS = ("1", "2", "L")
_NAMES = {"1": "rouge-1", "2": "rouge-2", "L": "rouge-l"}


def unavailable() -> str | None:
    """Why the package cannot be used (wrong version or missing), or None."""
    try:
        installed = metadata.version("rouge")
    except metadata.PackageNotFoundError:
        return (
            f"the Python package rouge=={VERSION} is not installed (with numpy installed: "
            f"pip install --no-build-isolation rouge=={VERSION}; or `make setup`)"
        )
    if installed != VERSION:
        return f"the Python package rouge is at {installed}, not {VERSION} (run `make setup`)"
    return None


@lru_cache(maxsize=1)
def _rouge():
    from rouge import Rouge

    return Rouge(metrics=list(_NAMES.values()), stats=["f"])


def score(
    outputs: Sequence[str], references: Sequence[str], variants: Sequence[str], context: Mapping = None
) -> dict[str, np.ndarray]:
    """The package's F-measure of every output against its reference, per variant."""
    reason = unavailable()
    if reason:
        raise RuntimeError(f"ROUGE (rouge {VERSION}) cannot run: {reason}")
    rouge = _rouge()
    scores = {variant: np.zeros(len(outputs)) for variant in variants}
    for row, (output, reference) in enumerate(zip(outputs, references)):
        (result,) = rouge.get_scores(tokenised_text(output), tokenised_text(reference))
        for variant in variants:
            scores[variant][row] = result[_NAMES[variant]]["f"]
    return scores


def versions(context: Mapping = None) -> dict:
    return {
        "package": "rouge " + metadata.version("rouge"),
        "score": "F (get_scores(output, reference)[0][...]['f'])",
        "text": "NLTK word tokens (untrained Punkt sentence split), case kept, joined by spaces",
    }
