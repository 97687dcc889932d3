"""The relevance analyzer: search results scored 0-100 against a question and research plan,
filtered, with the key sentence anchored, core terms highlighted and brief answers written
(a DSPy node with a deterministic baseline program)."""

from .analyzer import RelevanceAnalyzer
from .baseline import Weights
from .batch import (
    RERANKINGS_SCHEMA,
    load_items,
    output_line,
    reranking_rows,
    rerankings_frame,
    validate_item,
)
from .schema import RankedResult, Reranking, ResearchPlan, SearchResultIn

__all__ = [
    "RERANKINGS_SCHEMA",
    "RankedResult",
    "RelevanceAnalyzer",
    "Reranking",
    "ResearchPlan",
    "SearchResultIn",
    "Weights",
    "load_items",
    "output_line",
    "reranking_rows",
    "rerankings_frame",
    "validate_item",
]
