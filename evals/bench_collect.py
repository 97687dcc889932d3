"""Collector overhead and concurrency, against a local OpenAI-compatible server whose answers
take ``--latency`` seconds (modules/testing/fake_assistant.py on 127.0.0.1).

Compares, on the same queries in one run: plain sequential ``litellm.completion`` calls, sleuth's
collector at concurrency 1 (the cost of its pacing, classification and accounting per call), and
at ``--concurrency`` (what per-provider concurrency buys). Medians of ``--repeats`` runs.
Run: ``.venv/bin/python -m evals.bench_collect [--queries 100] [--latency 0.05] [--concurrency 8]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import litellm

from modules.providers import ask_provider, parse_provider
from modules.queries.queryset import Query
from modules.testing import FakeAssistant


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    queries = [
        Query(query_set_id="bench", query_id=f"q{i}", query=f"Question number {i}?", domain="example.com")
        for i in range(args.queries)
    ]
    fake = FakeAssistant({q.query: f"Answer {i}." for i, q in enumerate(queries)}, latency_s=args.latency)
    litellm.suppress_debug_info = True
    raw_kwargs = {
        "model": "openai/good",
        "api_base": fake.base_url,
        "api_key": "none",
        "max_tokens": 64,
        "num_retries": 0,
        "max_retries": 0,
        "timeout": 30,
    }
    litellm.completion(messages=[{"role": "user", "content": "warm up"}], **raw_kwargs)

    def raw() -> None:
        for q in queries:
            litellm.completion(messages=[{"role": "user", "content": q.query}], **raw_kwargs)

    def sleuth(concurrency: int):
        spec = parse_provider(f"openai/good,base_url={fake.base_url}", concurrency=concurrency, max_tokens=64)
        return lambda: ask_provider(spec, queries)

    timings: dict[str, list[float]] = {
        "raw litellm, sequential": [],
        "sleuth, concurrency 1": [],
        f"sleuth, concurrency {args.concurrency}": [],
    }
    runners = [raw, sleuth(1), sleuth(args.concurrency)]
    for _ in range(args.repeats):
        for name, run in zip(timings, runners):
            t0 = time.perf_counter()
            run()
            timings[name].append(time.perf_counter() - t0)
    fake.close()
    base = statistics.median(timings["raw litellm, sequential"])
    print(
        f"{args.queries} queries, server latency {args.latency * 1000:.0f} ms, median of {args.repeats} runs\n"
    )
    print(f"{'client':32s}{'seconds':>10s}{'answers/s':>12s}{'vs raw':>10s}")
    for name, ts in timings.items():
        m = statistics.median(ts)
        print(f"{name:32s}{m:>10.2f}{args.queries / m:>12.1f}{base / m:>9.2f}x")


if __name__ == "__main__":
    main()
