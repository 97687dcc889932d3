"""The research agent's tool nodes: web and local search behind one interface with typed outcomes,
the crawler, and the local corpus served as a site."""

from .crawl import (
    CrawlConfig,
    Crawler,
    Page,
    Refused,
    fetch,
    fetch_all,
)
from .engines import (
    BACKENDS,
    auto_order,
    make_backend,
    search,
)
from .local_index import (
    DEFAULT_CORPUS,
    Document,
    LocalIndex,
    LocalSearch,
    read_corpus,
)
from .search import (
    SearchBackend,
    SearchResult,
    SearchResults,
    make_results,
)
from .settings import MissingSetting, load_config, setting
from .site import CorpusSite, SiteSearch, site_for

__all__ = [
    "BACKENDS",
    "CorpusSite",
    "CrawlConfig",
    "Crawler",
    "DEFAULT_CORPUS",
    "Document",
    "LocalIndex",
    "LocalSearch",
    "MissingSetting",
    "Page",
    "Refused",
    "SearchBackend",
    "SearchResult",
    "SearchResults",
    "SiteSearch",
    "auto_order",
    "fetch",
    "fetch_all",
    "load_config",
    "make_backend",
    "make_results",
    "read_corpus",
    "search",
    "setting",
    "site_for",
]
