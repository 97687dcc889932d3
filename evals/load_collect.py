"""Load test of ``sleuth collect``: many questions, three providers at their concurrency limits,
a local fake provider with latency, 5xx errors and 429s (modules/testing/fake_assistant.py on 127.0.0.1).

Runs the real ``collect`` flow (checkpointing every answer, writing the Parquet tables), and
with ``--stop-after S`` sends this process SIGTERM after S seconds and finishes the collection
with ``--resume``, as an operator would after a cancelled run. Prints throughput, calls
retried, answers without an answer after their retries, answers lost (a call the provider
answered whose answer is not in the final run's ``responses``: must be 0) and peak memory.

Run: ``.venv/bin/python -m evals.load_collect [--queries 2000] [--stop-after 20]``
(about 2-4 minutes on 2 cores; the Prefect temporary server starts first unless
``PREFECT_API_URL`` is set).
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import tempfile
import threading
import time
from collections import Counter

import polars as pl

from flows.monitor import CollectionStopped, collect
from flows.runtime import local_run_settings, quiet_user_errors
from modules.queries import Query, write_query_set
from modules.store import ParquetStore
from modules.testing import FakeAssistant

PROVIDERS = (("flaky-a", 16, None), ("flaky-b", 8, None), ("flaky-c", 4, 6000.0))  # model, concurrency, rpm


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05, help="mean answer latency, seconds (+-50%%)")
    parser.add_argument("--error-rate", type=float, default=0.05, help="share of requests answered 500")
    parser.add_argument("--rate-limit-rate", type=float, default=0.05, help="share of requests answered 429")
    parser.add_argument(
        "--stop-after", type=float, help="SIGTERM this process after S seconds, then --resume"
    )
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="sleuth-load-")
    query_set = os.path.join(work, "queries.jsonl")
    queries = [
        Query(
            query_set_id="load",
            query_id=f"q{i:05d}",
            query=f"What does plan {i} include?",
            domain="example.com",
            expected_answer=f"Plan {i} includes {i % 97} GB.",
        )
        for i in range(args.queries)
    ]
    write_query_set(query_set, queries)
    fake = FakeAssistant(
        {q.query: q.expected_answer for q in queries},
        latency_s=args.latency,
        retry_after=0.2,
        error_rate=args.error_rate,
        rate_limit_rate=args.rate_limit_rate,
        keep_bodies=False,
        seed=7,
    )
    providers = [
        {
            "model": f"openai/{model}",
            "base_url": fake.base_url,
            "concurrency": concurrency,
            "rpm": rpm,
            "retries": 4,
            "backoff_s": 0.1,
            "timeout_s": 30.0,
        }
        for model, concurrency, rpm in PROVIDERS
    ]
    data_dir = os.path.join(work, "runs")
    rss_before = _rss_mb()
    quiet_user_errors()

    t0 = time.perf_counter()
    runs = []
    with local_run_settings():
        if args.stop_after:
            threading.Timer(args.stop_after, os.kill, args=(os.getpid(), signal.SIGTERM)).start()
        try:
            runs.append(collect(query_set, providers, run_id="load-1", data_dir=data_dir))
        except CollectionStopped as stopped:
            runs.append(stopped.result)
            print(f"stopped: {stopped}")
            runs.append(collect(resume="load-1", run_id="load-2", data_dir=data_dir))
    wall = time.perf_counter() - t0
    fake.close()

    store = ParquetStore(data_dir)
    final = store.read("responses", runs[-1].run_id)
    answered_by_server = {(r["model"], r["query"]) for r in fake.requests if r.get("status") == 200}
    kept = {
        (f"{row['model']}", row["query"])
        for row in final.filter(pl.col("status") == "answered").iter_rows(named=True)
    }
    lost = answered_by_server - kept
    statuses = Counter(r.get("status") for r in fake.requests)
    collections = store.read("collections", runs[-1].run_id)

    print(
        f"\n{args.queries} queries x {len(PROVIDERS)} providers = {len(final)} answers expected; latency "
        f"{args.latency * 1000:.0f} ms +-50%, {args.error_rate:.0%} 500s, {args.rate_limit_rate:.0%} 429s "
        f"(Retry-After 0.2 s); concurrency {', '.join(str(c) for _, c, _ in PROVIDERS)}"
    )
    print(f"runs: {', '.join(r.run_id for r in runs)}")
    print(f"wall time (flow runs, writes included): {wall:.1f} s, {len(final) / wall:.1f} answers/s")
    calls = sum(statuses.values())
    print(
        f"calls the provider served: {calls} ({dict(sorted(statuses.items(), key=lambda kv: str(kv[0])))}), "
        f"beyond one per answer: {calls - len(final)}"
    )
    if len(runs) > 1:
        print(
            f"answered while in flight at the stop (abandoned, asked again by the resume): {statuses[200] - len(final)}"
        )
    for row in collections.iter_rows(named=True):
        print(
            f"  {row['model']:8s} {row['status']:9s} answered {row['answered']:5d}  errors {row['errors']:3d}  "
            f"429s {row['rate_limited']:4d}  p50 {row['latency_median_s']} s"
        )
    print(f"without an answer after retries: {int((final['status'] != 'answered').sum())}")
    print(f"answers lost: {len(lost)}")
    print(f"peak RSS: {_rss_mb():.0f} MB (after imports {rss_before:.0f} MB)")
    print(f"tables under {data_dir}")


if __name__ == "__main__":
    main()
