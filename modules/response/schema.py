"""The seed's data model (AnalysisResult and its parts) as pydantic models.

Python attributes are snake_case; JSON uses the seed's camelCase names
(``result.model_dump_json(by_alias=True)``), which is what ``analyses.result_json`` holds.
Fields beyond the seed (status, flags, fallback, the inputs needed to re-analyse) are marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

ScoreTier = Literal["excellent", "good", "fair", "poor"]
Placement = Literal["first_sentence", "first_paragraph", "later"]
Importance = Literal["required", "expected", "optional"]
Status = Literal["ok", "flagged", "error"]


class Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class TextPosition(Model):
    start: int
    end: int

    def overlaps(self, other: TextPosition) -> bool:
        """The two spans share a character."""
        return self.start < other.end and other.start < self.end


class ExpectedClaim(Model):
    id: str
    text: str
    importance: Importance = "required"


class Citation(Model):
    """A source the assistant itself returned beside its text (beyond the seed).

    Web-searching assistants list their sources as structured data (Perplexity citations,
    OpenAI URL annotations, Anthropic citation blocks, Gemini grounding chunks); ``rank`` is
    the 1-based position in that list, in the provider's order.
    """

    url: str = Field(min_length=1)
    title: str | None = None
    rank: int = Field(ge=1)


class Competitor(Model):
    """A brand the site owner tracks beside their own (beyond the seed): matched in answers
    and cited sources with the same word and host boundaries as the site's own brand."""

    name: str = Field(min_length=1)
    domains: list[str] = []
    brand_names: list[str] = []


class BrandPresence(Competitor):
    """Where one brand (the site's own, or a tracked competitor) stands in an answer (beyond the
    seed): mentioned in the text (URL, domain or brand name), cited (a URL of its domain in the
    text, or its domain among the assistant's cited sources, ``cited_rank`` the best such source's
    rank), and whether it is named before every other tracked brand the answer names."""

    mentioned: bool = False
    cited: bool = False
    mentions: int = 0
    first_position: TextPosition | None = None
    first_mention_in: Placement | None = None
    cited_rank: int | None = None
    named_first: bool = False


class ChunkMatch(Model):
    response_segment: str
    ground_truth_chunk_id: str | None
    similarity: float
    position: TextPosition  # beyond the seed: where the segment is in the response


class AccuracyComponents(Model):
    """Beyond the seed: the parts of the score, so a score can be explained (the first three
    for the calibrated method)."""

    residual_similarity: float | None = None
    lexical_overlap: float | None = None
    polarity_agreement: bool | None = None
    similarity_score: float | None = None  # 0-100, closeness of wording alone (places the answer in its band)
    basis: str | None = None  # claims (verdicts set the score) | similarity (no claims, no expected answer)
    verified_facts: float | None = None  # share of the expected claims the response states (found)
    wrong_facts: int = 0  # statements the expected answer, the claims or the pages contradict
    capped_by: str | None = None  # why the score was held below "good": the contradictions


class AccuracyResult(Model):
    score: float
    tier: ScoreTier
    similarity: float  # the seed's raw cosine (0-1), aggregated over chunks
    matched_chunks: list[ChunkMatch] = []
    method: str = "calibrated"  # beyond the seed: calibrated | cosine | ground_truth | keyword
    components: AccuracyComponents | None = None


class ClaimMatch(Model):
    claim: ExpectedClaim
    matched_text: str
    similarity: float
    position: TextPosition


class CompletenessResult(Model):
    score: float
    tier: ScoreTier
    claims_found: list[ClaimMatch] = []
    claims_missing: list[ExpectedClaim] = []
    total_required: int
    total_found: int


class AttributionMention(Model):
    type: Literal["url", "domain", "brand"]
    matched_text: str
    position: TextPosition
    context: str


MentionPlace = Literal["first_sentence", "first_paragraph", "later", "none"]


class AttributionComponents(Model):
    """Beyond the seed: the parts of the attribution score, so a score can be explained.

    ``score = presence_points + extra_mention_points + position_points + list_points +
    cited_points - capped_points``; where the site's first mention stands (prominence) and the
    best rank the assistant gave the site among its own cited sources. ``presence_from`` names
    what set the presence points: the strongest mention in the text (a cited source of a site
    also named in the text counts as a URL), or ``cited_source`` when the site is only in the
    source list, which is weighted low so that a source-list link alone is never excellent.
    """

    presence_from: Literal["url", "domain", "brand", "cited_source", "none"] = "none"
    presence_points: float = 0  # the weight of ``presence_from``
    extra_mention_points: float = 0  # the bonus per mention in the text beyond the first
    first_mention_position: TextPosition | None = None
    first_mention_in: MentionPlace = "none"
    list_rank: int | None = None  # the list item holding the first mention, from the answer's first item
    cited_rank: int | None = None  # the best rank of a cited source on the site
    position_points: float = 0  # first sentence or first paragraph
    list_points: float = 0  # beyond the first paragraph: list weight / the mention's rank
    cited_points: float = 0  # cited weight / cited rank
    capped_points: float = 0  # what max_score cut off


