"""The research loop: Decision -> tool -> Analyzer -> Decision, until an exit condition.

Bounded by steps, seconds and an LM token budget; every stop produces a report that says
why it stopped. Isolation against prompt injection: raw page text reaches only the Analyzer,
delimited as data; the Decision node sees structured facts and candidate URLs, and a URL it
picks is crawled only if it came from search results or page links of this thread. Report
citations are checked against the sources this thread retrieved; others are removed and logged.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from textwrap import shorten

import dspy

from ..embeddings import Embedder
from ..lm import NodeRunner
from ..relevance.analyzer import RelevanceAnalyzer
from ..relevance.schema import PlanQuery, ResearchPlan
from ..text import content_terms, split_sentences
from ..tools.crawl import Page
from ..tools.injection import injection_markers
from ..tools.search import SearchBackend
from .baseline import (
    BaselineAnalyzer,
    BaselineDecision,
    BaselineReport,
    answer_context,
    repeats_query,
)
from .calibration import TRUSTED, AnswerRanker, Assessment, Calibrator, answer_features, qualified, shipped
from .memory import Memory
from .prompts import (
    REPORT_FACTS,
    analyzer_inputs,
    analyzer_report,
    candidate_lines,
    candidate_url,
    decision_inputs,
    final_assessment,
    report_inputs,
    research_history,
)
from .schema import Analysis, Decision, Report, Source
from .signatures import AnalyzeResults, DecideNextAction, WriteReport
from .thread import Thread


@dataclass
class Limits:
    max_steps: int = 8
    max_seconds: float = 300.0
    max_tokens: int = 200_000
    read_first: int = 10  # the first search for the question casts the widest net
    read_per_search: int = 3  # later searches target one entity or gap: their top results


@dataclass
class StepRecord:
    step: int
    node: str
    action: str
    query_or_url: str | None = None
    engine: str | None = None
    outcome: str = "ok"
    reasoning: str = ""
    n_results: int = 0
    withheld: int = 0  # a tool step's pages and results withheld for prompt-injection markers
    new_facts: int = 0
    confidence: float | None = None
    fallback: bool = False
    tokens: int = 0
    duration_ms: float = 0.0
    cost_usd: float = 0.0
    error: str | None = None


@dataclass
class ResearchResult:
    question: str
    report: Report
    status: str  # answered | handed_over | incomplete
    stop_reason: str
    confidence: float
    steps: list[StepRecord]
    sources: dict[str, Source]
    memory: Memory
    log: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    #: the runner's :meth:`~modules.lm.NodeRunner.calls`: LM calls answered and fallen back
    lm_calls: dict = field(default_factory=dict)
    #: how ``confidence`` was reached (:mod:`.calibration`): the short answer's features and
    #: what they were computed against
    assessment: Assessment | None = None
    #: the Report node's short answer before calibration withheld it (else ``report.short_answer``)
    proposed_answer: str = ""


#: how much of each page read the answerer reads beside memory's facts (a HotpotQA paragraph whole)
LEAD_SENTENCES, LEAD_CHARS = 8, 3000

Fetcher = Callable[[list[str], list[str | None]], list[Page]]


class Researcher:
    """Runs research threads over search backends and a page fetcher."""

    def __init__(
        self,
        search: dict[str, SearchBackend],
        fetch: Fetcher,
        embedder: Embedder,
        runner: NodeRunner | None = None,
        limits: Limits | None = None,
        programs: dict | None = None,
        relevance: RelevanceAnalyzer | None = None,
        calibrator: Calibrator | None = None,
    ):
        if not search:
            raise ValueError("research needs at least one search backend")
        self.search, self.fetch, self.embedder = search, fetch, embedder
        self.runner = runner or NodeRunner()
        self.limits = limits or Limits()
        programs = programs or {
            "decision": dspy.Predict(DecideNextAction),
            "analyzer": dspy.Predict(AnalyzeResults),
            "report": dspy.Predict(WriteReport),
        }
        self.programs = {node: self.runner.fit_program(node, p) for node, p in programs.items()}
        self.relevance = relevance  # orders results so the best are read first
        self.calibrator = calibrator  # rates the report's short answer (None: the shipped one)
        self.program_versions: dict[str, str] = {}
        self.decide_baseline = BaselineDecision(embedder)
        self.analyze_baseline = BaselineAnalyzer(embedder)
        self.report_baseline = BaselineReport(AnswerRanker(embedder))

    def run(
        self,
        question: str,
        memory: Memory | None = None,
        constraints: Sequence[str] = (),
        searched: Sequence[str] = (),
    ) -> ResearchResult:
        """Research ``question`` to a report. A re-opened thread passes its memory, constraints
        and the queries it already ran (``searched``: never run again, as within a thread)."""
        started = time.monotonic()
        thread = Thread(question=question, engines=list(self.search), constraints=list(constraints))
        if searched:
            thread.queries = list(searched)
            thread.query_vectors = list(self.embedder.encode(list(searched)))
            thread.searched_entities.update(searched)
        memory = memory or Memory(self.embedder)
        sources: dict[str, Source] = {}
        steps: list[StepRecord] = []
        log: list[str] = []
        stop_reason = "max_steps"
        while True:
            if thread.step >= self.limits.max_steps:
                stop_reason = "max_steps"
                break
            if time.monotonic() - started >= self.limits.max_seconds:
                stop_reason = "max_seconds"
                break
            if self.runner.usage["tokens"] >= self.limits.max_tokens:
                stop_reason = "token_budget"
                break
            thread.step += 1
            decision, record = self._decide(thread, memory, log)
            steps.append(record)
            if decision.next_action == "send_to_hitl":
                stop_reason = "decision"
                break
            documents, tool_record = self._act(thread, decision, sources)
            steps.append(tool_record)
            steps.append(self._analyze(thread, documents, memory, sources, log))
        report, report_record = self._report(thread, memory, steps, sources, log, stop_reason)
        steps.append(report_record)
        assessment = self.assess(thread, memory, report)
        report = cite_support(report, assessment, sources)
        proposed, report = report.short_answer, qualified(report, assessment.confidence)
        status = (
            "answered"
            if stop_reason == "decision" and report.short_answer and assessment.confidence >= TRUSTED
            else "handed_over"
            if stop_reason == "decision"
            else "incomplete"
        )
        return ResearchResult(
            question,
            report,
            status,
            stop_reason,
            assessment.confidence,
            steps,
            sources,
            memory,
            log,
            list(constraints),
            self.runner.calls(),
            assessment,
            proposed,
        )

    def answer_calibrator(self) -> Calibrator:
        return self.calibrator or shipped()

    def assess(self, thread: Thread, memory: Memory, report: Report) -> Assessment:
        """The report's short answer rated by the shipped calibrator (0 when there is none)."""
        context = answer_context(thread, memory)
        features = answer_features(report.short_answer, context, self.embedder)
        confidence = self.answer_calibrator().probability(features) if report.short_answer else 0.0
        return Assessment(round(confidence, 3), features, context)

    # ----- nodes -------------------------------------------------------------------------
    def decision_node_inputs(self, thread: Thread, memory: Memory) -> dict:
        """The Decision node's inputs at this state of ``thread``: what the loop gives it, and what
        evals/build_sets.py records for the node's labeled sets (one code path for both)."""
        candidates = candidate_lines(_ranked_candidates(thread))
        return decision_inputs(
            thread.question,
            thread.constraints,
            analyzer_report(thread.last_analysis),
            research_history(thread.history, thread.step, self.limits.max_steps, thread.queries),
            memory.summary(),
            candidates,
            # only the actions open now: no crawl without a candidate URL
            [f"search_{e}" for e in thread.engines] + ["crawl_url"] * bool(candidates) + ["send_to_hitl"],
        )

    def _decide(self, thread: Thread, memory: Memory, log: list[str]) -> tuple[Decision, StepRecord]:
        t = time.monotonic()
        inputs = self.decision_node_inputs(thread, memory)
        call = self.runner.run(
            self.programs.get("decision"),
            inputs,
            Decision,
            lambda: self.decide_baseline(thread, memory),
            node="decision",
        )
        decision: Decision = call.output
        fallback, error = call.fallback, call.error
        if decision.next_action == "crawl_url" and not call.fallback:
            decision = decision.model_copy(update={"query_or_url": candidate_url(decision.query_or_url)})
        if decision.next_action == "crawl_url" and decision.query_or_url not in thread.candidate_urls:
            log.append(
                f"step {thread.step}: refused to crawl {decision.query_or_url!r}: not from search results or page links"
            )
            decision, fallback, error = (
                self.decide_baseline(thread, memory),
                True,
                "crawl target not among candidate URLs",
            )
        if (
            decision.next_action.startswith("search_")
            and not fallback
            and repeats_query(self.embedder, thread, decision.query_or_url or thread.question)
        ):
            # a model repeating a search (the local model searched the question four times)
            # reads the same results again: the baseline program picks the step instead
            log.append(
                f"step {thread.step}: refused to search {decision.query_or_url or thread.question!r} again"
            )
            decision, fallback, error = (
                self.decide_baseline(thread, memory),
                True,
                "repeated query: a near-duplicate of one already searched",
            )
        if decision.next_action != "send_to_hitl" and not fallback:
            settled = self._settled(thread, memory)
            if settled is not None:
                # the Analyzer judged the question answered and every part has a cited fact:
                # the model's further searching only repeats what memory holds
                log.append(f"step {thread.step}: handed over instead of {decision.next_action}: answered")
                decision, fallback, error = (
                    settled,
                    True,
                    f"stop rule: answered from cited facts, handed over instead of {decision.next_action}",
                )
        if decision.next_action.startswith("search_"):
            engine = decision.next_action[len("search_") :]
            if engine not in self.search:
                engine = {"google": "serper"}.get(engine, engine)
                engine = engine if engine in self.search else thread.engines[0]
                decision = Decision(
                    next_action=f"search_{engine}",
                    query_or_url=decision.query_or_url,
                    reasoning=decision.reasoning,
                )
            if not (decision.query_or_url or "").strip():
                decision = Decision(
                    next_action=decision.next_action,
                    query_or_url=thread.question,
                    reasoning=decision.reasoning,
                )
            if not fallback and thread.read_urls and self._all_read(thread, engine, decision.query_or_url):
                # a new wording that finds only pages read already reads nothing new either
                log.append(
                    f"step {thread.step}: refused to search {decision.query_or_url!r}: every result read"
                )
                thread.queries.append(decision.query_or_url)
                thread.query_vectors.append(self.embedder.encode([decision.query_or_url])[0])
                decision, fallback, error = (
                    self.decide_baseline(thread, memory),
                    True,
                    "repeated results: every result of the search was read already",
                )
        record = StepRecord(
            step=thread.step,
            node="decision",
            action=decision.next_action,
            query_or_url=decision.query_or_url,
            reasoning=decision.reasoning,
            fallback=fallback,
            error=error,
            tokens=call.tokens,
            cost_usd=call.cost_usd,
            duration_ms=round(1000 * (time.monotonic() - t), 1),
        )
        return decision, record

    def _all_read(self, thread: Thread, engine: str, query: str) -> bool:
        """Whether every result of ``query`` on ``engine`` is a page read already. The search runs
        once: :meth:`_act` takes these results when it acts on the same search."""
        results = self.search[engine].search(query, 10)
        thread.peeked = (engine, query, results)
        return bool(len(results)) and all(r.url in thread.read_urls for r in results)

    def _results(self, thread: Thread, engine: str, query: str):
        """The results of ``query`` on ``engine``: the ones :meth:`_all_read` ran, else a search."""
        peeked, thread.peeked = thread.peeked, None
        if peeked is not None and peeked[:2] == (engine, query):
            return peeked[2]
        return self.search[engine].search(query, 10)

    def _settled(self, thread: Thread, memory: Memory) -> Decision | None:
        """The baseline program's hand-over when the stop rule holds (the Analyzer judged the
        question answered and the answerer gives a cited answer to every part), else None."""
        if thread.last_analysis is None or not thread.last_analysis.answered or not memory.facts:
            return None
        before, thread.handover_answer = thread.handover_answer, ""
        baseline = self.decide_baseline(thread, memory)
        if baseline.next_action == "send_to_hitl" and thread.handover_answer:
            return baseline
        thread.handover_answer = before
        return None

    def _act(
        self, thread: Thread, decision: Decision, sources: dict[str, Source]
    ) -> tuple[list[Source], StepRecord]:
        t = time.monotonic()
        spent: dict[str, float] = {}
        withheld_before = sum(bool(s.withheld) for s in sources.values())
        if decision.next_action == "crawl_url":
            urls, engine, n_results, outcome = [decision.query_or_url], None, 1, "ok"
            snippets = [sources[decision.query_or_url].snippet if decision.query_or_url in sources else None]
        else:
            engine = decision.next_action[len("search_") :]
            query = decision.query_or_url or thread.question
            thread.queries.append(query)
            thread.query_vectors.append(self.embedder.encode([query])[0])
            thread.searched_entities.add(query)
            results = self._results(thread, engine, query)
            outcome, n_results = results.outcome, len(results)
            for r in results:
                markers = injection_markers(f"{r.title}\n{r.snippet}")
                if markers:
                    self._withhold(thread, sources, r.url, markers, r)
                    continue
                if r.url not in sources:
                    sources[r.url] = Source(
                        url=r.url,
                        title=r.title,
                        snippet=r.snippet,
                        engine=r.engine,
                        rank=r.rank,
                        step=thread.step,
                    )
            n_read = self.limits.read_first if len(thread.queries) == 1 else self.limits.read_per_search
            usage = self.relevance.runner.usage if self.relevance is not None else {}
            spent = dict(usage)
            kept = [r for r in results if not sources.get(r.url, Source(url=r.url)).withheld]
            ordered = self._rank(thread, query, decision.reasoning, kept)
            spent = {k: usage[k] - spent[k] for k in spent}  # the rerank's LM call, if any
            thread.ranked[query] = [r.url for r in ordered if r.url not in thread.read_urls]
            for r in ordered:  # candidates best first: what to crawl when results are not read
                if r.url not in thread.candidate_urls:
                    thread.candidate_urls.append(r.url)
                    thread.origins[r.url] = (r.title, f'search result {r.rank} for "{query}"')
            unread = [r.url for r in ordered if r.url not in thread.read_urls][:n_read]
            urls, snippets = unread, [sources[u].snippet for u in unread]
        documents = []
        if urls:
            for page in self.fetch(urls, snippets):
                source = sources.setdefault(page.url, Source(url=page.url, step=thread.step))
                thread.read_urls.add(page.url)
                thread.titles[page.url] = source.title or page.title or ""
                markers = injection_markers(f"{page.title or ''}\n{page.text or ''}")
                if markers or source.withheld:
                    self._withhold(thread, sources, page.url, markers)
                    continue
                if page.outcome == "ok" and page.text:
                    source.title = source.title or page.title or ""
                    source.text, source.links = page.text, list(page.links)
                    opening = split_sentences(page.text[:LEAD_CHARS])[:LEAD_SENTENCES]
                    thread.leads[page.url] = [s.text for s in opening]
                    for link, anchor in page.links:
                        if link not in thread.candidate_urls:
                            thread.candidate_urls.append(link)
                            thread.origins[link] = (anchor, f"link on {page.url}")
                    documents.append(source)
                elif source.snippet:  # unreadable page: the search snippet is all there is
                    source.text = source.snippet
                    documents.append(source)
        summary = (
            f"crawled {decision.query_or_url}"
            if decision.next_action == "crawl_url"
            else f'searched {engine} for "{decision.query_or_url}": {n_results} results ({outcome}), read {len(documents)}'
        )
        thread.history.append(f"step {thread.step}: {summary}")
        return documents, StepRecord(
            step=thread.step,
            node="tool",
            action=decision.next_action,
            query_or_url=decision.query_or_url,
            engine=engine,
            outcome=outcome,
            n_results=n_results,
            withheld=sum(bool(s.withheld) for s in sources.values()) - withheld_before,
            tokens=int(spent.get("tokens", 0)),
            cost_usd=round(spent.get("cost_usd", 0.0), 6),
            duration_ms=round(1000 * (time.monotonic() - t), 1),
        )

    @staticmethod
    def _withhold(
        thread: Thread, sources: dict[str, Source], url: str, markers: list[str], result=None
    ) -> None:
        """A page or result that addresses the model reading it: no node sees its text, snippet
        or links, and the journey says why (:mod:`modules.tools.injection`)."""
        source = sources.get(url)
        if source is None:
            source = sources[url] = Source(
                url=url,
                title=getattr(result, "title", ""),
                engine=getattr(result, "engine", ""),
                rank=getattr(result, "rank", 0),
                step=thread.step,
            )
        if not source.withheld:
            source.withheld = "prompt-injection markers: " + "; ".join(markers or ["seen before"])
            thread.history.append(f"step {thread.step}: withheld {url} ({source.withheld})")
        source.text, source.snippet, source.links = "", "", []

    def _rank(self, thread: Thread, query: str, reasoning: str, results: list) -> list:
        """Search results best first, by the relevance analyzer against the thread's plan so far."""
        if self.relevance is None or len(results) < 2:
            return results
        plan = ResearchPlan(
            reasoning=reasoning,
            queries=[PlanQuery(query=q) for q in thread.queries],
            angles=list(thread.constraints),
        )
        order = self.relevance.order(
            thread.question,
            plan,
            [
                {"id": str(i), "title": r.title, "url": r.url, "text": r.snippet or r.title}
                for i, r in enumerate(results)
            ],
        )
        return [results[i] for i in order]

    def _analyze(
        self,
        thread: Thread,
        documents: list[Source],
        memory: Memory,
        sources: dict[str, Source],
        log: list[str],
    ) -> StepRecord:
        t = time.monotonic()
        baseline_facts: list[tuple[str, str, float]] = []

        def baseline() -> Analysis:
            analysis, facts = self.analyze_baseline(thread, documents, memory)
            baseline_facts.extend(facts)
            return analysis

        shared = memory.summary()
        room = self.runner.input_chars("analyzer", fixed=len(shared) + len(thread.question))
        inputs = analyzer_inputs(thread.question, documents, shared, room)
        call = self.runner.run(
            self.programs.get("analyzer") if documents else None,
            inputs,
            Analysis,
            baseline,
            node="analyzer",
        )
        analysis: Analysis = call.output
        facts = (
            baseline_facts
            if baseline_facts or not analysis.extracted_info
            else _attribute(analysis, documents)
        )
        new, conflicts = memory.add(facts, thread.step)
        if conflicts:
            analysis.inconsistencies_found = "; ".join(conflicts)
        for doc in documents:
            doc.analyzed = True
        # URLs the Analyzer proposes (as it read them: escaped, maybe with their link text) count
        # only if this thread saw them in results or links.
        proposed = [candidate_url(u) for u in analysis.new_potential_urls]
        analysis.new_potential_urls = [u for u in dict.fromkeys(proposed) if u in thread.candidate_urls]
        thread.no_progress_steps = 0 if new else thread.no_progress_steps + 1
        thread.last_analysis = analysis
        thread.history.append(
            f"step {thread.step}: {len(new)} new facts, confidence {analysis.confidence_score}"
        )
        return StepRecord(
            step=thread.step,
            node="analyzer",
            action="analyze",
            n_results=len(documents),
            new_facts=len(new),
            confidence=analysis.confidence_score,
            fallback=call.fallback,
            error=call.error,
            tokens=call.tokens,
            cost_usd=call.cost_usd,
            reasoning=analysis.assessment,
            duration_ms=round(1000 * (time.monotonic() - t), 1),
        )

    def _report(
        self,
        thread: Thread,
        memory: Memory,
        steps: list[StepRecord],
        sources: dict[str, Source],
        log: list[str],
        stop_reason: str,
    ) -> tuple[Report, StepRecord]:
        t = time.monotonic()
        journey = journey_from(steps, stop_reason)
        inputs = report_inputs(
            thread.question,
            memory.summary(limit=REPORT_FACTS),
            final_assessment(thread.last_analysis),
            journey,
        )
        call = self.runner.run(
            self.programs.get("report") if memory.facts else None,
            inputs,
            Report,
            lambda: self.report_baseline(thread, memory, journey),
            node="report",
        )
        report: Report = call.output
        retrieved = {u for u, s in sources.items() if s.text or s.snippet}
        kept = [u for u in dict.fromkeys(report.key_sources) if u in retrieved]
        for u in report.key_sources:
            if u not in retrieved:
                log.append(f"removed citation {u!r}: not retrieved in this thread")
        # the journey is the step log's; [n] follow key_sources, renumbered after removals
        report = Report(
            short_answer=report.short_answer,
            answer_type=report.answer_type,
            answer=renumber_citations(report.answer, list(dict.fromkeys(report.key_sources)), kept),
            research_journey=journey,
            key_sources=kept,
        )
        return report, StepRecord(
            step=thread.step,
            node="report",
            action="report",
            outcome=stop_reason,
            fallback=call.fallback,
            error=call.error,
            tokens=call.tokens,
            cost_usd=call.cost_usd,
            duration_ms=round(1000 * (time.monotonic() - t), 1),
        )


