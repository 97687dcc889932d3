"""Deterministic baseline programs for the nodes: the offline default and the LM fallback.

Decision follows the seed's decision logic literally. Analyzer extracts query-relevant
sentences (lexical and embedding relevance), bridges multi-hop questions through entities
found in evidence, proposes in-page links whose anchor text matches what is still open, and
scores confidence from coverage of the question, agreement across sources and source
quality. Report answers extractively from the best-supported facts, with citations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from ..embeddings import Embedder
from ..text import content_terms, split_sentences, stem, words
from .answer import Answer, Evidence, answer, rejected_answers
from .calibration import AnswerContext
from .memory import Memory
from .prompts import ANSWERED_CONFIDENCE, MEDIUM_CONFIDENCE
from .ranking import norm
from .schema import Analysis, Decision, Fact, Quote, Report, Source
from .thread import Thread
from .titles import plain_text, title_name

ENTITY = re.compile(
    r"\b(?:[A-Z][\w'’.-]*[\w’']?|\d{4})(?:\s+(?:of|the|de|del|von|van|and|&|for)?\s*[A-Z][\w'’.-]*)*"
)
GENERIC_WORDS = {
    "The",
    "A",
    "An",
    "He",
    "She",
    "It",
    "They",
    "In",
    "On",
    "At",
    "His",
    "Her",
    "Its",
    "This",
    "That",
    "There",
    "These",
    "Those",
    "After",
    "Before",
    "During",
    "When",
    "While",
    "As",
    "For",
    "From",
    "With",
    "Which",
    "What",
    "Who",
    "Where",
    "How",
    "Why",
    "Is",
    "Are",
    "Was",
    "Were",
    "Both",
    "And",
    "But",
    "Or",
}
_WEAK_SINGLE = re.compile(
    r"^(January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|"
    r"Wednesday|Thursday|Friday|Saturday|Sunday|[A-Z][a-z]+(?:ish|ese|ian|an|ic|i))$"
)  # months, days and nationality-style adjectives ("Turkish", "American") lead nowhere
TRUSTED_SUFFIXES = (".gov", ".edu", ".int", "wikipedia.org", "britannica.com", "who.int", "nature.com")
FACT_THRESHOLD = 0.35
MAX_FACTS_PER_SOURCE = 3


def question_entities(question: str) -> list[str]:
    """Named things in the question: "Were Scott Derrickson and Ed Wood ..." -> Scott Derrickson, Ed Wood
    (two full names joined by "and"/"or" are two things; "Kiss and Tell" stays one title)."""

    def strip(tokens: list[str]) -> list[str]:
        while tokens and tokens[0] in GENERIC_WORDS:
            tokens = tokens[1:]
        return tokens

    out = []
    for m in ENTITY.finditer(question):
        parts = [strip(p.split()) for p in re.split(r"\s+(?:and|or)\s+", m.group().strip())]
        if len(parts) == 1 or any(len(p) < 2 for p in parts):
            parts = [strip(m.group().split())]
        out += [" ".join(p) for p in parts if p and not (len(p) == 1 and _WEAK_SINGLE.match(p[0]))]
    return list(dict.fromkeys(out))


def is_anchor(title: str, question: str) -> bool:
    """A page about something the question names: its title (less any qualifier) is in the
    question, both read alike (HTML entities, "&" as "and")."""
    name, question = title_name(title), plain_text(question)
    return bool(name) and (
        name in question.lower() or any(name == e.lower() for e in question_entities(question))
    )


def source_quality(url: str) -> float:
    host = urlsplit(url).hostname or ""
    return 1.0 if host.endswith(TRUSTED_SUFFIXES) else 0.8


class BaselineAnalyzer:
    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    def __call__(
        self, thread: Thread, documents: list[Source], memory: Memory
    ) -> tuple[Analysis, list[tuple[str, str, float]]]:
        # the question's terms only: feedback is a constraint the nodes read, never terms to
        # search for or to "establish" ("compare the two people's nationality")
        q_terms = content_terms(thread.question)
        candidates: list[tuple[str, Source, float]] = []
        searched = {e.lower() for e in thread.searched_entities}
        for doc in documents:
            sentences = [s.text for s in split_sentences(doc.text[:20_000])] or [doc.snippet]
            title_terms = content_terms(doc.title)
            # the page a bridge search was after ("Tata Consultancy Services") holds the next hop,
            # though its sentences share few words with the question itself
            target = 0.3 if title_name(doc.title) in searched else 0.0
            scored = []
            for i, s in enumerate(sentences):
                terms = content_terms(s)
                lex = len(terms & q_terms) / max(len(q_terms), 1)
                lead = 0.15 if i == 0 else 0.0  # a lead sentence defines the page's subject
                scored.append((lex + lead + target + 0.1 * bool(title_terms & q_terms), s))
            scored.sort(key=lambda x: -x[0])
            candidates += [(s, doc, lex) for lex, s in scored[: MAX_FACTS_PER_SOURCE + 1] if s.strip()]
        facts: list[tuple[str, str, float]] = []
        if candidates:
            vectors = self.embedder.encode([thread.question] + [c[0] for c in candidates])
            cos = vectors[1:] @ vectors[0]
            per_source: dict[str, int] = {}
            for (text, doc, lex), c in sorted(
                zip(candidates, cos), key=lambda x: -(0.5 * x[0][2] + 0.5 * x[1])
            ):
                score = 0.5 * min(lex, 1.0) + 0.5 * float(c)
                if score >= FACT_THRESHOLD and per_source.get(doc.url, 0) < MAX_FACTS_PER_SOURCE:
                    per_source[doc.url] = per_source.get(doc.url, 0) + 1
                    facts.append((text, doc.url, round(min(1.0, score) * source_quality(doc.url), 3)))

        known = [f.text for f in memory.facts] + [t for t, _, _ in facts]
        covered = set().union(*(content_terms(t) for t in known)) & q_terms if known else set()
        # the answerer settles the question from the facts: every part of it is then covered
        found = answer(
            thread.question,
            evidence(thread, memory.facts) + [Evidence(t, u, thread.titles.get(u, "")) for t, u, _ in facts],
            excluded=rejected_answers(thread.constraints),
        )
        coverage = 1.0 if found.settled else len(covered) / max(len(q_terms), 1)
        open_terms = set() if found.settled else q_terms - covered
        sources = {u for _, u, _ in facts} | {f.source_url for f in memory.facts}
        agreement = min(1.0, len(sources) / 2)
        quality = max((source_quality(u) for u in sources), default=0.8)

        bridges = self._bridges(thread, facts, memory)
        read_titles = [title_name(t) for t in thread.titles.values()]

        def researched(entity: str) -> bool:
            """A full name is covered by a page about it; a single word by any mention."""
            name = entity.lower()
            if entity in thread.searched_entities or any(name == t or name in t for t in read_titles):
                return True
            return len(entity.split()) == 1 and any(name in t.lower() for t in known)

        comparisons = [e for e in question_entities(thread.question) if not researched(e)]
        suggestions = [f"search: {e}" for e in comparisons + bridges]
        if (
            open_terms and not suggestions
        ):  # the question's own words, not their stems: the index does not stem
            suggestions.append(
                "search: "
                + " ".join(dict.fromkeys(w for w in words(thread.question) if stem(w) in open_terms))
            )
        urls = self._promising_links(thread, documents, open_terms, bridges)
        suggestions += [f"crawl: {u}" for u in urls[:3]]
        # a hop is made once a page about a searched lead was read: the chain from the question's
        # subject to that page is in memory, and further leads are optional
        hopped = any(
            title_name(t) in {e.lower() for e in thread.searched_entities} for t in thread.titles.values()
        )
        pending = not found.settled and (bool(comparisons) or (bool(bridges) and not hopped))
        confidence = round(coverage * agreement * quality * (0.7 if pending else 1.0), 3)
        answered = found.settled or (coverage >= 0.8 and len(sources) >= 2 and not pending)
        index = {d.url: i for i, d in enumerate(documents, 1)}
        analysis = Analysis(
            extracted_info=[Quote(doc=index[u], quote=t) for t, u, _ in facts],
            assessment=(
                f"{len(facts)} relevant statements from {len({u for _, u, _ in facts})} of {len(documents)} documents; "
                + (
                    f'the facts of {len(sources)} sources answer the question: "{found.text}"'
                    if found.settled
                    else f"{round(100 * coverage)}% of the question's terms covered by {len(sources)} sources"
                )
                + (f"; still open: {', '.join(sorted(open_terms))}" if open_terms else "")
            ),
            confidence_score=min(1.0, confidence),
            suggestions_for_next_step=suggestions or ["Query appears answered"],
            new_potential_urls=urls,
            answered=answered,
        )
        return analysis, facts

    def _bridges(self, thread: Thread, facts: list[tuple[str, str, float]], memory: Memory) -> list[str]:
        """Entities that the evidence about the question's own subjects names, not yet researched.

        Multi-hop questions reach their answer through such an entity ("the company Sachin Warrier
        worked for" -> "Tata Consultancy Services"), so the leading facts of anchor pages (pages
        about a named thing of the question, or naming one) are mined, and their entities ranked
        by what the question asks for: embedding similarity to the question with its own names
        removed ("a president that served during what years" -> "Nixon"). A name of the question
        that no page read is titled with stays a lead ("... represented Virginia Commonwealth
        University, founded in what year?"). Searched names and titles of pages read are not.
        """
        q_entities = question_entities(thread.question)
        pool = [(t, u, c) for t, u, c in facts] + [(f.text, f.source_url, f.confidence) for f in memory.facts]
        anchors = {url for url, title in thread.titles.items() if is_anchor(title, thread.question)}
        anchors |= {u for t, u, _ in pool if any(len(e.split()) > 1 and e in t for e in q_entities)}
        q_words = {w.lower() for w in words(thread.question)}
        q_terms = content_terms(thread.question)
        done = {title_name(t) for t in thread.titles.values()} | {e.lower() for e in thread.searched_entities}
        open_names = {e.lower() for e in q_entities if len(e.split()) > 1}

        def leads_on(fact: tuple[str, str, float]) -> tuple[int, float]:
            """Question terms a fact shares beyond its page's own name: "worked ... software engineer"."""
            return len(
                (content_terms(fact[0]) & q_terms) - content_terms(thread.titles.get(fact[1], ""))
            ), fact[2]

        seen, found = set(), []
        for text, _url, _ in sorted((f for f in pool if f[1] in anchors), key=leads_on, reverse=True)[:4]:
            for m in ENTITY.finditer(text):
                entity = m.group().strip(" .'’")
                tokens = entity.split()
                while tokens and tokens[0] in GENERIC_WORDS:
                    tokens = tokens[1:]
                entity = " ".join(tokens)
                if (
                    not tokens
                    or len(entity) < 3
                    or entity.isdigit()
                    or entity.lower() in seen
                    or entity.lower() in done
                    or (all(t.lower() in q_words for t in words(entity)) and entity.lower() not in open_names)
                    or all(t.isdigit() or _WEAK_SINGLE.match(t) for t in tokens)  # "1945 American"
                    or (len(tokens) == 1 and m.start() == 0)
                ):  # a capitalised first word says nothing
                    continue
                seen.add(entity.lower())
                found.append(entity)
        if not found:
            return []
        residual = thread.question
        for e in q_entities:
            residual = residual.replace(e, " ")
        vectors = self.embedder.encode([residual] + found)
        ranked = sorted(zip(found, vectors[1:] @ vectors[0]), key=lambda x: -float(x[1]))
        return [e for e, _ in ranked][:3]

    @staticmethod
    def _promising_links(
        thread: Thread, documents: list[Source], open_terms: set[str], bridges: list[str]
    ) -> list[str]:
        wanted = open_terms | {t for b in bridges for t in content_terms(b)}
        scored = []
        for doc in documents:
            for url, anchor in doc.links:
                if url in thread.read_urls or not anchor:
                    continue
                overlap = len(content_terms(anchor) & wanted)
                if overlap:
                    scored.append((overlap, url))
        return list(dict.fromkeys(u for _, u in sorted(scored, key=lambda x: -x[0])))


class BaselineDecision:
    """The seed's decision logic, and a stop rule that reads the question: hand over once the
    answerer answers from cited facts with every part supported (both things of a comparison
    with the compared attribute; a wh-question's answer of the asked type). Until then a named
    thing of the question that no fact speaks of is searched first."""

    def __init__(self, embedder: Embedder):
        self.embedder = embedder

    def __call__(self, thread: Thread, memory: Memory | None = None) -> Decision:
        a = thread.last_analysis
        if not thread.queries:
            return self._search(thread, thread.question, "initial search for the question")
        found = (
            answer(
                thread.question, evidence(thread, memory.facts), excluded=rejected_answers(thread.constraints)
            )
            if memory is not None and memory.facts
            else None
        )
        if found is not None and found.settled:
            thread.handover_answer = found.text
            return Decision(
                next_action="send_to_hitl",
                reasoning=f'Every part of the question has a cited fact: the answer is "{found.text}".',
            )
        for target in found.targets if found is not None else []:
            if not self._repeats(thread, target):
                why = (
                    f'Checking this again: the facts read give the rejected answer "{found.contested}".'
                    if found.contested
                    else "Nothing found yet on this part of the question."
                )
                return self._search(thread, target, why)
        if found is not None and found.contested:
            return Decision(
                next_action="send_to_hitl",
                reasoning=f'The facts read still give the rejected answer "{found.contested}" and none '
                "gives another: handing over for a person to judge.",
            )
        if a and a.confidence_score >= ANSWERED_CONFIDENCE and a.answered:
            return Decision(
                next_action="send_to_hitl",
                reasoning=f"Confidence is high ({a.confidence_score}) and the query is answered.",
            )
        if thread.no_progress_steps >= 3:
            return Decision(
                next_action="send_to_hitl",
                reasoning="No new facts for three steps: handing the current findings to a person.",
            )
        allowed = set(thread.candidate_urls)
        for s in a.suggestions_for_next_step if a else []:
            if s.startswith("crawl: "):
                url = s[len("crawl: ") :].strip()
                if url in allowed and url not in thread.read_urls and self._follows(thread, url):
                    return Decision(
                        next_action="crawl_url",
                        query_or_url=url,
                        reasoning="The Analyzer found a promising page among the links.",
                    )
        for s in a.suggestions_for_next_step if a else []:
            if s.startswith("search: "):
                query = s[len("search: ") :].strip()
                if not self._repeats(thread, query):
                    return self._search(thread, query, "The Analyzer suggested researching this next.")
        open_part = " ".join(
            sorted(content_terms(thread.question) - set().union(*(content_terms(q) for q in thread.queries)))
        )
        if thread.no_progress_steps >= 1 and open_part and not self._repeats(thread, open_part):
            return self._search(
                thread, open_part, "No progress: narrowing the search to the unanswered part of the question."
            )
        return Decision(
            next_action="send_to_hitl",
            reasoning="No new leads left: handing the current findings to a person.",
        )

    def _follows(self, thread: Thread, url: str) -> bool:
        """Whether a page link the Analyzer proposes is worth a crawl (here: every one)."""
        return True

    def _repeats(self, thread: Thread, query: str) -> bool:
        return repeats_query(self.embedder, thread, query)

    @staticmethod
    def _search(thread: Thread, query: str, why: str) -> Decision:
        engine = thread.engines[len(thread.queries) % len(thread.engines)]  # alternate configured engines
        return Decision(next_action=f"search_{engine}", query_or_url=query, reasoning=why)


#: Cosine from which a query counts as one the thread already ran.
DUPLICATE_QUERY = 0.9


def repeats_query(embedder: Embedder, thread: Thread, query: str) -> bool:
    """``query`` is a near-duplicate (cosine >= :data:`DUPLICATE_QUERY`) of one the thread ran:
    running it again reads the same results. One rule for every Decision, baseline or LM."""
    if not thread.query_vectors or not query.strip():
        return False
    v = embedder.encode([query])[0]
    return max(float(v @ p) for p in thread.query_vectors) >= DUPLICATE_QUERY


class BaselineReport:
    """The short answer from cited facts (:mod:`.answer`, then ``ranker``: the likeliest of its
    pick and the other candidates), then its support, then the caveats; when the facts do not
    answer, what was found and what is missing."""

    def __init__(self, ranker: Callable[[AnswerContext], Answer] | None = None):
        self.ranker = ranker

    def __call__(self, thread: Thread, memory: Memory, journey: str) -> Report:
        a = thread.last_analysis
        ranked = report_facts(memory)
        if not ranked:
            return Report(
                short_answer="",
                answer_type="none",
                answer="No answer: the research found no relevant facts.",
                research_journey=journey,
                key_sources=[],
            )
        context = answer_context(thread, memory)
        picked, named = context.found, context.handover
        found = self.ranker(context) if self.ranker else picked
        # the answerer's pick is what the research stopped on; the ranker may prefer another
        disagree = bool(named) and picked.complete and norm(named) != norm(picked.text)
        if disagree:
            # the facts answered one way when the research stopped and another way now (a fact
            # judged conflicting since, say): two single answers from the sources, none given
            cited = [(f.text, f.url) for f in found.support]
            opening = (
                f'The sources read give two answers: "{named}" when the research stopped, and '
                f'"{found.text}" from the facts kept; a person should judge.'
            )
        elif found.complete:
            cited = [(f.text, f.url) for f in found.support]
            opening = f"{found.text[0].upper() + found.text[1:]}."
        elif found.contested:
            cited = [(f.text, f.url) for f in found.support]
            opening = (
                f'The sources read still say "{found.contested}", which a reviewer rejected; '
                "no fact found supports another answer."
            )
        else:
            cited = [(f.text, f.source_url) for f in ranked[:3]]
            opening = "Not answered by the facts found."
        sources = list(dict.fromkeys(u for _, u in cited))
        body = " ".join(t.rstrip() + f" [{sources.index(u) + 1}]" for t, u in cited)
        confidence = a.confidence_score if a else 0.0
        level = (
            "high"
            if confidence >= ANSWERED_CONFIDENCE
            else "medium"
            if confidence >= MEDIUM_CONFIDENCE
            else "low"
        )
        caveats = []
        if level != "high" and not found.complete:
            caveats.append(f"Confidence is {level} ({confidence:.2f}).")
        conflicts = [f for f in memory.facts if f.status == "conflicting"]
        if conflicts:
            caveats.append(f"{len(conflicts)} statements from different sources disagree.")
        if found.missing:
            caveats.append("Not established: " + "; ".join(found.missing) + ".")
        return Report(
            short_answer=found.text if found.complete and not disagree else "",
            answer_type=found.answer_type,
            answer=" ".join([opening, body] + caveats),
            research_journey=journey,
            key_sources=sources,
        )


def report_facts(memory: Memory) -> list[Fact]:
    """The facts a report answers from, best first: supported ones, then by confidence; facts
    judged conflicting only when nothing else is kept."""
    usable = [f for f in memory.facts if f.status != "conflicting"] or memory.facts
    return sorted(usable, key=lambda f: (f.status != "supported", -f.confidence))


def answer_context(thread: Thread, memory: Memory) -> AnswerContext:
    """What a report's short answer is checked against: the report's facts, the answerer's
    pick from them, the answer the research stopped on, and whether memory holds conflicts."""
    facts = evidence(thread, report_facts(memory))
    found = answer(thread.question, facts, excluded=rejected_answers(thread.constraints))
    return AnswerContext(thread.question, found, facts, thread.handover_answer, _conflicting(memory))


def _conflicting(memory: Memory) -> bool:
    return any(f.status == "conflicting" for f in memory.facts)


def evidence(thread: Thread, facts: list[Fact]) -> list[Evidence]:
    """Facts as the answerer reads them: sentence, source URL and the title of its page; then
    the opening sentences of each page read that memory did not keep (what the page's subject
    is, and often the page the bridge leads to: "written by Lee Hazlewood")."""
    out = [Evidence(f.text, f.source_url, thread.titles.get(f.source_url, "")) for f in facts]
    kept = {(e.url, e.text) for e in out}
    out += [
        Evidence(text, url, thread.titles.get(url, ""))
        for url, texts in thread.leads.items()
        for text in texts
        if (url, text) not in kept
    ]
    return out
