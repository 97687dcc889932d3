"""What a collection asks, and what it can keep from an earlier run (``--resume RUN_ID``).

A collection writes its plan (the query set, its version, every provider's full settings, the
ground truth of a monitor run) into its checkpoint before the first call, and each answer as it
arrives. A resume reads the earlier run back, from its committed ``runs`` and ``responses`` when
it was written (stopped by a signal or its deadline), or from its checkpoint when it was killed
before that, and asks only the queries without a kept answer (answered, refusal, empty): an
error of any kind, a cancelled or skipped call is asked again. The query set must be unchanged,
and so is the number of samples (each query asked that many times of each provider).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from typing import Any

import polars as pl

from ..queries import QuerySet, load_query_set
from ..store import Checkpoint, ParquetStore
from .collect import KEPT_STATUSES, Answer, AskKey
from .spec import ProviderSpec, parse_provider, unique_specs


def provider_specs(providers: list[str | dict], defaults: dict | None = None) -> list[ProviderSpec]:
    """Spec strings (``MODEL[,key=value...]``) or dicts of ProviderSpec fields, checked to be distinct."""
    specs = [
        parse_provider(p, **(defaults or {}))
        if isinstance(p, str)
        else ProviderSpec(**{**(defaults or {}), **p})
        for p in providers
    ]
    return unique_specs(specs)


def specs_json(specs: list[ProviderSpec]) -> str:
    """Every provider's settings (``runs.providers``): enough to ask them again on a resume.
    ``api_key_env`` names the variable holding a key, never the key."""
    return json.dumps([s.as_dict() | {"provider": s.provider} for s in specs])


def _spec_from_record(record: dict) -> ProviderSpec:
    known = {f.name for f in fields(ProviderSpec)}
    spec = ProviderSpec(**{k: v for k, v in record.items() if k in known})
    if (
        record.get("provider") and spec.provider != record["provider"]
    ):  # runs written before labels were stored
        spec = ProviderSpec(**(spec.as_dict() | {"label": record["provider"]}))
    return spec


@dataclass
class CollectionPlan:
    query_set: QuerySet
    specs: list[ProviderSpec]
    ground_truth: str | None = None
    resumed_from: str | None = None
    carried: dict[tuple[str, str], dict[AskKey, Answer]] = field(
        default_factory=dict
    )  # spec key -> (query id, sample) -> answer
    samples: int = 1  # asks of each query per provider

    @property
    def asks(self) -> int:
        """Calls the whole collection makes: every query, every sample, every provider."""
        return len(self.query_set.queries) * self.samples * len(self.specs)

    @property
    def carried_count(self) -> int:
        return sum(len(a) for a in self.carried.values())

    def manifest(self, flow: str) -> dict[str, Any]:
        return {
            "flow": flow,
            "input_path": self.query_set.path,
            "query_set_id": self.query_set.query_set_id,
            "query_set_version": self.query_set.version,
            "providers": specs_json(self.specs),
            "ground_truth_path": self.ground_truth,
            "resumed_from": self.resumed_from,
            "samples": self.samples,
        }


def _answer_name(spec: ProviderSpec, query_id: str, sample: int) -> str:
    key = [*spec.key, query_id] + ([sample] if sample > 1 else [])
    return hashlib.sha1(json.dumps(key).encode()).hexdigest()[:24]


def checkpoint_answer(checkpoint: Checkpoint, spec: ProviderSpec, answer: Answer) -> None:
    """One kept answer into the run's checkpoint, as it arrives."""
    checkpoint.put(
        _answer_name(spec, answer.query.query_id, answer.sample),
        {"provider": spec.provider, "model": spec.model_name, **answer.to_record()},
    )


def start_checkpoint(checkpoint: Checkpoint, plan: CollectionPlan, flow: str) -> None:
    """The plan, and the answers carried from the resumed run (so this run's checkpoint alone
    is enough to resume it in turn)."""
    checkpoint.begin(plan.manifest(flow))
    specs = {s.key: s for s in plan.specs}
    for key, answers in plan.carried.items():
        for answer in answers.values():
            checkpoint_answer(checkpoint, specs[key], answer)


