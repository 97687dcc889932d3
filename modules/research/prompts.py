"""What each research node's program reads, built in one place.

The research loop, the set builder (``evals/build_sets.py``) and the node evals
(``modules/evaluation/nodes.py``) all build the Decision, Analyzer and Report inputs with these
functions: a program compiled on a labeled set sees exactly what it will see at run time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..lm import MAX_URL_CHARS, as_data
from ..text import content_terms, split_sentences
from .schema import Analysis, Source

#: Characters of each document the Analyzer reads: its passages closest to the question (a
#: page's other text costs tokens and buries the evidence in the middle of a long prompt).
DOC_CHARS = 1000
#: Links of each document the Analyzer sees (those sharing most words with the question), so
#: that the URLs it suggests can be real links of the page.
DOC_LINKS = 3
LINKS_CHARS = 300  # of a document's share, kept for its links
#: Steps of history and unread candidate URLs the Decision node sees.
HISTORY_STEPS = 4
MAX_CANDIDATES = 12
#: Facts in the memory summary the Decision and Analyzer nodes read, and the Report node.
SUMMARY_FACTS = 5
REPORT_FACTS = 30

#: The seed's stop rule: an analysis this confident that says the question is answered ends the
#: research ("answered"); below it a report is "medium" confidence from 0.5.
ANSWERED_CONFIDENCE = 0.85
MEDIUM_CONFIDENCE = 0.5

FIRST_STEP = "(first step)"
NO_ANALYSIS = "(no analysis yet)"
NO_FACTS = "(no facts yet)"


def analyzer_report(analysis: Analysis | None) -> str:
    """The last analysis as the Decision node reads it: its confidence and verdict, the
    inconsistencies it found and its suggestions (quoted page text among them, so escaped)."""
    if analysis is None:
        return NO_ANALYSIS
    parts = [
        f"confidence {analysis.confidence_score}; answered: {analysis.answered}; {as_data(analysis.assessment)}",
        "suggestions: " + "; ".join(as_data(x) for x in analysis.suggestions_for_next_step),
    ]
    if analysis.inconsistencies_found:
        parts.append("inconsistencies: " + as_data(analysis.inconsistencies_found))
    return "\n".join(parts)


def research_history(
    history: Sequence[str],
    step: int | None = None,
    max_steps: int | None = None,
    queries: Sequence[str] = (),
) -> str:
    """Where the research stands (step k of N), every query searched so far (deduplicated, so
    that a repeat is visible), and the latest steps, one per line."""
    lines = []
    if step is not None and max_steps is not None:
        lines.append(f"this is step {step} of {max_steps}; {max_steps - step} left after it")
    if queries:
        lines.append("searched so far: " + "; ".join(f'"{as_data(q)}"' for q in dict.fromkeys(queries)))
    lines += [as_data(h) for h in history[-HISTORY_STEPS:]]
    return "\n".join(lines) or FIRST_STEP


def fact_lines(facts: Iterable[tuple[str, str, str]]) -> str:
    """Facts (status, text, source URL) as the nodes read them: text, status and source, no raw
    pages; a fact is quoted page text, so it is escaped as data."""
    return (
        "\n".join(
            f"- [{status}] {as_data(text)} (source: {as_data(url[:MAX_URL_CHARS])})"
            for status, text, url in facts
        )
        or NO_FACTS
    )


def best_passages(text: str, question: str, limit: int) -> str:
    """At most ``limit`` characters of ``text``: all of it when it fits, else its sentences that
    share most words with the question, each with the sentence after it, in page order (the
    first sentence, which often says what the page is about, always); gaps marked " … "."""
    if len(text) <= limit:
        return text
    sentences = split_sentences(text)
    wanted = content_terms(question)
    scores = sorted(range(len(sentences)), key=lambda i: (-len(wanted & content_terms(sentences[i].text)), i))
    chosen: set[int] = set()
    used = 0
    for i in [0, *scores]:
        for j in (i, i + 1):
            if j < len(sentences) and j not in chosen and used + len(sentences[j].text) + 3 <= limit:
                chosen.add(j)
                used += len(sentences[j].text) + 3
        if used >= limit * 0.95:
            break
    if not chosen:  # no sentence fits (a page without sentence breaks): its opening
        return text[:limit]
    out, last = [], -1
    for j in sorted(chosen):
        if last >= 0 and j != last + 1:
            out.append("…")
        out.append(sentences[j].text)
        last = j
    return " ".join(out)[:limit]


def documents_as_data(documents: Sequence[Source], question: str = "", limit: int | None = None) -> str:
    """Documents as delimited, escaped data: a page cannot close the tag, open a prompt section
    or pose as the prompt. With ``limit``, the documents share that many characters, each trimmed
    to its passages closest to ``question``; each keeps its links closest to the question."""
    each = DOC_CHARS if limit is None or not documents else min(DOC_CHARS, limit // len(documents) - 120)
    parts = []
    for i, d in enumerate(documents, 1):
        passages = best_passages(d.text, question, max(200, each - LINKS_CHARS if d.links else each))
        links = link_lines(d.links, question, passages)
        body = as_data(passages)
        if links:
            body += "\nlinks:\n" + "\n".join(links)
        url, title = as_data(d.url[:MAX_URL_CHARS], quote=True), as_data(d.title[:200], quote=True)
        parts.append(f'<document index="{i}" url="{url}" title="{title}">\n{body}\n</document>')
    return "\n".join(parts) or "(no documents)"


def link_lines(links: Sequence[tuple[str, str]], question: str, passages: str = "") -> list[str]:
    """A page's ``DOC_LINKS`` best leads as "URL | link text" lines, escaped: links whose text
    shares words with the question, then those whose text occurs in the ``passages`` shown (a
    link in the evidence, where a bridge's next hop is); navigation links share neither. A URL
    longer than ``MAX_URL_CHARS`` is left out, and a lead fits in ``LINKS_CHARS``."""
    wanted = content_terms(question)
    scored = []
    for i, (url, text) in enumerate(links):
        text = " ".join(text.split())[:80]
        if len(url) > MAX_URL_CHARS or not text:
            continue
        score = 2 * len(wanted & content_terms(text)) + (len(text) > 3 and text in passages)
        if score:
            scored.append((-score, i, f"{as_data(url)} | {as_data(text)}"))
    lines, used = [], 0
    for _, _, line in sorted(scored)[:DOC_LINKS]:
        if used + len(line) + 1 <= LINKS_CHARS:
            lines.append(line)
            used += len(line) + 1
    return lines


def candidate_lines(candidates: Sequence[tuple[str, str, str]]) -> list[str]:
    """Candidate URLs (url, title, where it was found) as the Decision node reads them: one line
    each, "URL | title | origin", escaped; a URL longer than ``MAX_URL_CHARS`` is not offered."""
    return [
        f"{as_data(url)} | {as_data(title[:120]) or '(no title)'} | {as_data(origin[:160])}"
        for url, title, origin in candidates
        if len(url) <= MAX_URL_CHARS
    ][:MAX_CANDIDATES]


def candidate_url(value: str | None) -> str | None:
    """The URL in a Decision node's answer that names a candidate by its line ("URL | title | ...")."""
    if not value:
        return value
    first = value.strip().split(" | ", 1)[0].strip()
    return first.replace("&amp;", "&") if first else value


def decision_inputs(
    question: str,
    constraints: Sequence[str],
    report: str,
    history: str,
    memory_summary: str,
    candidate_urls: Sequence[str],
    actions: Sequence[str],
) -> dict:
    """The Decision node's inputs; ``report`` from :func:`analyzer_report`, ``history`` from
    :func:`research_history`, ``candidate_urls`` the unread ones best first (lines from
    :func:`candidate_lines`, or bare URLs)."""
    return {
        "initial_query": question + "".join(f"\nConstraint from the user: {as_data(c)}" for c in constraints),
        "analyzer_report": report,
        "research_history": history,
        "memory_summary": memory_summary,
        "candidate_urls": list(candidate_urls)[:MAX_CANDIDATES],
        "available_actions": list(actions),
    }


def analyzer_inputs(
    question: str, documents: Sequence[Source], memory_summary: str, limit: int | None = None
) -> dict:
    """The Analyzer node's inputs; with ``limit``, the documents fit in that many characters."""
    return {
        "initial_query": question,
        "documents": documents_as_data(documents, question, limit),
        "shared_memory": memory_summary,
    }


def final_assessment(analysis: Analysis | None) -> str:
    """The last analysis as the Report node reads it."""
    return f"confidence {analysis.confidence_score}; {analysis.assessment}" if analysis else "no analysis"


def report_inputs(question: str, facts: str, assessment: str, journey: str) -> dict:
    """The Report node's inputs; ``facts`` from :func:`fact_lines`, ``assessment`` from
    :func:`final_assessment`."""
    return {
        "initial_query": question,
        "facts": facts,
        "final_assessment": assessment,
        "research_journey": journey,
    }