class AttributionResult(Model):
    score: float
    tier: ScoreTier
    mentions: list[AttributionMention] = []
    has_url_citation: bool = False  # a URL of the site in the text, or among the cited sources
    has_domain_mention: bool = False
    has_brand_mention: bool = False
    cited_sources: list[Citation] = []  # beyond the seed: the assistant's cited sources on the site
    components: AttributionComponents | None = None  # beyond the seed
    # beyond the seed, 0-100: named in the answer's text (and where), linked or cited (and at what
    # rank); the headline ``score`` above combines both (:func:`..attribution.score_attribution`)
    mention_score: float = 0
    citation_score: float = 0


class Scores(Model):
    accuracy: AccuracyResult | None
    completeness: CompletenessResult | None
    attribution: AttributionResult | None


class FoundClaim(Model):
    claim: ExpectedClaim
    evidence: str
    confidence: float


class MissingClaim(Model):
    claim: ExpectedClaim
    importance: Importance


class ContradictedClaim(Model):
    """Beyond the seed: a claim the response states otherwise (another number, date, price,
    quantity, or the negation), with the statement and what disagrees."""

    claim: ExpectedClaim
    statement: str  # the response's sentence or clause
    position: TextPosition
    evidence: str  # what disagrees: "$6 per month (claim) vs $9.99 per month (response)", or the negation
    kind: str = "other"  # number | date | money | quantity | entity | negation | other


class Contradiction(Model):
    """Beyond the seed: a wrong fact, a statement of the response that the expected answer, a
    claim or the site's pages state otherwise (``feedback.contradictions``)."""

    statement: str
    position: TextPosition
    #: scope: whom, what, where or when it holds for ("on every plan" where a page says "only on
    #: Enterprise"; "seven days a week" where it says "Monday to Saturday")
    kind: Literal["number", "date", "money", "quantity", "entity", "negation", "scope", "other"]
    evidence: str  # the conflicting text: the claim, or the page's sentence
    source: Literal["expected_answer", "claim", "ground_truth", "analyst"]
    page_url: str | None = None
    confidence: float
    detail: str | None = None  # what disagrees: "$9.99 per month (response) vs $6 per month (page)"


class UnsupportedStatement(Model):
    statement: str
    position: TextPosition
    similarity: float  # beyond the seed: best similarity to any ground-truth chunk


class ClaimFeedback(Model):
    found: list[FoundClaim] = []
    missing: list[MissingClaim] = []  # neither found nor contradicted
    contradicted: list[ContradictedClaim] = []  # beyond the seed; counted as not found in completeness
    not_in_ground_truth: list[UnsupportedStatement] = []

    @classmethod
    def of(
        cls,
        found: list[FoundClaim],
        not_found: list[ExpectedClaim],
        contradicted: list[ContradictedClaim],
        not_in_ground_truth: list[UnsupportedStatement] | None = None,
    ) -> ClaimFeedback:
        """The verdicts of a judge: a claim it did not find is missing unless it is contradicted."""
        refuted = {c.claim.id for c in contradicted}
        return cls(
            found=found,
            missing=[
                MissingClaim(claim=c, importance=c.importance) for c in not_found if c.id not in refuted
            ],
            contradicted=contradicted,
            not_in_ground_truth=not_in_ground_truth or [],
        )

    def verdicts(self) -> dict[str, str]:
        """Each claim's verdict by claim id: found, missing or contradicted."""
        out = {c.claim.id: "missing" for c in self.missing}
        out.update({c.claim.id: "found" for c in self.found})
        out.update({c.claim.id: "contradicted" for c in self.contradicted})
        return out


class GroundTruthSource(Model):
    chunk_id: str
    page_url: str
    matched_text: str


class TextHighlight(Model):
    response_range: TextPosition
    response_text: str
    ground_truth_source: GroundTruthSource
    similarity: float


class UnmatchedSegment(Model):
    text: str
    position: TextPosition


class HighlightFeedback(Model):
    highlights: list[TextHighlight] = []
    coverage_percent: float = 0.0
    unmatched_segments: list[UnmatchedSegment] = []

    def without(self, wrong: Sequence[TextPosition]) -> HighlightFeedback:
        """These highlights less those overlapping a wrong fact (a sentence holding one never
        highlights as matching the pages): they become unmatched, and the coverage drops."""
        moved = [
            h
            for h in self.highlights
            if any(h.response_range.start < w.end and w.start < h.response_range.end for w in wrong)
        ]
        if not moved:
            return self
        kept = [h for h in self.highlights if h not in moved]
        unmatched = sorted(
            self.unmatched_segments
            + [UnmatchedSegment(text=h.response_text, position=h.response_range) for h in moved],
            key=lambda u: u.position.start,
        )
        total = sum(len(h.response_text) for h in self.highlights) + sum(
            len(u.text) for u in self.unmatched_segments
        )
        covered = sum(len(h.response_text) for h in kept)
        return self.model_copy(
            update={
                "highlights": kept,
                "unmatched_segments": unmatched,
                "coverage_percent": round(100 * covered / total, 2) if total else 0.0,
            }
        )


