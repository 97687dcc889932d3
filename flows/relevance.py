"""Batch reranking as a Prefect flow: items in coarse batches, one write of the run."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime

from prefect import flow, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from pydantic import BaseModel, Field

from flows.progress import progress
from flows.runtime import FLOW_TIMEOUT_S, FlowResult, artifact_key, begin_run, commit_run, retry_transient
from modules import programs as program_store
from modules.embeddings import BUNDLED
from modules.lm import LMOption, LMSettings
from modules.relevance import (
    RelevanceAnalyzer,
    Weights,
    load_items,
    output_line,
    reranking_rows,
    rerankings_frame,
    trained_models,
)
from modules.store import ParquetStore, RunKind, runs_frame
from modules.tables_io import write_jsonl


class RerankOptions(BaseModel):
    """How results are scored: weights, threshold, the LM (none: the baseline program) and the fallback."""

    weights: tuple[float, float, float, float] = Field(
        (40, 30, 20, 10), description="direct, depth, plan, unexpectedness"
    )
    threshold: int = Field(60, ge=0, le=100)
    lm: LMOption = Field(
        default_factory=LMSettings.from_env, description="the LM that scores (no model: the baseline program)"
    )
    fallback: str = Field(
        "baseline",
        description="after LM failure: baseline (score offline) or original (the seed's unscored order)",
    )
    programs: str | None = Field(
        None,
        description="compiled programs folder (default modules/compiled); the newest relevance program runs",
    )

    def analyzer(self, embedder=None) -> RelevanceAnalyzer:
        d, p, pl_, u = self.weights
        runner = self.lm.runner()  # its rerank reply cap (3,000 tokens) is the node's budget
        path = program_store.resolve("relevance", "latest", self.programs) if runner.lm is not None else None
        return RelevanceAnalyzer(
            embedder=embedder,
            weights=Weights(d, p, pl_, u, self.threshold),
            runner=runner,
            fallback=self.fallback,
            program=program_store.load("relevance", path) if path else None,
        )


@dataclass
class RerankRun(FlowResult):
    """What ``rerank-batch`` returns: the run, how many items were reranked (and fell back), the
    output file and the table's path."""

    run_id: str
    data_dir: str
    items: int
    out_path: str | None
    fallback: int
    paths: dict[str, str]


@task(
    name="rerank-batch",
    cache_policy=NO_CACHE,
    retries=1,
    retry_delay_seconds=2,
    retry_condition_fn=retry_transient,
)
def rerank_items(items: list[dict], options: RerankOptions) -> list[dict]:
    analyzer = options.analyzer()
    return [
        {"item": item, "reranking": analyzer.rerank(item["query"], item["plan"], item["results"])}
        for item in items
    ]


@flow(name="rerank-batch", timeout_seconds=FLOW_TIMEOUT_S[RunKind.RERANK_BATCH])
def rerank_batch(
    input_path: str,
    out_path: str | None = None,
    options: RerankOptions | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
    batch_size: int = 50,
) -> RerankRun:
    """Rerank every ``{id, query, plan?, results}`` line; write output lines and the ``rerankings`` table."""
    started = datetime.now(UTC)
    options = options or RerankOptions()
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    if out_path:
        _check_writable_folder(out_path)
    items = load_items(input_path)
    batches = [items[i : i + batch_size] for i in range(0, len(items), batch_size)]
    futures = rerank_items.map(batches, unmapped(options))
    key = artifact_key(RunKind.RERANK_BATCH, "progress", run_id)
    with progress("rerank-batch", len(items), unit="items", key=key, description=f"run {run_id}") as shown:
        sizes = {id(f): len(b) for f, b in zip(futures, batches)}
        for future in as_completed(futures):
            shown.advance(sizes[id(future)])
    done = [x for f in futures for x in f.result()]
    lines = [output_line(d["item"]["id"], d["reranking"]) for d in done]
    if out_path:
        write_jsonl(out_path, lines)
    table = [row for d in done for row in reranking_rows(d["item"]["id"], d["item"]["query"], d["reranking"])]
    n_fallback = sum(d["reranking"].fallback for d in done)
    runs = runs_frame(
        RunKind.RERANK_BATCH,
        started,
        input_path=input_path,
        total=len(items),
        succeeded=len(items) - n_fallback,
        failed=0,
        flagged=0,
        fallback=n_fallback,
        config_json=json.dumps({**json.loads(options.model_dump_json()), **trained_models(BUNDLED)}),
    )
    paths = commit_run(
        RunKind.RERANK_BATCH, store, run_id, {"rerankings": rerankings_frame(table), "runs": runs}
    )
    return RerankRun(
        run_id=run_id,
        data_dir=store.root,
        items=len(items),
        out_path=out_path,
        fallback=n_fallback,
        paths=paths,
    )


def _check_writable_folder(path: str) -> None:
    """--out must be writable before the work starts, not found unwritable after it."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write --out {path}: {exc.strerror or exc}") from None
