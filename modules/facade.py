"""Package facades that load on first use.

A package of ``modules/`` lists what it offers in ``__all__`` and, for the names it does not
import itself, the module each one lives in. A name is imported when it is first asked for, so
that importing one light module of a package (``modules.research.render`` for a report) does not
load everything the package offers (DSPy, torch and polars take a second or more).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """The package's module ``__getattr__``: ``homes`` maps each lazily exported name to the
    submodule (relative to ``package``) that defines it."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)  # asked once: a plain attribute from then on
        return value

    return __getattr__


__all__ = ["lazy_exports"]
