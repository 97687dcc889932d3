"""Do the summaries' intervals and "significant" marks hold? A simulation through the real
summary code (``summarize_providers``).

An assistant names the site with a known probability p and scores accuracy from a fixed
distribution (a third of the answers at 100, the rest spread over 0-90). Each run asks 40
queries x 5 samples (200 answers, each row with its ``query_id`` and ``sample``); 200 runs per
p. Reported per p:

- coverage: the share of runs whose 95% interval of ``mention_rate`` holds p, and whose
  interval of ``accuracy_mean`` holds the true mean (target >= 0.93);
- false alarms: over 200 pairs of runs of the same unchanged assistant, the share whose
  ``mention_rate`` or ``accuracy`` change is marked significant (target <= 0.05 each);
- power: the share of pairs marked significant when p rises by 0.15 between the runs.

``--clustered`` gives each query its own chances, shared by its samples, as real assistants
answer one query alike more often than not: its chance of naming the site drawn from a Beta
around p, its chance of a perfect accuracy from a Beta around a third (both concentration 4).
The truths stay the population's: p, and the mean above. Each pair of runs draws its queries'
chances once and both runs ask those same queries (the same query set, as two monitor runs
do); the coverage run is the pair's first, so every run still draws fresh queries from the
population. The run whose p rises keeps the queries, each query's chance moved towards 1 by the
same share (its mean rises by 0.15). Without ``--clustered`` every answer has the same chances.

``--no-query-ids`` leaves ``query_id`` out, so every answer is its own cluster: the intervals
as they were before repeated samples, for comparison.

    .venv/bin/python -m evals.interval_sim [--runs 200] [--queries 40] [--samples 5] [--clustered]
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

import numpy as np
import polars as pl

from modules.response import summarize_providers
from modules.testing import scored_answers

START = datetime(2026, 11, 1, tzinfo=UTC)
PERFECT = 1 / 3  # the share of answers scoring 100 in accuracy; the rest uniform over 0-90
ACCURACY_MEAN = PERFECT * 100 + (1 - PERFECT) * 45
CONCENTRATION = 4  # of each query's Beta: a sample-to-sample correlation of 1 / (1 + 4)
RISE = 0.15


def _chances(rng: np.random.Generator, p: float, args) -> tuple[np.ndarray, np.ndarray]:
    """Each query's chance of naming the site and of a perfect accuracy score."""
    if not args.clustered:
        return np.full(args.queries, p), np.full(args.queries, PERFECT)
    named = rng.beta(CONCENTRATION * p, CONCENTRATION * (1 - p), size=args.queries)
    perfect = rng.beta(CONCENTRATION * PERFECT, CONCENTRATION * (1 - PERFECT), size=args.queries)
    return named, perfect


def _answers(rng: np.random.Generator, named_chance, perfect_chance, args) -> pl.DataFrame:
    n = args.queries * args.samples
    named = rng.random(n) < np.repeat(named_chance, args.samples)
    perfect = rng.random(n) < np.repeat(perfect_chance, args.samples)
    accuracy = np.where(perfect, 100.0, rng.uniform(0, 90, n))
    return scored_answers(
        named,
        accuracy,
        provider="sim",
        query_ids=None if args.no_query_ids else [f"q{i // args.samples}" for i in range(n)],
        samples=[i % args.samples + 1 for i in range(n)],
    )


def _run(rng, chances, args, previous=None, when=START) -> dict:
    summary = summarize_providers(
        _answers(rng, *chances, args),
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
    parser.add_argument("--no-query-ids", action="store_true", help="every answer its own cluster")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.runs} runs of {args.queries} queries x {args.samples} samples per p"
        f"{' (clustered by query)' if args.clustered else ''}"
        f"{' (no query ids: answers as independent)' if args.no_query_ids else ''}\n"
    )
    print("p     covers p  covers mean  false alarm (mention)  false alarm (accuracy)  power (+0.15)")
    for p in (0.1, 0.3, 0.5):
        covered = covered_mean = alarms = alarms_acc = detected = 0
        for _ in range(args.runs):
            named, perfect = _chances(rng, p, args)  # the pair's queries
            first = _run(rng, (named, perfect), args)
            covered += first["mention_rate_low"] <= p <= first["mention_rate_high"]
            covered_mean += first["accuracy_mean_low"] <= ACCURACY_MEAN <= first["accuracy_mean_high"]
            same = _run(rng, (named, perfect), args, first, START + timedelta(days=7))
            alarms += bool(same["mention_rate_delta_significant"])
            alarms_acc += bool(same["accuracy_delta_significant"])
            risen = named + RISE * (1 - named) / (1 - p)  # each query towards 1; the mean + 0.15
            rose = _run(rng, (risen, perfect), args, first, START + timedelta(days=7))
            detected += bool(rose["mention_rate_delta_significant"])
        n = args.runs
        print(
            f"{p:.1f}   {covered / n:8.3f}  {covered_mean / n:11.3f}  {alarms / n:21.3f}  "
            f"{alarms_acc / n:22.3f}  {detected / n:13.3f}"
        )
    print("\ntargets: coverage >= 0.93; false alarms <= 0.05")


if __name__ == "__main__":
    main()
