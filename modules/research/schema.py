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
    """The JSON schema an LM reads, without the titles pydantic repeats for every field and the
    model's docstring (tokens sent with every call, telling the model nothing its field names
    and descriptions do not)."""
    schema.pop("title", None)
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)


class Decision(BaseModel):
    """Decision node output: the next action and its argument, reasoning first (an LM writes the
    fields in this order, so it reasons before it commits to an action)."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    reasoning: str = Field("", description="why, in one or two sentences")
    next_action: str = Field(description="one of available_actions")
    query_or_url: str | None = Field(
        None, description="the search query, the URL to crawl (from candidate_urls), or null for send_to_hitl"
    )

    @field_validator("next_action")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in ACTIONS:
            raise ValueError(f"next_action must be one of {ACTIONS}, got {value!r}")
        return value

    @field_validator("query_or_url")
    @classmethod
    def _none(cls, value: str | None) -> str | None:
        return None if value is None or value.strip().lower() in ("", "null", "none") else value


class Quote(BaseModel):
    """A fact as the Analyzer extracts it: a sentence quoted from one document, named by its
    index, so that the fact's source is exact rather than guessed from shared words."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    doc: int = Field(description="index of the document quoted; 0 if unknown")
    quote: str = Field(description="its sentence, verbatim")


class Analysis(BaseModel):
    """Analyzer node output, evidence first: facts, conflicts and assessment come before the
    confidence and the answered flag they justify."""

    model_config = ConfigDict(json_schema_extra=_lean_schema)

    extracted_info: list[Quote] = Field(default_factory=list, description="facts relevant to the query")
    inconsistencies_found: str | None = None
    assessment: str = ""
    suggestions_for_next_step: list[str] = Field(default_factory=list)
    new_potential_urls: list[str] = Field(default_factory=list)
    answered: bool = False  # beyond the seed: the Analyzer's judgement that the query is answered
    confidence_score: float = Field(0.0, ge=0.0, le=1.0)

    @field_validator("extracted_info", mode="before")
    @classmethod
    def _quotes(cls, value):
        """A bare sentence (as smaller models write it) is a quote of an unnamed document."""
        return [{"doc": 0, "quote": v} if isinstance(v, str) else v for v in value or []]

    @field_validator("inconsistencies_found")
    @classmethod
    def _none(cls, value: str | None) -> str | None:
        return None if value is None or value.strip().lower() in ("", "null", "none") else value


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
    withheld: str = ""  # why no node saw its text or snippet (prompt-injection markers), else ""
