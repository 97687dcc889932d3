"""Throughput of response analysis, against the encoder it needs and against the bare flow.

On the same ~2,900 TruthfulQA answers (question, expected answer, derived claims), ``--repeats``
times, medians printed:

  1. direct: ResponseAnalyzer as the flow's tasks call it (per wave of batches one encoder call
     of their distinct texts, then each batch), counting every text it sends to the encoder;
  2. encoder: the raw local model (``modules.encoder``) on exactly those texts, same batch size;
     and *inputs*: encoding the distinct texts the analysis reads (responses, expected answers,
     claims, queries, ground-truth chunks), what any embedding-based analyzer must pay;
  3. flow: the ``analyze-responses`` Prefect flow on the same file with ``sleuth analyze``'s
     settings, after a warm-up run; it also builds and writes its three tables.

Ratios and their targets: direct / inputs <= 1.3 (the verdicts' extra windows and word vectors
included), flow / direct <= 1.15, flow / inputs 0.9-1.2. Marginal ratios take out what a run
pays whatever its size (flow and task runs, input read, table writes): each repeat also runs
1, 3 and the inputs' encoding on the first ``--small`` answers (100: ~1 s, and one full wave)
with their own questions' pages only (with every page its inputs would count ~380 chunks its
analysis never encodes), and reports (X(all) - X(small)) / (inputs(all) - inputs(small)).

    .venv/bin/python -m evals.bench_analyze [--repeats 3] [--limit N] [--small 100]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from evals.accuracy_eval import DEFAULT_CSV, load
from modules.embeddings import LocalEmbedder, load_model
from modules.response import AnalyzerConfig, ResponseAnalyzer
from modules.response.batch import analyze_to_rows, waves


class CountingEmbedder(LocalEmbedder):
    """The local embedder, recording the texts it was asked to encode."""

    def __init__(self):
        super().__init__()
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N responses")
    parser.add_argument(
        "--concurrency", type=int, default=None, help="flow batch tasks in parallel (default: config's)"
    )
    parser.add_argument("--batch-size", type=int, default=None, help="responses per task (default: config's)")
    parser.add_argument(
        "--small", type=int, default=100, help="answers of the small run the marginal ratios subtract"
    )
    args = parser.parse_args()

    records, _, pages = load(DEFAULT_CSV)
    records = records[: args.limit] if args.limit else records
    if not 0 < args.small < len(records):
        parser.error(f"--small must be between 1 and the number of responses ({len(records)}) - 1")
    tmp = Path(tempfile.mkdtemp(prefix="sleuth-bench-"))
    input_path, pages_path = tmp / "responses.jsonl", tmp / "pages.jsonl"
    small_path = tmp / "responses-small.jsonl"
    input_path.write_text("".join(r.model_dump_json() + "\n" for r in records))
    small_path.write_text("".join(r.model_dump_json() + "\n" for r in records[: args.small]))
    pages_path.write_text("".join(p.model_dump_json() + "\n" for p in pages))
    asked = {r.query_id.removeprefix("q") for r in records[: args.small]}  # load(): page /q/N for qN
    small_pages = [p for p in pages if p.url.rsplit("/", 1)[-1] in asked]
    small_pages_path = tmp / "pages-small.jsonl"
    small_pages_path.write_text("".join(p.model_dump_json() + "\n" for p in small_pages))
    overrides = {"batch.concurrency": args.concurrency, "batch.batch_size": args.batch_size}
    config = AnalyzerConfig.load(None, {k: v for k, v in overrides.items() if v})
    encode = load_model(LocalEmbedder().path)  # the model LocalEmbedder runs, without its lock
    encode(["warm up"] * 64, batch_size=64)

    from flows.analyze import analyze_responses
    from flows.runtime import local_run_settings, task_runner_for
    from modules.response import load_pages
    from modules.response.records import load_records

    flow = analyze_responses.with_options(task_runner=task_runner_for("thread", config.batch.concurrency))
    settings = local_run_settings()  # exactly as `sleuth analyze` runs the flow
    settings.__enter__()
    flow(str(input_path), str(pages_path), run_id="warmup", data_dir=str(tmp / "runs"), config=config)

    from modules.response.scoring import claims_for

    def distinct_inputs(recs, pages) -> list[str]:
        return list(
            dict.fromkeys(
                [
                    t
                    for r in recs
                    for t in (r.response, r.expected_answer, r.query, *(c.text for c in claims_for(r)))
                    if t
                ]
                + [
                    c.text
                    for gt in ResponseAnalyzer(config)
                    .prepare_ground_truth(pages, {r.domain for r in recs})
                    .values()
                    for c in gt.chunks
                ]
            )
        )

    # (this also puts the small run's ground-truth vectors in the disk cache, as the whole run's)
    inputs, small_inputs = (
        distinct_inputs(records, pages),
        distinct_inputs(records[: args.small], small_pages),
    )
    size = config.batch.batch_size

    def run_direct(path: Path, pages_path: Path, embedder) -> float:
        t = time.perf_counter()
        recs, errors, coerced = load_records(path)
        analyzer = ResponseAnalyzer(config, embedder=embedder)
        gts = analyzer.prepare_ground_truth(load_pages(pages_path), {r.domain for r in recs})
        rows = []
        for wave in waves(recs, size, config.batch.concurrency):  # as the flow batches them
            encoded = analyzer.encode_ahead([r for batch in wave for r in batch], gts)
            rows += [
                row
                for batch in wave
                for row in analyze_to_rows(analyzer, batch, gts, coerced, encoded=encoded)
            ]
        elapsed = time.perf_counter() - t
        assert len(rows) == len(recs)
        return elapsed

    def run_encoder(texts: list[str]) -> float:
        t = time.perf_counter()
        for k in range(0, len(texts), size * 4):  # 2,000 a call: as fast as the analysis' own calls
            encode(texts[k : k + size * 4], batch_size=64)
        return time.perf_counter() - t

    def run_flow(path: Path, pages_path: Path, run_id: str, n: int) -> float:
        t = time.perf_counter()
        result = flow(str(path), str(pages_path), run_id=run_id, data_dir=str(tmp / "runs"), config=config)
        elapsed = time.perf_counter() - t
        assert result.total == n
        return elapsed

    direct, encoder, flowed, encoded_inputs = [], [], [], []
    direct_small, flowed_small, encoded_small = [], [], []
    n_small = len(records[: args.small])
    n_texts = 0
    for i in range(args.repeats):
        counting = CountingEmbedder()
        direct.append(run_direct(input_path, pages_path, counting))
        texts = counting.seen  # the response texts only: ground truth came from the disk cache
        n_texts = len(texts)
        encoder.append(run_encoder(texts))
        encoded_inputs.append(run_encoder(inputs))
        flowed.append(run_flow(input_path, pages_path, f"bench-{i}", len(records)))
        # the small run, for the marginal ratios
        direct_small.append(run_direct(small_path, small_pages_path, LocalEmbedder()))
        encoded_small.append(run_encoder(small_inputs))
        flowed_small.append(run_flow(small_path, small_pages_path, f"bench-small-{i}", n_small))

    med = statistics.median
    n = len(records)

    def marginal(whole: list[float], small: list[float]) -> float:
        """Median over repeats of (X(all) - X(small)) / (inputs' encoding(all) - (small)), each
        repeat's differences taken within the repeat (same machine state)."""
        return med(
            (w - s) / (e - es)
            for w, s, e, es in zip(whole, small, encoded_inputs, encoded_small, strict=True)
        )

    report = {
        "responses": n,
        "encoded_texts": n_texts,
        "repeats": args.repeats,
        "direct_s": round(med(direct), 2),
        "encoder_s": round(med(encoder), 2),
        "flow_s": round(med(flowed), 2),
        "responses_per_s_flow": round(n / med(flowed), 1),
        "responses_per_s_direct": round(n / med(direct), 1),
        "encoder_texts_per_s": round(n_texts / med(encoder), 1),
        "analysis_over_encoding": round(med(direct) / med(encoder), 3),
        "distinct_inputs": len(inputs),
        "inputs_encoding_s": round(med(encoded_inputs), 2),
        "analysis_over_input_encoding": round(med(direct) / med(encoded_inputs), 3),
        "flow_over_direct": round(med(flowed) / med(direct), 3),
        "flow_over_input_encoding": round(med(flowed) / med(encoded_inputs), 3),
        "small_responses": n_small,
        "small_distinct_inputs": len(small_inputs),
        "small_direct_s": round(med(direct_small), 2),
        "small_flow_s": round(med(flowed_small), 2),
        "small_inputs_encoding_s": round(med(encoded_small), 2),
        "analysis_marginal_over_input_encoding": round(marginal(direct, direct_small), 3),
        "flow_marginal_over_input_encoding": round(marginal(flowed, flowed_small), 3),
    }
    print(json.dumps(report, indent=2))
    print(f"\n{n} responses need {n_texts} encodes ({n_texts / n:.2f} per response).")
    print(
        f"sleuth analyze (flow): {report['responses_per_s_flow']} responses/s; "
        f"encoder alone: {report['encoder_texts_per_s']} texts/s."
    )
    print(f"analysis / encoding it needs = {report['analysis_over_encoding']}x")
    print(
        f"analysis / encoding its {len(inputs)} distinct input texts = {report['analysis_over_input_encoding']}x (target <= 1.3)"
    )
    print(f"flow / direct call           = {report['flow_over_direct']}x (target <= 1.15)")
    print(
        f"flow / encoding its {len(inputs)} distinct input texts = {report['flow_over_input_encoding']}x"
        " (issue 15: 0.9-1.2)"
    )
    print(
        f"marginal over the first {n_small} answers ({len(inputs) - len(small_inputs)} more distinct inputs):"
        f" analysis {report['analysis_marginal_over_input_encoding']}x (target <= 1.3),"
        f" flow {report['flow_marginal_over_input_encoding']}x (issue 15: 0.9-1.2)"
    )
    print(
        f"medians of {args.repeats} runs; raw: direct {[round(x, 2) for x in direct]}, "
        f"encoder {[round(x, 2) for x in encoder]}, flow {[round(x, 2) for x in flowed]}, "
        f"inputs' encoding {[round(x, 2) for x in encoded_inputs]}; small: direct {[round(x, 2) for x in direct_small]}, "
        f"inputs' encoding {[round(x, 2) for x in encoded_small]}, flow {[round(x, 2) for x in flowed_small]}"
    )


if __name__ == "__main__":
    main()
