"""Search and crawl as Prefect tasks: batched, retried only on transient outcomes (and the
transient errors of the flows' one policy, ``flows.runtime.TRANSIENT_ERRORS``).

A batch task runs all its items; if some ended in a transient outcome (rate limited, timed
out, a 5xx) and attempts remain, it raises ``TransientOutcome`` so Prefect retries it. The
retry redoes only those items: results already obtained in this task run are kept in the
process. On the last attempt the task returns everything, transient outcomes included, so
the caller (a Decision node) sees them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.runtime import task_run

from flows.runtime import TransientFailure, retry_transient
from modules.tools.crawl import CrawlConfig, Crawler, Page
from modules.tools.engines import make_backend
from modules.tools.local_index import LocalSearch
from modules.tools.search import RETRYABLE, SearchResults

RETRIES = 2
T = TypeVar("T")
_done: dict[str, dict[int, object]] = {}  # task run id -> item index -> final result


class TransientOutcome(TransientFailure):
    """Some items failed in a way a retry may fix."""


def _run_batch(
    items: Sequence, run_items: Callable[[list[int]], list[T]], is_transient: Callable[[T], bool]
) -> list[T]:
    run_id = str(task_run.id or "")
    done = _done.setdefault(run_id, {})
    todo = [i for i in range(len(items)) if i not in done]
    results = dict(zip(todo, run_items(todo)))
    transient = [i for i, r in results.items() if is_transient(r)]
    done.update({i: r for i, r in results.items() if i not in transient})
    if transient and task_run.run_count <= RETRIES:
        raise TransientOutcome(
            f"{len(transient)} of {len(items)} items hit transient outcomes; retrying them"
        )
    _done.pop(run_id, None)
    return [done[i] if i in done else results[i] for i in range(len(items))]


@task(
    name="search-batch",
    cache_policy=NO_CACHE,
    retries=RETRIES,
    retry_delay_seconds=[2, 10],
    retry_condition_fn=retry_transient,
)
def search_batch(
    queries: list[str], engine: str = "auto", max_results: int = 10, options: dict | None = None
) -> list[SearchResults]:
    """Run queries one after another on one backend (engines want sequential queries)."""
    backend = make_backend(engine, **(options or {}))
    return _run_batch(
        queries,
        lambda idx: [backend.search(queries[i], max_results) for i in idx],
        lambda r: r.outcome in RETRYABLE,
    )


@task(
    name="crawl-batch",
    cache_policy=NO_CACHE,
    retries=RETRIES,
    retry_delay_seconds=[2, 10],
    retry_condition_fn=retry_transient,
)
def crawl_batch(
    urls: list[str],
    config: CrawlConfig | None = None,
    snippets: list[str | None] | None = None,
    corpus: str | None = None,
) -> list[Page]:
    """Fetch URLs concurrently inside one task; ``corpus`` serves its URLs offline."""
    import asyncio

    mirror = LocalSearch(corpus).index if corpus else None

    def fetch(idx: list[int]) -> list[Page]:
        async def run() -> list[Page]:
            async with Crawler(config, mirror=mirror) as crawler:
                return await crawler.fetch_all(
                    [urls[i] for i in idx], [snippets[i] if snippets else None for i in idx]
                )

        return asyncio.run(run())

    return _run_batch(urls, fetch, lambda p: p.transient)
