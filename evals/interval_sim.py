"""Do the summaries' intervals and "significant" marks hold? A simulation through the real
summary code (``summarize_providers``).

An assistant names the site with a known probability p and scores accuracy from a fixed
distribution (a third of the answers at 100, the rest spread over 0-90). Each run asks 40
queries x 5 samples (200 answers); 200 runs per p. Reported per p:

- coverage: the share of runs whose 95% interval of ``mention_rate`` holds p, and whose
  interval of ``accuracy_mean`` holds the true mean (target >= 0.93);
- false alarms: over 200 pairs of runs of the same unchanged assistant, the share whose
  ``mention_rate`` or ``accuracy`` change is marked significant (target <= 0.05 each);
- power: the share of pairs marked significant when p rises by 0.15 between the runs.

``--clustered`` draws each query's own probability from a Beta around p (its 5 samples share
it), as real assistants answer one query alike more often than not: intervals that treat the
200 answers as independent are then too narrow, and the figures show by how much.

    .venv/bin/python -m evals.interval_sim [--runs 200] [--queries 40] [--samples 5] [--clustered]
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl

from modules.response import summarize_providers

START = datetime(2026, 11, 1, tzinfo=UTC)
ACCURACY_MEAN = (1 / 3) * 100 + (2 / 3) * 45  # a third at 100, the rest uniform over 0-90


def _answers(rng: np.random.Generator, p: float, queries: int, samples: int, clustered: bool) -> pl.DataFrame:
    if clustered:  # each query's own chance, shared by its samples (Beta with mean p, concentration 4)
        chance = np.repeat(rng.beta(4 * p, 4 * (1 - p), size=queries), samples)
    else:
        chance = np.full(queries * samples, p)
    n = queries * samples
    named = rng.random(n) < chance
    accuracy = np.where(rng.random(n) < 1 / 3, 100.0, rng.uniform(0, 90, n))
    return pl.DataFrame(
        {
            "domain": "site.example",
            "query_set_id": "qs",
            "provider": "sim",
            "model": "m",
            "status": "ok",
            "flags": [[] for _ in range(n)],
            "accuracy_score": accuracy,
            "accuracy_tier": "good",
            "completeness_score": 50.0,
            "completeness_tier": "fair",
            "attribution_score": 50.0,
            "attribution_tier": "fair",
            "has_url_citation": False,
            "has_domain_mention": False,
            "has_brand_mention": named,
            "has_wrong_fact": False,
            "site_cited": False,
            "site_named_first": named,
        }
    )


def _run(rng, p, args, previous=None, when=START) -> dict:
    summary = summarize_providers(
        _answers(rng, p, args.queries, args.samples, args.clustered),
        when,
        pl.DataFrame() if previous is None else pl.DataFrame([{**previous, "run_id": "before"}]),
    )
    return summary.to_dicts()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--clustered", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.runs} runs of {args.queries} queries x {args.samples} samples per p"
        f"{' (clustered by query)' if args.clustered else ''}\n"
    )
    print("p     covers p  covers mean  false alarm (mention)  false alarm (accuracy)  power (+0.15)")
    for p in (0.1, 0.3, 0.5):
        covered = covered_mean = alarms = alarms_acc = detected = 0
        for _ in range(args.runs):
            first = _run(rng, p, args)
            covered += first["mention_rate_low"] <= p <= first["mention_rate_high"]
            covered_mean += first["accuracy_mean_low"] <= ACCURACY_MEAN <= first["accuracy_mean_high"]
            same = _run(rng, p, args, first, START + timedelta(days=7))
            alarms += bool(same["mention_rate_delta_significant"])
            alarms_acc += bool(same["accuracy_delta_significant"])
            rose = _run(rng, p + 0.15, args, first, START + timedelta(days=7))
            detected += bool(rose["mention_rate_delta_significant"])
        n = args.runs
        print(
            f"{p:.1f}   {covered / n:8.3f}  {covered_mean / n:11.3f}  {alarms / n:21.3f}  "
            f"{alarms_acc / n:22.3f}  {detected / n:13.3f}"
        )
    print("\ntargets: coverage >= 0.93; false alarms <= 0.05")


if __name__ == "__main__":
    main()