def _ranked_candidates(thread: Thread) -> list[tuple[str, str, str]]:
    """Unread candidate URLs (url, title, where found), best first: those whose title or link
    text shares most words with the question and the user's constraints, search results before
    page links (navigation links otherwise crowd out the leads), then in the order found."""
    wanted = content_terms(" ".join([thread.question, *thread.constraints]))
    unread = [u for u in thread.candidate_urls if u not in thread.read_urls]

    def key(item: tuple[int, str]) -> tuple:
        i, url = item
        title, origin = thread.origins.get(url, ("", ""))
        return (-len(wanted & content_terms(title)), not origin.startswith("search"), i)

    ranked = sorted(enumerate(unread), key=key)
    return [(u, *thread.origins.get(u, ("", ""))) for _, u in ranked]


def _attribute(analysis: Analysis, documents: list[Source]) -> list[tuple[str, str, float]]:
    """Each LM-extracted fact with its source: the document it names by index when that document
    holds the quote; else the document that holds the quote; else the one sharing most words."""
    out = []
    for fact in analysis.extracted_info:
        text = fact.quote.strip()
        if not text:
            continue
        quoted = text.rstrip(".")
        named = documents[fact.doc - 1] if 0 < fact.doc <= len(documents) else None
        holders = [d for d in documents if quoted in d.text]
        if named is not None and (named in holders or not holders):
            source = named
        elif holders:  # the Analyzer is asked to quote: the page that holds the quote is its source
            source = holders[0]
        else:
            terms = content_terms(text)
            best = max(documents, key=lambda d: len(terms & content_terms(d.text)), default=None)
            source = best if best is not None and terms & content_terms(best.text) else None
        if source is not None:
            out.append((text, source.url, analysis.confidence_score))
    return out


