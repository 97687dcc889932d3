"""The research agent's tool nodes: web and local search behind one interface with typed outcomes,
the crawler, and the local corpus served as a site."""

from ..facade import lazy_exports, lazy_names

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    crawl: CrawlConfig Crawler Page Refused fetch fetch_all
    engines: BACKENDS auto_order make_backend search
    local_index: DEFAULT_CORPUS Document LocalIndex LocalSearch read_corpus
    search: SearchBackend SearchResult SearchResults make_results
    settings: MissingSetting load_config setting
    site: CorpusSite SiteSearch site_for
"""
__all__ = lazy_names(_HOMES)
__getattr__ = lazy_exports(__name__, _HOMES)
