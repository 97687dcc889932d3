"""What each research node's program reads, built in one place.

The research loop, the set builder (``evals/build_sets.py``) and the node evals
(``modules/evaluation/nodes.py``) all build the Decision, Analyzer and Report inputs with these
functions: a program compiled on a labeled set sees exactly what it will see at run time.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from .schema import Analysis, Source

#: Characters of each document the Analyzer reads.
DOC_CHARS = 4000
#: Steps of history and unread candidate URLs the Decision node sees.
HISTORY_STEPS = 8
MAX_CANDIDATES = 25
#: Facts in the memory summary the Decision and Analyzer nodes read, and the Report node.
SUMMARY_FACTS = 12
REPORT_FACTS = 30

#: The seed's stop rule: an analysis this confident that says the question is answered ends the
#: research ("answered"); below it a report is "medium" confidence from 0.5.
ANSWERED_CONFIDENCE = 0.85
MEDIUM_CONFIDENCE = 0.5

FIRST_STEP = "(first step)"
NO_ANALYSIS = "(no analysis yet)"
NO_FACTS = "(no facts yet)"


def analyzer_report(analysis: Analysis | None) -> str:
    """The last analysis as the Decision node reads it."""
    if analysis is None:
        return NO_ANALYSIS
    return (
        f"confidence {analysis.confidence_score}; answered: {analysis.answered}; {analysis.assessment}; "
        "suggestions: " + "; ".join(analysis.suggestions_for_next_step)
    )


def research_history(history: Sequence[str]) -> str:
    """The latest steps of the research, one per line."""
    return "\n".join(history[-HISTORY_STEPS:]) or FIRST_STEP


def fact_lines(facts: Iterable[tuple[str, str, str]]) -> str:
    """Facts (status, text, source URL) as the nodes read them: text, status and source, no raw pages."""
    return "\n".join(f"- [{status}] {text} (source: {url})" for status, text, url in facts) or NO_FACTS


def documents_as_data(documents: Sequence[Source]) -> str:
    """Documents as delimited, escaped data: a page cannot close the tag or pose as the prompt."""
    parts = []
    for i, d in enumerate(documents, 1):
        body = html.escape(d.text[:DOC_CHARS], quote=False)
        parts.append(
            f'<document index="{i}" url="{html.escape(d.url)}" title="{html.escape(d.title)}">\n{body}\n</document>'
        )
    return "\n".join(parts) or "(no documents)"


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
    :func:`research_history`, ``candidate_urls`` the unread ones in the order found."""
    return {
        "initial_query": question + "".join(f"\nConstraint from the user: {c}" for c in constraints),
        "analyzer_report": report,
        "research_history": history,
        "memory_summary": memory_summary,
        "candidate_urls": list(candidate_urls)[:MAX_CANDIDATES],
        "available_actions": list(actions),
    }


def analyzer_inputs(question: str, documents: Sequence[Source], memory_summary: str) -> dict:
    """The Analyzer node's inputs."""
    return {
        "initial_query": question,
        "documents": documents_as_data(documents),
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
