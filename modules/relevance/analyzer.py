"""The relevance analyzer node: the DSPy program when an LM is configured, else the baseline.

Failure handling (seed 000): LM errors, timeouts and output that stays unparseable after
retries never lose a result. With ``fallback="baseline"`` (default) the baseline program
scores instead; with ``fallback="original"`` (the seed's route handler) the results come back
in their original order, plain text, unscored. Either way ``fallback`` is true and ``error``
says why. A partial LM ranking keeps the results it left out, unscored, after the scored
ones in their original order; no result is ever dropped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Literal

import dspy

from ..embeddings import Embedder, LocalEmbedder
from ..lm import NodeRunner, as_data
from ..text import content_terms
from .anchor import locate
from .baseline import BaselineRelevance, Weights, brief_answer, introduction
from .highlight import highlight
from .schema import RankedResult, Reranking, ResearchPlan, SearchResultIn, SubScores
from .signatures import LMRanking, OrderResults, RankResults

DOC_CHARS = 3000  # per result in the LM prompt


class RelevanceAnalyzer:
    """Reranks search results against a query and plan: the LM program when an LM is set, else
    (or when it fails) the baseline program, or the original order as the last resort."""

    def __init__(
        self,
        embedder: Embedder | None = None,
        weights: Weights | None = None,
        runner: NodeRunner | None = None,
        program: dspy.Module | None = None,
        fallback: Literal["baseline", "original"] = "baseline",
    ):
        if fallback not in ("baseline", "original"):
            raise ValueError(f"fallback must be baseline or original, not {fallback!r}")
        self.embedder = embedder or LocalEmbedder()
        self.weights = weights or Weights()
        self.baseline = BaselineRelevance(self.embedder, self.weights)
        self.runner = runner or NodeRunner()
        self.program = self.runner.fit_program("relevance", program or dspy.Predict(RankResults))
        self.order_program = dspy.Predict(OrderResults)
        self.fallback = fallback

    def rerank(
        self, query: str, plan: ResearchPlan | dict | str | None, results: Sequence[SearchResultIn | dict]
    ) -> Reranking:
        if not str(query).strip():
            raise ValueError("the query is empty")
        items = [r if isinstance(r, SearchResultIn) else SearchResultIn.model_validate(r) for r in results]
        items = [r if r.id is not None else r.model_copy(update={"id": str(i)}) for i, r in enumerate(items)]
        plan = ResearchPlan.parse(plan)
        if self.runner.lm is None:
            return self.baseline(query, plan, items)
        inputs = rerank_inputs(query, plan, items, self.runner)
        call = self.runner.run(self.program, inputs, "rankings", lambda: None, node="relevance")
        if call.fallback:
            return self._failed(query, plan, items, call.error or "LM failed")
        prediction = call.output
        return self.from_rankings(query, items, prediction, plan)

    def order(
        self, query: str, plan: ResearchPlan | dict | str | None, results: Sequence[SearchResultIn | dict]
    ) -> list[int]:
        """The results' indices best first, for a reader that keeps only the order (the research
        loop): with an LM, a lean program that answers indices alone (a full ranking's anchors,
        brief answers and notes would be ~1.5k reply tokens thrown away); else the baseline's order.
        Indices the LM invents or repeats are ignored, those it leaves out follow in the given order."""
        items = [r if isinstance(r, SearchResultIn) else SearchResultIn.model_validate(r) for r in results]
        items = [r if r.id is not None else r.model_copy(update={"id": str(i)}) for i, r in enumerate(items)]
        plan = ResearchPlan.parse(plan)
        if self.runner.lm is not None:
            inputs = rerank_inputs(query, plan, items, self.runner, node="order")
            call = self.runner.run(self.order_program, inputs, "order", lambda: None, node="order")
            if not call.fallback and call.output:
                given = list(
                    dict.fromkeys(i for i in call.output if isinstance(i, int) and 0 <= i < len(items))
                )
                return given + [i for i in range(len(items)) if i not in given]
        ranked = (
            self.baseline(query, plan, items) if self.fallback == "baseline" else original_order(items, "")
        )
        return [r.originalIndex for r in ranked.results]

    def _failed(self, query: str, plan: ResearchPlan, items: list[SearchResultIn], error: str) -> Reranking:
        if self.fallback == "baseline":
            try:
                out = self.baseline(query, plan, items)
                return out.model_copy(update={"fallback": True, "error": error})
            except Exception as exc:  # noqa: BLE001 - the original order is the last resort
                error = f"{error}; baseline failed: {type(exc).__name__}: {exc}"
        return original_order(items, error)

    def from_rankings(
        self,
        query: str,
        items: list[SearchResultIn],
        rankings: list[LMRanking],
        plan: ResearchPlan | None = None,
    ) -> Reranking:
        """Place an LM's per-result criteria in code: scores from the weights, anchors, highlighting;
        invented or repeated indices ignored, results it left out kept unscored after the rest."""
        seen: set[int] = set()
        scored: list[RankedResult] = []
        for r in rankings or []:
            i = r.originalIndex
            if not 0 <= i < len(items) or i in seen:
                continue  # an index the LM invented or repeated scores nothing
            seen.add(i)
            item = items[i]
            sub = SubScores(
                directRelevance=r.directRelevance / 100,
                depth=r.depth / 100,
                planAlignment=r.planAlignment / 100 if plan is not None and plan.facets() else None,
                unexpectedness=r.unexpectedness / 100,
            )
            score = self.weights.score(sub)
            q_terms = content_terms(query)
            anchored = locate(
                item.text,
                r.sentenceStart,
                r.sentenceEnd,
                best_sentence=lambda ss: max(
                    ss,
                    key=lambda s: len(content_terms(s.text) & q_terms),  # noqa: B023 - called in this iteration
                    default=None,
                ),
            )
            span = anchored.span if anchored else None
            terms = r.coreTerms[:7]
            scored.append(
                RankedResult(
                    originalIndex=i,
                    id=item.id,
                    title=item.title,
                    url=item.url,
                    score=score,
                    kept=score >= self.weights.threshold,
                    briefAnswer=r.briefAnswer.strip() or (brief_answer(query, span) if span else ""),
                    sentenceStart=r.sentenceStart,
                    sentenceEnd=r.sentenceEnd,
                    sentence=span.text if span else "",
                    coreTerms=terms,
                    relevanceNote=r.relevanceNote,
                    highlighted=highlight(item.text, span, terms),
                    subscores=sub,
                    anchor=anchored.method if anchored else None,
                )
            )
        scored.sort(key=lambda x: (-(x.score or 0), x.originalIndex))
        missing = [_unscored(i, items[i]) for i in range(len(items)) if i not in seen]
        partial = (
            f"the LM ranked {len(seen)} of {len(items)} results; the rest follow unscored"
            if missing
            else None
        )
        return Reranking(
            results=scored + missing,
            introduction=introduction(query, scored, self.weights.threshold),
            semanticNote=None,
            fallback=False,
            error=partial,
            program="dspy",
        )


def _unscored(i: int, item: SearchResultIn) -> RankedResult:
    return RankedResult(
        originalIndex=i, id=item.id, title=item.title, url=item.url, highlighted=html.escape(item.text)
    )


def original_order(items: Sequence[SearchResultIn], error: str) -> Reranking:
    """The seed's failure answer: every result, original order, plain (escaped) text, no scores."""
    return Reranking(
        results=[_unscored(i, r) for i, r in enumerate(items)],
        introduction="",
        semanticNote=None,
        fallback=True,
        error=error,
        program="none",
    )


