"""Throughput of response analysis, against the encoder it needs and against the bare flow.

From one run, on the same ~2,900 TruthfulQA answers (with question, expected answer and
derived claims), repeated ``--repeats`` times, medians printed:
  1. direct: ResponseAnalyzer over the records as the flow's tasks call it (per wave of batches
     one encoder call of their distinct texts, then each batch), counting every text it sends to
     the encoder;
  2. encoder: the raw local model (``modules.encoder``) encoding exactly those texts, same batch size; and
     *inputs*: encoding the distinct texts the analysis reads (responses, expected answers,
     claims, queries, ground-truth chunks), what any embedding-based analyzer must pay;
  3. flow: the ``analyze-responses`` Prefect flow on the same file, with the settings
     ``sleuth analyze`` uses, after one warm-up run so the temporary Prefect server is up.
     Both 1 and 3 read the input, prepare ground truth (disk cache) and analyse; the flow
     also builds and writes its three tables.
Ratios: direct / encoder, direct / inputs (target <= 1.3: the claim verdicts' extra windows and
word vectors included), flow / direct (target <= 1.15) and flow / inputs (issue 15: 0.9-1.2).

    .venv/bin/python -m evals.bench_analyze [--repeats 3] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from evals.accuracy_eval import DEFAULT_CSV, load
from modules.embeddings import LocalEmbedder, _load_model
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
    args = parser.parse_args()

    records, _, pages = load(DEFAULT_CSV)
    records = records[: args.limit] if args.limit else records
    tmp = Path(tempfile.mkdtemp(prefix="sleuth-bench-"))
    input_path, pages_path = tmp / "responses.jsonl", tmp / "pages.jsonl"
    input_path.write_text("".join(r.model_dump_json() + "\n" for r in records))
    pages_path.write_text("".join(p.model_dump_json() + "\n" for p in pages))
    overrides = {"batch.concurrency": args.concurrency, "batch.batch_size": args.batch_size}
    config = AnalyzerConfig.load(None, {k: v for k, v in overrides.items() if v})
    encode = _load_model(LocalEmbedder().path)  # the model LocalEmbedder runs, without its lock
    encode(["warm up"] * 64, batch_size=64)

    from flows.analyze import analyze_responses
    from flows.runtime import local_run_settings, task_runner_for
    from modules.response import load_pages
    from modules.response.records import load_records

    flow = analyze_responses.with_options(task_runner=task_runner_for("thread", config.batch.concurrency))
    settings = local_run_settings()  # exactly as `sleuth analyze` runs the flow
    settings.__enter__()
    flow(str(input_path), str(pages_path), run_id="warmup", data_dir=str(tmp / "runs"), config=config)

    from modules.response.analyzer import claims_for

    inputs = list(
        dict.fromkeys(
            [
                t
                for r in records
                for t in (r.response, r.expected_answer, r.query, *(c.text for c in claims_for(r)))
                if t
            ]
            + [
                c.text
                for gt in ResponseAnalyzer(config)
                .prepare_ground_truth(pages, {r.domain for r in records})
                .values()
                for c in gt.chunks
            ]
        )
    )
    direct, encoder, flowed, encoded_inputs = [], [], [], []
    n_texts = 0
    for i in range(args.repeats):
        counting = CountingEmbedder()
        t = time.perf_counter()
        recs, errors, coerced = load_records(input_path)
        analyzer = ResponseAnalyzer(config, embedder=counting)
        gts = analyzer.prepare_ground_truth(load_pages(pages_path), {r.domain for r in recs})
        size = config.batch.batch_size
        rows = []
        for wave in waves(recs, size, config.batch.concurrency):  # as the flow batches them
            encoded = analyzer.encode_ahead([r for batch in wave for r in batch], gts)
            rows += [
                row
                for batch in wave
                for row in analyze_to_rows(analyzer, batch, gts, coerced, encoded=encoded)
            ]
        direct.append(time.perf_counter() - t)
        assert len(rows) == len(records)

        texts = counting.seen  # the response texts only: ground truth came from the disk cache
        n_texts = len(texts)
        t = time.perf_counter()
        for k in range(0, len(texts), size * 4):  # 2,000 a call: as fast as the analysis' own calls
            encode(texts[k : k + size * 4], batch_size=64)
        encoder.append(time.perf_counter() - t)

        t = time.perf_counter()
        for k in range(0, len(inputs), size * 4):
            encode(inputs[k : k + size * 4], batch_size=64)
        encoded_inputs.append(time.perf_counter() - t)

        t = time.perf_counter()
        result = flow(
            str(input_path), str(pages_path), run_id=f"bench-{i}", data_dir=str(tmp / "runs"), config=config
        )
        flowed.append(time.perf_counter() - t)
        assert result.total == len(records)

    med = statistics.median
    n = len(records)
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
        f"medians of {args.repeats} runs; raw: direct {[round(x, 2) for x in direct]}, "
        f"encoder {[round(x, 2) for x in encoder]}, flow {[round(x, 2) for x in flowed]}"
    )


if __name__ == "__main__":
    main()