_CITATION = re.compile(r"\s?\[(\d{1,3})\]")


def renumber_citations(answer: str, cited: list[str], kept: list[str]) -> str:
    """``[n]`` markers of ``answer`` (n: a position in ``cited``) made positions in ``kept``; a
    marker of a removed or unknown source is dropped."""
    where = {i: kept.index(u) + 1 for i, u in enumerate(cited, 1) if u in kept}

    def sub(m: re.Match) -> str:
        n = where.get(int(m.group(1)))
        return f"{m.group(0)[: m.start(1) - m.start(0) - 1]}[{n}]" if n else ""

    return _CITATION.sub(sub, answer)


def cite_support(report: Report, assessment: Assessment, sources: dict[str, Source]) -> Report:
    """``report`` citing, after its own sources, the pages the offline answerer's agreeing answer
    rests on (each side of a comparison, each hop): a model's report cited "Ed Wood (film)" and
    "Ed Wood" for a nationality that also rests on Scott Derrickson's page."""
    if not assessment.features.get("offline_agrees"):
        return report
    relied = [
        f.url
        for f in assessment.context.found.support
        if f.url in sources and (sources[f.url].text or sources[f.url].snippet)
    ]
    added = [u for u in dict.fromkeys(relied) if u not in report.key_sources]
    return report.model_copy(update={"key_sources": [*report.key_sources, *added]}) if added else report


