"""Query sets: the questions a site's audit asks AI assistants, with expected answers and claims
(drafting them from a site's pages, which loads DSPy, only when it is asked for)."""

from ..facade import lazy_exports
from .queryset import Query, QuerySet, QuerySetError, load_query_set, write_query_set
from .review import Approval, approve_queries, draft_path, write_drafts

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {"draft_query_set": "generate"}
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
    *_HOMES,
]
__getattr__ = lazy_exports(__name__, _HOMES)
