"""Which sections a run's report has, by the kind of run (``runs.flow``): one registry, read by the
HTML report, the markdown summary and the figures table alike. A new kind of run adds its
:class:`~modules.store.runs.RunKind` and one entry here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from ..store import ParquetStore
from ..store.runs import RunKind
from . import markdown as md
from .evaluation import evaluation_sections
from .rerank import rerank_sections
from .research import research_sections
from .response import collect_sections, response_sections, verdict_sections

#: (store, run id, kind) -> what the layout shows
Sections = Callable[[ParquetStore, str, RunKind], list[str]]
Markdown = Callable[[ParquetStore, str, RunKind], str]
Figures = Callable[[ParquetStore, str, RunKind], tuple[pl.DataFrame, list[str]]]


@dataclass(frozen=True)
class Layout:
    """A kind of run's report: its name in the title, the HTML sections, the markdown below the
    summary line (none: the line alone) and the figures table (none: no table)."""

    label: str
    sections: Sections
    markdown: Markdown | None = None
    figures: Figures | None = None


def _any_kind(function: Callable):
    """``function(store, run_id)`` as a layout function, which is also given the run's kind."""
    return lambda store, run_id, kind: function(store, run_id)


RESPONSE = Layout(
    "response analysis", response_sections, _any_kind(md.response_markdown), md.response_figures
)
RESEARCH = Layout(
    "research", _any_kind(research_sections), _any_kind(md.research_markdown), _any_kind(md.research_figures)
)
RERANKING = Layout(
    "reranking", _any_kind(rerank_sections), _any_kind(md.rerank_markdown), _any_kind(md.rerank_figures)
)
COLLECTION = Layout(
    "answer collection",
    _any_kind(collect_sections),
    _any_kind(md.collect_markdown),
    _any_kind(md.collect_figures),
)
EVALUATION = Layout(
    "program evaluation", _any_kind(evaluation_sections), figures=_any_kind(md.evaluation_figures)
)

VERDICTS = Layout("analyst verdicts", _any_kind(verdict_sections), _any_kind(md.verdicts_markdown))

LAYOUTS: dict[RunKind, Layout] = {
    RunKind.ANALYZE: RESPONSE,
    RunKind.REANALYZE: RESPONSE,
    RunKind.MONITOR: RESPONSE,
    RunKind.RESEARCH: RESEARCH,
    RunKind.RESEARCH_BATCH: RESEARCH,
    RunKind.FEEDBACK: RESEARCH,
    RunKind.RERANK_BATCH: RERANKING,
    RunKind.COLLECT: COLLECTION,
    RunKind.OPTIMIZE: EVALUATION,
    RunKind.EVALUATE: EVALUATION,
    RunKind.VERDICTS: VERDICTS,
}


def layout_of(store: ParquetStore, run_id: str, kind: RunKind) -> Layout | None:
    """The layout of run ``run_id``: its kind's, except that a monitor stopped before its
    analysis (it wrote only what it collected) is shown as the collection it is."""
    if kind == RunKind.MONITOR and not store.run_exists(run_id, ("analyses",)):
        return COLLECTION
    return LAYOUTS.get(kind)
