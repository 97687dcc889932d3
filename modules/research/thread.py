"""A research thread's state: what the nodes know of the research so far, carried from step to
step by the loop and read by the Decision, Analyzer and Report programs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .schema import Analysis


@dataclass
class Thread:
    """What the nodes know of the research so far (structured; of the pages read, only their
    opening sentences, which the offline answerer reads beside memory's facts)."""

    question: str
    engines: list[str]
    step: int = 0
    queries: list[str] = field(default_factory=list)
    query_vectors: list[np.ndarray] = field(default_factory=list)
    read_urls: set[str] = field(default_factory=set)
    titles: dict[str, str] = field(default_factory=dict)  # title of each page read
    # the opening sentences of each page read (its lead says what its subject is): the answerer
    # reads them beside memory's few facts per page
    leads: dict[str, list[str]] = field(default_factory=dict)
    searched_entities: set[str] = field(default_factory=set)
    candidate_urls: list[str] = field(default_factory=list)  # from search results and page links only
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)  # candidate -> (title, where found)
    # each search's results not read before it, best first: a result an earlier search found too
    # keeps its first origin, and is still one of this search's
    ranked: dict[str, list[str]] = field(default_factory=dict)
    no_progress_steps: int = 0
    last_analysis: Analysis | None = None
    history: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)  # added by human feedback
    handover_answer: str = ""  # the answer the baseline Decision named when it handed over
    # a search the loop ran to judge a model's proposal before acting on it: (engine, query, results)
    peeked: tuple[str, str, Any] | None = None
