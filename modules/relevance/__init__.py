"""The relevance analyzer: search results scored 0-100 against a question and research plan,
filtered, with the key sentence anchored, core terms highlighted and brief answers written
(a DSPy node with a deterministic baseline program)."""

from ..facade import lazy_exports, lazy_names

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    analyzer: RelevanceAnalyzer
    baseline: Weights trained_models
    batch: RERANKINGS_SCHEMA load_items output_line reranking_rows rerankings_frame validate_item
    schema: RankedResult Reranking ResearchPlan SearchResultIn
"""
__all__ = lazy_names(_HOMES)
__getattr__ = lazy_exports(__name__, _HOMES)
