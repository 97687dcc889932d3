"""Shared memory: the facts a research thread has established, with agreement and conflicts.

A new fact close in meaning to a stored one (cosine >= ``SAME_TOPIC``) from another source
either supports it (numbers and negation agree) or conflicts with it (they differ); a fact
repeated by the same source is not stored twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..embeddings import Embedder
from ..text import has_negation, numbers
from .prompts import SUMMARY_FACTS, fact_lines
from .schema import Fact

SAME_TOPIC = 0.8  # cosine from which two facts speak of the same thing (and support or conflict)
DUPLICATE = 0.95  # cosine from which a fact from the same source is a repeat, not stored again


class Memory:
    """A thread's established facts and their vectors: new facts are checked against them for
    support or conflict, and :meth:`summary` is what the nodes see of them."""

    def __init__(self, embedder: Embedder, facts: Sequence[Fact] = ()):
        self.embedder = embedder
        self.facts: list[Fact] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        if facts:
            self.facts = list(facts)
            self._vectors = embedder.encode([f.text for f in self.facts])

    def add(self, candidates: Sequence[tuple[str, str, float]], step: int) -> tuple[list[Fact], list[str]]:
        """Store (text, source_url, confidence) candidates; returns (new facts, inconsistencies)."""
        if not candidates:
            return [], []
        vectors = self.embedder.encode([c[0] for c in candidates])
        added, conflicts = [], []
        for (text, url, confidence), v in zip(candidates, vectors):
            sims = self._vectors @ v if len(self.facts) else np.zeros(0)
            if any(s >= DUPLICATE and f.source_url == url for s, f in zip(sims, self.facts)):
                continue
            fact = Fact(
                fact_id=hashlib.sha256(f"{url}\x00{text}".encode()).hexdigest()[:12],
                text=text,
                quote=text,
                source_url=url,
                step=step,
                confidence=round(float(confidence), 3),
            )
            for s, other in zip(sims, self.facts):
                if s < SAME_TOPIC or other.source_url == url:
                    continue
                both_numeric = bool(numbers(other.text)) and bool(numbers(text))
                numbers_differ = both_numeric and numbers(other.text) != numbers(text)
                if numbers_differ or has_negation(other.text) != has_negation(text):
                    fact.status = other.status = "conflicting"
                    conflicts.append(f'{other.source_url} says "{other.text}" but {url} says "{text}"')
                elif fact.status != "conflicting":
                    fact.status = "supported"
                    if other.status == "unverified":
                        other.status = "supported"
            self.facts.append(fact)
            self._vectors = v[None, :] if not len(self._vectors) else np.vstack([self._vectors, v])
            added.append(fact)
        return added, conflicts

    def summary(self, limit: int = SUMMARY_FACTS) -> str:
        """Facts for the Decision, Analyzer and Report nodes: text, status and source (no raw
        pages); conflicts first, so that the limit never cuts what the next step must settle."""
        ranked = sorted(self.facts, key=lambda f: (f.status != "conflicting", -f.confidence))[:limit]
        return fact_lines((f.status, f.text, f.source_url) for f in ranked)
