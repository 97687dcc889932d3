"""The relevance analyzer: search results scored 0-100 against a question and research plan,
filtered, with the key sentence anchored, core terms highlighted and brief answers written
(a DSPy node with a deterministic baseline program)."""

from ..facade import lazy_exports

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "RERANKINGS_SCHEMA": "batch",
    "RankedResult": "schema",
    "RelevanceAnalyzer": "analyzer",
    "Reranking": "schema",
    "ResearchPlan": "schema",
    "SearchResultIn": "schema",
    "Weights": "baseline",
    "load_items": "batch",
    "output_line": "batch",
    "reranking_rows": "batch",
    "rerankings_frame": "batch",
    "validate_item": "batch",
}
__all__ = [*_HOMES]
__getattr__ = lazy_exports(__name__, _HOMES)
