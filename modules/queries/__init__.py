"""Query sets: the questions a site's audit asks AI assistants, with expected answers and claims."""

from .queryset import Query, QuerySet, QuerySetError, load_query_set, write_query_set
from .review import Approval, approve_queries, draft_path, write_drafts

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
]
