"""Query sets: the questions a site's audit asks AI assistants, with expected answers and claims."""

from .queryset import Query, QuerySet, QuerySetError, load_query_set, write_query_set

__all__ = ["Query", "QuerySet", "QuerySetError", "load_query_set", "write_query_set"]
