"""Query sets: the questions a site's audit asks AI assistants, with expected answers and claims.

Drafting them from a site's pages (``generate``, which loads DSPy) is a submodule of its own:
``from modules.queries import generate``, so that reading and approving a set stays light."""

from .queryset import Query, QuerySet, QuerySetError, load_query_set, write_query_set
from .review import Approval, approve_queries, draft_path, write_drafts

__all__ = [
    "Approval",
    "Query",
    "QuerySet",
    "QuerySetError",
    "approve_queries",
    "draft_path",
    "generate",
    "load_query_set",
    "write_drafts",
    "write_query_set",
]
