"""The research agent: a Decision node picks the next action, tool nodes run it, an Analyzer
node extracts facts into shared memory, and a Report node writes what a person accepts, rejects
or extends (which restarts the loop).

Each node is a DSPy module when an LM is configured and a deterministic baseline program
otherwise; the baseline is also the fallback when LM output stays unparseable.
"""

from ..facade import lazy_exports

#: what the package offers beyond what it imports itself, and the module each name lives in
_HOMES = {
    "FEEDBACK_SCHEMA": "tables",
    "MEMORY_SCHEMA": "tables",
    "Memory": "memory",
    "REPORTS_SCHEMA": "tables",
    "RESEARCH_TABLES": "tables",
    "ResearchOptions": "session",
    "ResearchResult": "loop",
    "Researcher": "loop",
    "SEARCH_CHOICES": "session",
    "SOURCES_SCHEMA": "tables",
    "STEPS_SCHEMA": "tables",
    "ThreadSeed": "feedback",
    "VERDICTS": "feedback",
    "build_researcher": "session",
    "constraints_for": "feedback",
    "fact_row": "tables",
    "facts_from_rows": "tables",
    "failed_report_row": "tables",
    "load_questions": "batch",
    "report_markdown": "render",
    "report_text": "render",
    "research_frame": "tables",
    "seeds_from_run": "feedback",
    "thread_rows": "tables",
}
__all__ = [*_HOMES]
__getattr__ = lazy_exports(__name__, _HOMES)
