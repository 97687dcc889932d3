"""The research agent: a Decision node picks the next action, tool nodes run it, an Analyzer
node extracts facts into shared memory, and a Report node writes what a person accepts, rejects
or extends (which restarts the loop).

Each node is a DSPy module when an LM is configured and a deterministic baseline program
otherwise; the baseline is also the fallback when LM output stays unparseable.
"""

from ..facade import lazy_exports, lazy_names

#: each module of the package and the names it offers that the package does not import itself
_HOMES = """
    batch: load_questions
    feedback: ThreadSeed VERDICTS constraints_for seeds_from_run
    loop: ResearchResult Researcher
    memory: Memory
    ranking: shipped_ranker
    render: report_markdown report_text
    session: ResearchOptions SEARCH_CHOICES build_researcher
    tables: FEEDBACK_SCHEMA MEMORY_SCHEMA REPORTS_SCHEMA RESEARCH_TABLES SOURCES_SCHEMA STEPS_SCHEMA fact_row facts_from_rows failed_report_row research_frame thread_rows
"""
__all__ = lazy_names(_HOMES)
__getattr__ = lazy_exports(__name__, _HOMES)
