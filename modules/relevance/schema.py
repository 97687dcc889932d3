"""The relevance analyzer's contracts (seed 000): inputs, per-result output, the whole answer.

Output field names are the seed's camelCase JSON names (``originalIndex``, ``briefAnswer``...),
which ``sleuth rerank`` prints and the ``rerankings`` table stores.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator


class PlanQuery(BaseModel):
    query: str
    mode: str = ""  # hybrid | semantic | keyword ...
    rationale: str = ""


class ResearchPlan(BaseModel):
    """The research strategy the results were found with; every part optional."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore")

    reasoning: str = ""
    assumptions: list[str] = Field(default_factory=list, alias="assumptionsChallenged")
    queries: list[PlanQuery] = Field(default_factory=list)
    angles: list[str] = Field(default_factory=list, alias="traditions")  # traditions or angles covered
    surprises: list[str] = Field(default_factory=list)

    @classmethod
    def parse(cls, plan: ResearchPlan | dict | str | None) -> ResearchPlan:
        """Structured (a dict with any of the fields) or free text (taken as the reasoning)."""
        if plan is None:
            return cls()
        if isinstance(plan, ResearchPlan):
            return plan
        if isinstance(plan, str):
            return cls(reasoning=plan)
        if isinstance(plan, dict):
            data = dict(plan)
            data["queries"] = [
                q if isinstance(q, dict) else {"query": str(q)} for q in data.get("queries", [])
            ]
            for key in ("angles", "traditions", "assumptions", "assumptionsChallenged", "surprises"):
                if isinstance(data.get(key), str):
                    data[key] = [data[key]]
            return cls.model_validate(data)
        raise ValueError(f"a research plan is a dict or text, not {type(plan).__name__}")

    def facets(self) -> list[str]:
        """What alignment is measured against: queries, angles and the reasoning."""
        return (
            [q.query for q in self.queries if q.query]
            + [a for a in self.angles if a]
            + ([self.reasoning] if self.reasoning else [])
        )

    def as_text(self) -> str:
        lines = []
        if self.reasoning:
            lines.append(f"- Reasoning: {self.reasoning}")
        if self.assumptions:
            lines.append("- Assumptions being challenged: " + "; ".join(self.assumptions))
        if self.queries:
            lines.append("- Search queries used:")
            lines += [
                f'  {i}. "{q.query}"'
                + (f" ({q.mode})" if q.mode else "")
                + (f" - {q.rationale}" if q.rationale else "")
                for i, q in enumerate(self.queries, 1)
            ]
        if self.angles:
            lines.append("- Angles covered: " + "; ".join(self.angles))
        if self.surprises:
            lines.append("- Surprises to watch for: " + "; ".join(self.surprises))
        return "\n".join(lines) or "(no research plan)"


class SearchResultIn(BaseModel):
    """One result to score. ``text`` is the passage; ``id`` defaults to its position."""

    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    title: str = ""
    url: str = ""
    text: str

    @field_validator("id", mode="before")
    @classmethod
    def _str(cls, v):
        return None if v is None else str(v)


class SubScores(BaseModel):
    """Each criterion on 0-1; the score is their weighted sum x 100. ``planAlignment`` is null
    without a research plan (not applicable: its weight goes to direct relevance)."""

    directRelevance: float
    depth: float
    planAlignment: float | None = None
    unexpectedness: float


class RankedResult(BaseModel):
    originalIndex: int
    id: str
    title: str = ""
    url: str = ""
    score: int | None = (
        None  # null when the result was not scored (fallback, or missing from a partial LM ranking)
    )
    kept: bool = False
    briefAnswer: str = ""
    sentenceStart: str = ""
    sentenceEnd: str = ""
    sentence: str = ""
    coreTerms: list[str] = Field(default_factory=list)
    relevanceNote: str = ""
    highlighted: str = ""  # HTML: escaped text, the sentence in <mark>, core terms in <b>
    subscores: SubScores | None = None
    anchor: str | None = None  # exact | fuzzy | start_only | end_only | best_sentence


class Reranking(BaseModel):
    results: list[RankedResult]
    introduction: str = ""
    semanticNote: str | None = None
    fallback: bool = False
    error: str | None = None  # why it fell back
    program: str = "baseline"  # which program scored: baseline | dspy
