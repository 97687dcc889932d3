"""Choosing a search backend by name, and the one ``search`` entry point."""

from __future__ import annotations

import os
from typing import Any

from .local_index import LocalSearch
from .search import AutoSearch, DuckDuckGo, GoogleCustomSearch, SearchBackend, SearchResults, SearXNG, Serper
from .settings import load_config

BACKENDS = {
    "duckduckgo": DuckDuckGo,
    "google": GoogleCustomSearch,
    "serper": Serper,
    "searxng": SearXNG,
    "local": LocalSearch,
}


def auto_order(config: dict[str, Any] | None = None) -> list[str]:
    """``$SLEUTH_SEARCH_ORDER`` (comma-separated), else ``[search] order``, else just ``local``."""
    raw = os.environ.get("SLEUTH_SEARCH_ORDER")
    if raw:
        return [n.strip() for n in raw.split(",") if n.strip()]
    config = load_config() if config is None else config
    return list(config.get("search", {}).get("order", ["local"]))


def make_backend(name: str, **options: Any) -> SearchBackend:
    """A backend by name; ``auto`` chains the configured order. Missing keys raise MissingSetting."""
    if name == "auto":
        return AutoSearch([make_backend(n) for n in auto_order()])
    try:
        return BACKENDS[name](**options)
    except KeyError:
        raise ValueError(f"unknown search engine {name!r}: use auto, {', '.join(BACKENDS)}") from None


def search(query: str, max_results: int = 10, *, engine: str | None = None, **options: Any) -> SearchResults:
    """Search with ``engine`` (default ``$SLEUTH_SEARCH_ENGINE`` or ``auto``)."""
    return make_backend(engine or os.environ.get("SLEUTH_SEARCH_ENGINE") or "auto", **options).search(
        query, max_results
    )