def journey_from(steps: list[StepRecord], stop_reason: str) -> str:
    """The research journey, generated from the step log."""
    parts = []
    for s in steps:
        if s.node == "tool" and s.action.startswith("search_"):
            results = "1 result" if s.n_results == 1 else f"{s.n_results} results"
            parts.append(f'searched {s.engine} for "{s.query_or_url}" ({results}, {s.outcome})')
        elif s.node == "tool":
            parts.append(f"read {s.query_or_url}")
        if s.node == "tool" and s.withheld:
            pages = "1 page" if s.withheld == 1 else f"{s.withheld} pages"
            parts.append(
                f"withheld {pages} addressing the model (prompt-injection markers; see sources.withheld)"
            )
        elif s.node == "analyzer" and s.new_facts:
            parts.append("found 1 new fact" if s.new_facts == 1 else f"found {s.new_facts} new facts")
    handover = next((s.reasoning for s in reversed(steps) if s.node == "decision" and s.reasoning), "")
    reason = {
        # the Decision node's own words for why it handed over, when it gave them
        "decision": (
            f"the Decision node handed over: {shorten(handover, 200, placeholder='...').rstrip('.')}"
            if handover
            else "the Decision node handed over"
        ),
        "max_steps": "the step limit was reached",
        "max_seconds": "the time limit was reached",
        "token_budget": "the LM token budget was spent",
    }[stop_reason]
    return (
        ("Research " + "; then ".join(parts) + f". Stopped because {reason}.")
        if parts
        else f"No research steps ran; stopped because {reason}."
    )
