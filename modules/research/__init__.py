"""The research agent: a Decision node picks the next action, tool nodes run it, an Analyzer
node extracts facts into shared memory, and a Report node writes what a person accepts, rejects
or extends (which restarts the loop).

Each node is a DSPy module when an LM is configured and a deterministic baseline program
otherwise; the baseline is also the fallback when LM output stays unparseable.
"""

from .batch import load_questions
from .feedback import VERDICTS, ThreadSeed, constraints_for, seeds_from_run
from .loop import Researcher, ResearchResult
from .memory import Memory
from .render import report_markdown, report_text
from .session import SEARCH_CHOICES, ResearchOptions, build_researcher
from .tables import (
    FEEDBACK_SCHEMA,
    MEMORY_SCHEMA,
    REPORTS_SCHEMA,
    RESEARCH_TABLES,
    SOURCES_SCHEMA,
    STEPS_SCHEMA,
    fact_row,
    facts_from_rows,
    failed_report_row,
    research_frame,
    thread_rows,
)

__all__ = [
    "FEEDBACK_SCHEMA",
    "MEMORY_SCHEMA",
    "REPORTS_SCHEMA",
    "RESEARCH_TABLES",
    "SEARCH_CHOICES",
    "SOURCES_SCHEMA",
    "STEPS_SCHEMA",
    "VERDICTS",
    "Memory",
    "ResearchOptions",
    "ResearchResult",
    "Researcher",
    "ThreadSeed",
    "build_researcher",
    "constraints_for",
    "fact_row",
    "facts_from_rows",
    "failed_report_row",
    "load_questions",
    "report_markdown",
    "report_text",
    "research_frame",
    "seeds_from_run",
    "thread_rows",
]
