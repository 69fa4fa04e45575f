"""Loading the project's WordNet 3.0 for METEOR's synonym matching.

METEOR aligns words by exact form, by Porter stem and by WordNet synonymy.
Without WordNet the third stage silently matches nothing and the scores are
lower, so this module refuses to go on without it: :func:`use_wordnet` either
returns a working WordNet reader or raises :class:`WordNetUnavailableError`
saying where it looked and how to provision it.

The project keeps its WordNet in a project-local NLTK data directory
(``nltk_data/corpora/wordnet``), filled by ``make setup`` (which runs
``python -m tools.provision.wordnet --target nltk_data`` from the repository root); without a
clone, NLTK's own downloader fills it (``python -m nltk.downloader -d nltk_data wordnet``).
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

from debias.distribution.extras import missing

try:
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.data import FileSystemPathPointer
except ModuleNotFoundError as error:
    raise missing(error, "WordNet for METEOR") from None

__all__ = [
    "PROVISION_HINT",
    "WordNetUnavailableError",
    "loaded_wordnet",
    "read_wordnet",
    "use_wordnet",
    "wordnet_version",
]

PROVISION_HINT = (
    "Provision it with NLTK's downloader: `python -m nltk.downloader -d nltk_data wordnet`; "
    "in a clone of the repository with `make setup`, or directly with "
    "`python -m tools.provision.wordnet --target nltk_data` from its root (it tries NLTK's "
    "downloader, then Debian's wordnet-base and wordnet-sense-index packages)."
)

_RESOURCE = "corpora/wordnet"

_lock = threading.Lock()
_readers: dict[str, WordNetCorpusReader] = {}
_last: WordNetCorpusReader | None = None


class WordNetUnavailableError(RuntimeError):
    """NLTK cannot find or read WordNet, so METEOR cannot be computed."""


class EnglishWordNetReader(WordNetCorpusReader):
    """NLTK's WordNet reader without the cross-version synset map built at start-up, reading
    its index files with Python's text reader.

    That map (``map30``) only serves the Open Multilingual WordNet, which METEOR never uses,
    yet building it reads ``index.sense`` twice and is most of the ~4 s load time that every
    metrics job would otherwise pay. Synsets, lemmas and morphology are untouched.
    """

    def map_wn(self, version="wordnet"):
        return None

    #: Files NLTK reads once, start to end, when the reader is made (never by seeking).
    SEQUENTIAL_FILES = frozenset(
        {"index.adj", "index.adv", "index.noun", "index.verb"}
        | {f"{pos}.exc" for pos in ("adj", "adv", "noun", "verb")}
    )

    def open(self, fileid):
        """The index and exception files through Python's own text reader, which reads the same
        lines several times faster than NLTK's seekable one (about 2 s of the load); every other
        file, which NLTK seeks in, as NLTK opens it."""
        root = self.root
        if fileid in self.SEQUENTIAL_FILES and isinstance(root, FileSystemPathPointer):
            return open(root.join(fileid).path, encoding=self._encoding)
        return super().open(fileid)


def _search_path_text() -> str:
    entries = []
    for entry in nltk.data.path:
        raw = entry.path if hasattr(entry, "path") else entry
        entries.append(f"  - {raw}")
    return "\n".join(entries)


def _prepend_data_dir(directory: str) -> None:
    """Put *directory* first on ``nltk.data.path`` (once)."""
    nltk.data.path[:] = [directory] + [p for p in nltk.data.path if p != directory]


def read_wordnet(directory) -> WordNetCorpusReader:
    """Open the WordNet in ``directory`` (a path or NLTK path pointer) and check that it works.

    It must know the word "dog" and state its version; otherwise, or when NLTK cannot read it,
    :class:`WordNetUnavailableError` says why. The provisioning step checks what it installs
    with this same function.
    """
    root = str(directory.path) if hasattr(directory, "path") else str(directory)
    if not hasattr(directory, "path"):
        directory = str(directory)
    try:
        with warnings.catch_warnings():
            # Without the Open Multilingual WordNet NLTK warns that its
            # multilingual functions are unavailable; METEOR needs none.
            warnings.simplefilter("ignore")
            reader = EnglishWordNetReader(directory, None)
        has_dog = bool(reader.synsets("dog"))
        version = reader.get_version()
    except Exception as exc:
        first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
        raise WordNetUnavailableError(
            f"WordNet at {root} cannot be read by NLTK ({type(exc).__name__}: {first}).\n{PROVISION_HINT}"
        ) from exc
    if not has_dog or version is None:
        raise WordNetUnavailableError(
            f"WordNet at {root} looks broken (no synsets for 'dog' or no version line in data.adj).\n{PROVISION_HINT}"
        )
    return reader


def use_wordnet(nltk_data_dir: str | os.PathLike) -> WordNetCorpusReader:
    """Return NLTK's WordNet reader, searching *nltk_data_dir* before NLTK's defaults.

    *nltk_data_dir* (the project's ``nltk_data``) is put first on
    ``nltk.data.path``; NLTK's default locations stay after it.  The reader is
    checked (``synsets("dog")`` must not be empty) and cached, so later calls
    for the same WordNet are free.  Its version is :func:`wordnet_version`
    (``"3.0"`` for the provisioned copy).

    Raises :class:`WordNetUnavailableError`, naming the directories searched and
    how to provision WordNet, when no WordNet is found or NLTK cannot read it.
    """
    global _last
    directory = str(Path(nltk_data_dir).expanduser().resolve())
    with _lock:
        _prepend_data_dir(directory)
        try:
            pointer = nltk.data.find(_RESOURCE)
        except LookupError:
            raise WordNetUnavailableError(
                f"WordNet was not found for METEOR: no '{_RESOURCE}' in the project's "
                f"NLTK data directory {directory} nor in NLTK's other search paths:\n"
                f"{_search_path_text()}\n{PROVISION_HINT}"
            ) from None
        root = str(pointer.path) if hasattr(pointer, "path") else str(pointer)
        reader = _readers.get(root)
        if reader is None:
            reader = read_wordnet(pointer)
            _readers[root] = reader
        _last = reader
        return reader


def wordnet_version(reader: WordNetCorpusReader) -> str:
    """WordNet release of *reader* as read from its database, e.g. ``"3.0"``."""
    return str(reader.get_version())


def loaded_wordnet() -> WordNetCorpusReader | None:
    """The reader returned by the latest :func:`use_wordnet` call, if any."""
    return _last
