"""The nodes' JSON contracts (seed 002) as pydantic models, and the research state they read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ACTIONS = (
    "search_duckduckgo",
    "search_google",
    "search_local",
    "search_searxng",
    "search_serper",
    "crawl_url",
    "send_to_hitl",
)
FactStatus = Literal["supported", "conflicting", "unverified"]


def _lean_schema(schema: dict) -> None:
    """The JSON schema an LM reads, without the titles pydantic repeats for every field (tokens
    sent with every call, telling the model nothing its field names do not)."""
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class Decision(BaseModel):
    """Decision node output: the next action and its argument."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    next_action: str = Field(description="one of available_actions")
    query_or_url: str | None = Field(
        None, description="the search query, the URL to crawl (from candidate_urls), or null for send_to_hitl"
    )
    reasoning: str = Field("", description="why, in one or two sentences")

    @field_validator("next_action")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ACTIONS:
            raise ValueError(f"next_action must be one of {ACTIONS}, got {value!r}")
        return value


class Analysis(BaseModel):
    """Analyzer node output."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    extracted_info: list[str] = Field(
        default_factory=list, description="facts relevant to the query, each one sentence"
    )
    assessment: str = ""
    confidence_score: float = Field(0.0, ge=0.0, le=1.0)
    suggestions_for_next_step: list[str] = Field(default_factory=list)
    new_potential_urls: list[str] = Field(default_factory=list)
    inconsistencies_found: str | None = None
    answered: bool = False  # beyond the seed: the Analyzer's judgement that the query is answered


class Report(BaseModel):
    """Report node output, shown to the human."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    short_answer: str = Field(
        "",
        description="the direct answer alone (yes / no, a name, a date, a number, a place); empty if the facts do not answer",
    )
    answer_type: str = Field(
        "", description="yes_no, choice, person, year, date, number, place, entity, or none"
    )
    answer: str = Field(
        description="opens with the short answer, then the supporting facts cited as [n], then the caveats"
    )
    research_journey: str = Field("", description="empty: the step log is attached by the system")
    key_sources: list[str] = Field(default_factory=list, description="URLs cited as [1], [2], ... in order")


class Fact(BaseModel):
    fact_id: str
    text: str
    quote: str
    source_url: str
    step: int
    confidence: float = Field(ge=0.0, le=1.0)
    status: FactStatus = "unverified"


class Source(BaseModel):
    """A document the thread has seen (a search result or a fetched page)."""

    url: str
    title: str = ""
    snippet: str = ""
    engine: str = ""
    rank: int = 0
    step: int = 0
    analyzed: bool = False  # the Analyzer read its text
    text: str = ""  # raw page text: only the Analyzer ever sees it
    links: list[tuple[str, str]] = Field(default_factory=list)