def plan_collection(
    query_set: str | None,
    providers: list[str | dict] | None,
    *,
    defaults: dict | None = None,
    allow_drafts: bool = False,
    ground_truth: str | None = None,
    resume: str | None = None,
    data_dir: str | None = None,
    samples: int | None = None,
) -> CollectionPlan:
    """A new collection, or the rest of run ``resume``: the same query set (refused if it
    changed), samples and providers (``providers`` given again may change how they are called,
    not what is asked), keeping that run's answers. ``samples``: asks of each query per
    provider (default 1; a resume keeps the earlier run's)."""
    if samples is not None and samples < 1:
        raise ValueError(f"--samples must be at least 1, got {samples}")
    if resume is None:
        if not query_set or not providers:
            raise ValueError("a collection needs a query set and at least one provider (or --resume RUN_ID)")
        return CollectionPlan(
            load_query_set(query_set, allow_drafts=allow_drafts),
            provider_specs(providers, defaults),
            ground_truth,
            samples=samples or 1,
        )
    store = ParquetStore(data_dir)
    recorded, answers = _earlier_run(store, resume)
    asked = int(recorded.get("samples") or 1)  # runs written before samples asked once
    if samples is not None and samples != asked:
        raise ValueError(
            f"run {resume} asked each query {asked} time(s), not {samples}: a resume asks what it left, "
            "the same number of samples (leave out --samples)"
        )
    path = query_set or recorded["input_path"]
    qs = load_query_set(
        path, allow_drafts=True
    )  # the version check below stands for the earlier run's draft check
    if qs.version != recorded["query_set_version"]:
        raise ValueError(
            f"query set {path} changed since run {resume} (version {recorded['query_set_version']} -> "
            f"{qs.version}); its answers would not match: start a new collection"
        )
    earlier = [_spec_from_record(r) for r in json.loads(recorded["providers"])]
    specs = (
        provider_specs(providers, defaults)
        if providers
        else [
            ProviderSpec(**(s.as_dict() | {k: v for k, v in (defaults or {}).items() if v is not None}))
            for s in earlier
        ]
    )
    by_key = {s.key: s for s in earlier}
    for spec in specs:
        if spec.key not in by_key or spec.parameters() != by_key[spec.key].parameters():
            raise ValueError(
                f"provider {spec.provider}/{spec.model_name} was not asked in run {resume} with these "
                f"settings ({sorted(by_key)}): a resume asks the same providers the same way"
            )
    queries = {q.query_id: q for q in qs.queries}
    carried: dict[tuple[str, str], dict[AskKey, Answer]] = {s.key: {} for s in specs}
    for record in answers:
        key, query = (record["provider"], record["model"]), queries.get(record["query_id"])
        sample = int(record.get("sample") or 1)
        if key in carried and query is not None and sample <= asked and record.get("status") in KEPT_STATUSES:
            answer = Answer.from_record(query, record)
            carried[key][answer.key] = answer
    plan = CollectionPlan(
        qs, specs, ground_truth or recorded.get("ground_truth_path"), resume, carried, samples=asked
    )
    if plan.carried_count >= plan.asks:
        raise ValueError(f"run {resume} already has every answer: nothing to resume")
    return plan


def _earlier_run(store: ParquetStore, run_id: str) -> tuple[dict[str, Any], list[dict]]:
    """The plan and kept answers of ``run_id``: written tables first, then its checkpoint."""
    runs = store.read("runs", run_id)
    checkpoint = store.checkpoint(run_id)
    answers = checkpoint.items()
    if not runs.is_empty():
        recorded = runs.row(0, named=True)
        if not recorded.get("query_set_version") or not recorded.get("providers"):
            raise ValueError(f"run {run_id} is a {recorded['flow']} run, not a collection: nothing to resume")
        responses = store.read("responses", run_id)
        if not responses.is_empty():
            answers += responses.filter(pl.col("status").is_in(KEPT_STATUSES)).to_dicts()
        return recorded, answers
    recorded = checkpoint.manifest()
    owner = checkpoint.running_owner()
    if owner:
        raise ValueError(
            f"run {run_id} is still running (process {owner.split('~')[1]}): wait for it to end, or stop it "
            "(kill -TERM sends it to write what it has), then resume"
        )
    if recorded is None:
        raise ValueError(
            f"run {run_id} has neither written tables nor a checkpoint under {store.root}: nothing to resume "
            "(was it already resumed?)"
        )
    return recorded, answers


__all__ = [
    "CollectionPlan",
    "checkpoint_answer",
    "plan_collection",
    "provider_specs",
    "specs_json",
    "start_checkpoint",
]
