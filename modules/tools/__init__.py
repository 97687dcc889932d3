"""The research agent's tool nodes: web and local search behind one interface with typed outcomes,
the crawler, and the local corpus served as a site."""

from ..facade import lazy_exports

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "BACKENDS": "engines",
    "CorpusSite": "site",
    "CrawlConfig": "crawl",
    "Crawler": "crawl",
    "DEFAULT_CORPUS": "local_index",
    "Document": "local_index",
    "LocalIndex": "local_index",
    "LocalSearch": "local_index",
    "MissingSetting": "settings",
    "Page": "crawl",
    "Refused": "crawl",
    "SearchBackend": "search",
    "SearchResult": "search",
    "SearchResults": "search",
    "SiteSearch": "site",
    "auto_order": "engines",
    "fetch": "crawl",
    "fetch_all": "crawl",
    "load_config": "settings",
    "make_backend": "engines",
    "make_results": "search",
    "read_corpus": "local_index",
    "search": "engines",
    "setting": "settings",
    "site_for": "site",
}
__all__ = [*_HOMES]
__getattr__ = lazy_exports(__name__, _HOMES)
