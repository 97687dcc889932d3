"""Package facades that load on first use.

A package of ``modules/`` lists what it offers in ``__all__`` and, for the names it does not
import itself, each module with the names it contributes, one module a line::

    crawl: Crawler fetch
    engines: BACKENDS search A name is imported when it is first asked for, so
that importing one light module of a package (``modules.research.render`` for a report) does not
load everything the package offers (DSPy, torch and polars take a second or more).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module


def _home_of(homes: str) -> dict[str, str]:
    """``homes`` (lines ``module: Name other_name``) as {name: module}."""
    home_of: dict[str, str] = {}
    for line in homes.strip().splitlines():
        module, _, names = line.partition(":")
        home_of |= dict.fromkeys(names.split(), module.strip())
    return home_of


def lazy_names(homes: str) -> list[str]:
    """The names ``homes`` exports lazily, in order."""
    return [*_home_of(homes)]


def lazy_exports(package: str, homes: str) -> Callable[[str], object]:
    """The package's module ``__getattr__``: ``homes`` lists each submodule (relative to
    ``package``) with the names it defines that the package exports lazily."""
    home_of = _home_of(homes)

    def __getattr__(name: str) -> object:
        home = home_of.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)  # asked once: a plain attribute from then on
        return value

    return __getattr__


__all__ = ["lazy_exports", "lazy_names"]
