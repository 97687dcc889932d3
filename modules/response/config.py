"""AnalyzerConfig: every field of the seed's configuration, plus batch and feedback settings.

Keys are accepted in snake_case or in the seed's camelCase (``chunking_strategy`` or
``chunkingStrategy``), from a TOML file, from ``--set section.field=value`` and from Python.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel


class _Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", validate_assignment=True
    )


class AccuracyConfig(_Section):
    chunking_strategy: Literal["none", "sentences", "paragraphs"] = "sentences"
    aggregation: Literal["max", "mean"] = "max"
    # "calibrated": question-residual cosine + lexical overlap + polarity (see docs/evaluation-history.md, "Accuracy");
    # "cosine": the seed's plain embedding cosine, scaled to 0-100.
    method: Literal["calibrated", "cosine"] = "calibrated"
    lexical_weight: float = Field(0.5, ge=0)
    polarity_penalty: float = Field(0.3, ge=0)


class CompletenessConfig(_Section):
    # The seed's threshold: a span this close to a claim (cosine), stating its values and
    # polarity and half of its words, states it (the judge's other paths: modules/response/verdicts.py).
    similarity_threshold: float = Field(0.75, ge=-1, le=1)
    require_all_required: bool = False


class AttributionConfig(_Section):
    url_weight: float = Field(100, ge=0)
    domain_weight: float = Field(75, ge=0)
    brand_weight: float = Field(50, ge=0)
    multi_mention_bonus: float = Field(10, ge=0)
    # Prominence: where the first mention stands. An earlier place never earns less, hence the order.
    first_sentence_weight: float = Field(15, ge=0)
    first_paragraph_weight: float = Field(10, ge=0)
    list_weight: float = Field(8, ge=0)  # beyond the first paragraph: / the mention's list rank
    cited_weight: float = Field(10, ge=0)  # / the best rank of the site among the cited sources
    # Presence when the site is only among the cited sources, never named in the text: a link in a
    # source list is weaker credit than being named (kept below the excellent tier, see below).
    cited_source_weight: float = Field(50, ge=0)
    max_score: float = Field(100, ge=0, le=100)
    context_chars: int = Field(60, ge=0)

    @model_validator(mode="after")
    def _earlier_never_less(self) -> AttributionConfig:
        if not (self.first_sentence_weight >= self.first_paragraph_weight >= self.list_weight):
            raise ValueError(
                "attribution weights must satisfy first_sentence_weight >= first_paragraph_weight >= "
                f"list_weight (an earlier mention never earns less), got {self.first_sentence_weight}, "
                f"{self.first_paragraph_weight}, {self.list_weight}"
            )
        return self


class TierConfig(_Section):
    excellent: float = 85
    good: float = 70
    fair: float = 50

    @model_validator(mode="after")
    def _ordered(self) -> TierConfig:
        if not (100 >= self.excellent > self.good > self.fair >= 0):
            raise ValueError(
                f"tier thresholds must satisfy 100 >= excellent > good > fair >= 0, got "
                f"excellent={self.excellent}, good={self.good}, fair={self.fair}"
            )
        return self


class ProviderConfig(_Section):
    embedding: Literal["local", "openai"] = "local"
    embedding_model: str | None = None
    embedding_retries: int = Field(3, ge=0)
    embedding_backoff_s: float = Field(0.5, ge=0)


class FeedbackConfig(_Section):
    # A response sentence is highlighted when its best ground-truth chunk reaches this cosine...
    highlight_threshold: float = Field(0.6, ge=-1, le=1)
    # ...and reported as "not in ground truth" when its best chunk stays below this one.
    support_threshold: float = Field(0.45, ge=-1, le=1)
    min_statement_words: int = Field(4, ge=1)
    # Wrong facts are also looked for in the pages (not only against the expected answer).
    check_pages: bool = True
    # The trained claim checker (modules/response/checker.py) weighs each wrong fact found against
    # the pages: its probability of contradiction is the fact's confidence, and one below the
    # threshold is not reported. Off by default: on the dev sets it drops more true wrong facts
    # than false ones (docs/evaluation-history.md, "The claim checker"), so the rules alone decide.
    checker: bool = False
    checker_threshold: float = Field(0.5, ge=0, le=1)
    # Each wrong fact's confidence is the probability that it is right, from a small model trained
    # on the verdict sets' train splits (modules/response/flag_confidence.py); off: the fixed
    # figure of the rule that found it. With the checker on, its probability stands instead.
    calibrated_confidence: bool = True
    # With calibrated confidences, a wrong fact below this probability is not reported (precision
    # first: a false alarm costs a site owner more than a miss). None: the threshold shipped with
    # the model, chosen for precision when it was trained; 0 reports every flag.
    min_flag_confidence: float | None = Field(None, ge=0, le=1)
    # A claim the checks call missing (not contradicted) is found where a small model trained on
    # the verdict sets' gold claim verdicts (modules/response/claim_found.py) gives it at least
    # this probability. None: the threshold shipped with the model, chosen for the precision of
    # "found" when it was trained; 1 leaves the checks' verdicts as they are.
    min_claim_found: float | None = Field(None, ge=0, le=1)
    # A claim the checks call missing is contradicted where a window of the answer states one of
    # its values otherwise and a small model trained on the verdict sets' gold claim verdicts
    # (modules/response/claim_conflict.py) gives it at least this probability. None: the
    # threshold shipped with the model, chosen for the precision of "contradicted" when it was
    # trained; 1 leaves the checks' verdicts as they are.
    min_claim_conflict: float | None = Field(None, ge=0, le=1)


class BatchConfig(_Section):
    concurrency: int = Field(5, ge=1)
    batch_size: int = Field(500, ge=1)
    retry_on_failure: bool = True
    max_retries: int = Field(2, ge=0)
    continue_on_error: bool = True
    max_response_chars: int = Field(20_000, ge=100)
    #: Page chunks a run embeds for its ground truth at most: past it the run is refused at once
    #: (200,000 chunks take 10-35 minutes on 2 cores), rather than after an hour.
    max_ground_truth_chunks: int = Field(200_000, ge=1)


class AnalyzerConfig(_Section):
    """Every setting of the response analyzer, by section (TOML ``--config``, ``--set`` overrides);
    its hash is recorded with each run."""

    accuracy: AccuracyConfig = AccuracyConfig()
    completeness: CompletenessConfig = CompletenessConfig()
    attribution: AttributionConfig = AttributionConfig()
    tiers: TierConfig = TierConfig()
    providers: ProviderConfig = ProviderConfig()
    feedback: FeedbackConfig = FeedbackConfig()
    batch: BatchConfig = BatchConfig()

    @classmethod
    def load(cls, path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> AnalyzerConfig:
        """Config from an optional TOML file, then dotted overrides such as ``{"tiers.good": 65}``."""
        data: dict[str, Any] = {}
        if path is not None:
            try:
                data = tomllib.loads(Path(path).read_text())
            except FileNotFoundError:
                raise ValueError(f"config file not found: {path}") from None
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"config file {path} is not valid TOML: {exc}") from None
        for dotted, value in (overrides or {}).items():
            section, _, field = dotted.partition(".")
            if not field:
                raise ValueError(f"override {dotted!r} must look like section.field")
            data.setdefault(section, {})[field] = value
        return cls.model_validate(data)

    @model_validator(mode="after")
    def _source_list_alone_never_excellent(self) -> AnalyzerConfig:
        most = self.attribution.cited_source_weight + self.attribution.cited_weight
        if min(most, self.attribution.max_score) >= self.tiers.excellent:
            raise ValueError(
                "attribution.cited_source_weight + attribution.cited_weight must stay below "
                f"tiers.excellent (a source-list link alone is never excellent attribution), got "
                f"{self.attribution.cited_source_weight} + {self.attribution.cited_weight} >= {self.tiers.excellent}"
            )
        return self

    def config_hash(self) -> str:
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]
