"""Query sets: the questions a site's audit asks AI assistants, with expected answers and claims
(drafting them from a site's pages, which loads DSPy, only when it is asked for)."""

from ..facade import lazy_exports, lazy_names
from .queryset import Query, QuerySet, QuerySetError, load_query_set, write_query_set
from .review import Approval, approve_queries, draft_path, write_drafts

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    generate: draft_query_set
"""
__all__ = [
    "Approval",
    "Query",
    "QuerySet",
    "QuerySetError",
    "approve_queries",
    "draft_path",
    "load_query_set",
    "write_drafts",
    "write_query_set",
    *lazy_names(_HOMES),
]
__getattr__ = lazy_exports(__name__, _HOMES)
