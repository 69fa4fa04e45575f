"""How a name reads: names of systems (and other labels) compared as a person reads them, and
shown so that two spellings that read alike differ on screen.

A table's names are kept as written (:mod:`debias.io.rules` refuses two of a table's names that
read the same); a name a user writes elsewhere (a question, ``--baseline``) means the table's
name that reads as it does (:func:`find_name`). Only the standard library is imported.
"""

from __future__ import annotations

import unicodedata

__all__ = ["find_name", "name_key", "shown_name", "shown_names"]


def name_key(name) -> str:
    """What a name reads as: the name in Unicode's NFKC form without the invisible format
    characters (zero-width spaces and joiners, category Cf); a name of plain ASCII as it is."""
    name = str(name)
    if name.isascii():
        return name
    return unicodedata.normalize("NFKC", "".join(ch for ch in name if unicodedata.category(ch) != "Cf"))


def find_name(name, names):
    """The name of ``names`` (a table's systems) that ``name`` (as a user wrote it in a question or
    an option) means: itself, else the one name that reads the same once trimmed and normalised
    (:func:`name_key`: a composed "é" for a decomposed one, as the readers refuse two names that
    read alike); ``None`` when there is none."""
    names = list(names)
    if name in names:
        return name
    if not isinstance(name, str):
        return None
    key = name_key(name.strip())
    matches = [other for other in names if name_key(other) == key]
    return matches[0] if len(matches) == 1 else None


def shown_name(name) -> str:
    """A name quoted for a message (``repr``, which escapes invisible characters), its combining
    marks escaped too when it is not in Unicode's composed form (NFC), so that a decomposed
    "e\\u0301" does not look like the composed "é" beside it."""
    text = repr(str(name))
    if unicodedata.is_normalized("NFC", str(name)):
        return text
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.combining(ch) else ch for ch in text)


def shown_names(names) -> str:
    """Names for a message, each by :func:`shown_name`, separated by commas."""
    return ", ".join(shown_name(name) for name in names)