class Feedback(Model):
    claims: ClaimFeedback = ClaimFeedback()
    highlights: HighlightFeedback = HighlightFeedback()
    contradictions: list[Contradiction] = []  # beyond the seed: wrong facts, never highlighted as matching


class AnalystVerdict(Model):
    """Beyond the seed: an analyst's verdict that overrules the judge's on one claim or one wrong
    fact of the answer (:mod:`.overrides`)."""

    claim_id: str | None = None
    wrong_fact: str | None = None  # words of the answer
    verdict: str  # found | missing | contradicted (a claim); wrong | not_wrong (a wrong fact)
    previous_verdict: str | None = None  # the judge's, when it was recorded
    note: str | None = None
    analyst: str | None = None


#: The flag of an answer on which the LM judge and the offline checks disagree (``judge_disagreements``).
DISAGREEMENT_FLAG = "judge_disagreement"


class JudgeDisagreement(Model):
    """Beyond the seed: one claim or one wrong fact on which the LM judge and the offline checks
    disagree (``analyze --lm``). ``kept`` is the verdict the answer is scored with: the LM adds
    evidence, it never silently clears what the offline checks found."""

    claim_id: str | None = None
    wrong_fact: str | None = None  # words of the answer
    offline: str  # found | missing | contradicted (a claim); wrong | not_flagged (a wrong fact)
    lm: str
    kept: str


class AnalysisResult(Model):
    id: str
    query_id: str
    query: str | None = None
    domain: str
    ai_provider: str | None = None
    response: str
    response_at: datetime | None = None
    scores: Scores
    feedback: Feedback
    analyzed_at: datetime
    analyzer_version: str
    ground_truth_version: str | None
    # Beyond the seed:
    model: str | None = None
    query_set_id: str | None = None
    status: Status = "ok"
    flags: list[str] = []  # empty_response, response_chunked, embedding_fallback, ...
    fallback: bool = False
    error: str | None = None
    embedding_model: str | None = None
    expected_answer: str | None = None
    expected_claims: list[ExpectedClaim] = []
    brand_names: list[str] = []  # as given or derived from page titles
    citations: list[Citation] = []  # the assistant's cited sources, as given
    source_line: int | None = None
    site: BrandPresence | None = None  # the site's own presence (none on error rows)
    competitors: list[BrandPresence] = []  # each tracked competitor's presence, in the record's order
    sample: int | None = None  # which of the query's repeated asks of this provider (1-based; --samples)
    analyst_verdicts: list[AnalystVerdict] = []  # the analyst's verdicts applied (``sleuth verdicts``)
    judge_disagreements: list[JudgeDisagreement] = []  # where the LM judge and the offline checks differ


class AIResponse(Model):
    """One input record (JSONL line or Parquet row)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    query_id: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    response: str
    query: str | None = None
    provider: str | None = None
    model: str | None = None
    responded_at: datetime | None = None
    expected_answer: str | None = None
    claims: list[ExpectedClaim] = []
    brand_names: list[str] = []
    citations: list[Citation] = []  # beyond the seed: the assistant's own cited sources
    competitors: list[Competitor] = []  # beyond the seed: brands tracked beside the site's own
    query_set_id: str | None = None
    source_line: int | None = None
    error: str | None = None  # the provider gave no answer (a ``responses`` row of a failed call)
    sample: int | None = Field(None, ge=1)  # which repeated ask of the query this is (``collect --samples``)

    @field_validator("claims", mode="before")
    @classmethod
    def _claims_from_strings(cls, value):
        """Claims may be plain strings or objects without ids: number them claim-1, claim-2..."""
        if value is None:
            return []
        if isinstance(value, list):
            return [
                {"id": f"claim-{i}", "text": c}
                if isinstance(c, str)
                else ({"id": f"claim-{i}", **c} if isinstance(c, dict) and "id" not in c else c)
                for i, c in enumerate(value, 1)
            ]
        return value

    @field_validator("brand_names", "competitors", mode="before")
    @classmethod
    def _none_is_empty(cls, value):
        return [] if value is None else value

    @field_validator("citations", mode="before")
    @classmethod
    def _ranked_citations(cls, value):
        """Citations may be plain URLs or objects without ranks: their order ranks them."""
        if value is None:
            return []
        if not isinstance(value, list):
            return value
        return [
            {"url": c, "rank": i}
            if isinstance(c, str)
            else ({**c, "rank": i} if isinstance(c, dict) and c.get("rank") is None else c)
            for i, c in enumerate(value, 1)
        ]


class StoredPage(Model):
    url: str
    text: str
    title: str | None = None
    domain: str | None = None
