"""Lazy public names of a package: each shape of :mod:`debias.stats` lists the names code above
the statistics may use and the module that holds each, and loads a module only on first use."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for ``homes`` (public name -> the
    module of the package that defines it)."""

    def __getattr__(name: str):
        if name in homes:
            return getattr(importlib.import_module(f"{package}.{homes[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(homes)

    return __getattr__, __dir__