#: Characters of each result the lean ordering reads: a snippet's worth, which is what it ranks.
SNIPPET_CHARS = 400


def rerank_inputs(
    query: str,
    plan: ResearchPlan,
    items: Sequence[SearchResultIn],
    runner: NodeRunner,
    node: str = "relevance",
) -> dict[str, str]:
    """The rerank (or lean ``order``) program's inputs as sent and as its eval set is scored: each
    result's text cut to ``DOC_CHARS`` (``SNIPPET_CHARS`` for the order), or less where the results
    must share a smaller context window (``--lm-context``); tags and titles take ~120 a result."""
    plan_text = plan.as_text()
    most = SNIPPET_CHARS if node == "order" else DOC_CHARS
    room = runner.input_chars(node, fixed=len(query) + len(plan_text))
    each = max(100, min(most, room // max(len(items), 1) - 120))
    return {"query": query, "research_plan": plan_text, "results": results_as_data(items, each)}


def results_as_data(items: Sequence[SearchResultIn], limit: int = DOC_CHARS) -> str:
    """Results as delimited, escaped data; an ``id`` that only repeats the index is left out."""

    def tag(i: int, r: SearchResultIn) -> str:
        rid = "" if r.id in (None, str(i)) else f' id="{as_data(r.id, quote=True)}"'
        return f'<result index="{i}"{rid} title="{as_data(r.title[:200], quote=True)}">'

    return (
        "\n".join(f"{tag(i, r)}\n{as_data(r.text[:limit])}\n</result>" for i, r in enumerate(items))
        or "(no results)"
    )
