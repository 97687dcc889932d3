"""Package facades that load on first use.

A package of ``modules/`` lists what it offers in ``__all__`` and, for the names it does not
import itself, each module with the names it contributes (``{"crawl": "Crawler fetch"}``). A name is imported when it is first asked for, so
that importing one light module of a package (``modules.research.render`` for a report) does not
load everything the package offers (DSPy, torch and polars take a second or more).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_names(homes: Mapping[str, str]) -> list[str]:
    """The names ``homes`` exports lazily: each submodule's space-separated names, in order."""
    return [name for names in homes.values() for name in names.split()]


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """The package's module ``__getattr__``: ``homes`` maps each submodule (relative to
    ``package``) to the space-separated names it defines that the package exports lazily."""
    home_of = {name: module for module, names in homes.items() for name in names.split()}

    def __getattr__(name: str) -> object:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)  # asked once: a plain attribute from then on
        return value

    return __getattr__


__all__ = ["lazy_exports", "lazy_names"]
