"""Prompt optimization and evaluation runs as Prefect flows.

``optimize-node``: evaluate the current program on dev, compile against train, evaluate again,
save the compiled program under ``modules/compiled/<node>/`` (or only when it beats the current
one, with ``promote_if_better``), and write an ``evaluations`` table (one row per example per
program) under the run id. ``evaluate-node``: the metrics of the baseline program and a DSPy
program side by side.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from flows.progress import progress
from flows.runtime import FLOW_TIMEOUT_S, FlowResult, artifact_key, begin_run, commit_run, retry_transient
from modules import programs as program_store
from modules.evaluation import (
    BaselineRunner,
    ProgramRunner,
    breakdown,
    compile_program,
    demo_context,
    evaluate,
    evaluations_frame,
    file_hash,
    fitted_program,
    load_examples,
    node_lm,
    set_path,
)
from modules.lm import LMOption, LMSettings, demo_chars
from modules.store import ParquetStore, RunKind, runs_frame


@dataclass
class OptimizeRun(FlowResult):
    """What ``optimize-node`` returns: the dev scores (baseline, the program before and after),
    whether the compiled program was saved and where, and the ``evaluations`` table's path."""

    run_id: str
    node: str
    optimizer: str
    baseline_dev_score: float
    dev_score_before: float | None
    dev_score_after: float | None
    promoted: bool
    program: str | None
    paths: dict[str, str]


@dataclass
class EvaluationRun(FlowResult):
    """What ``evaluate-node`` returns: mean score and metric breakdown per program."""

    run_id: str
    node: str
    split: str
    examples: int
    scores: dict[str, float]
    metrics: dict[str, dict[str, float]]
    paths: dict[str, str]


def _teacher(model: str, base_url: str | None):
    """The teacher proposes demos and instructions: a roomier reply cap than any node's."""
    settings = LMSettings.from_env(model, base_url)
    settings.max_tokens = 3000
    return settings.build()


@dataclass(frozen=True)
class ProgramRef:
    """A DSPy program to evaluate: its label in the ``evaluations`` table, its version, and its
    file (None: the uncompiled signature)."""

    label: str
    version: str
    path: str | None = None


@task(name="evaluate-program", cache_policy=NO_CACHE)
def evaluate_task(
    node: str,
    examples,
    split: str,
    program: ProgramRef | None = None,
    settings: LMSettings | None = None,
    examples_path: str | None = None,
    limit: int | None = None,
) -> tuple[float, list[dict]]:
    """The baseline program (no ``program``) or a DSPy program with ``settings``' LM on
    ``examples``, fitted to the window without demos; a program with demos reads them again from
    ``examples_path`` (``limit`` of them), fitted beside its demos as a run fits them."""
    if program is None:
        runner = BaselineRunner(node)
        label, version = "baseline", None
    else:
        lm = node_lm(node, settings)
        loaded = program_store.load(node, program.path) if program.path else program_store.new_program(node)
        loaded = fitted_program(node, loaded, settings.context_tokens)
        if examples_path and demo_chars(loaded):
            examples = load_examples(
                node, examples_path, context_tokens=settings.context_tokens, program=loaded, limit=limit
            )
        runner = ProgramRunner(node, loaded, lm)
        label, version = program.label, program.version
    mean, rows = evaluate(node, runner, examples)
    return mean, [
        {"node": node, "program": label, "program_version": version, "split": split, **r} for r in rows
    ]


@task(
    name="compile-program",
    cache_policy=NO_CACHE,
    retries=1,
    retry_delay_seconds=5,
    retry_condition_fn=retry_transient,
)
def compile_task(
    node: str, optimizer: str, trainset, devset, settings: LMSettings, teacher_model: str | None, seed: int
):
    teacher = _teacher(teacher_model, settings.base_url) if teacher_model else None
    return compile_program(
        node, optimizer, trainset, lm=node_lm(node, settings), teacher_lm=teacher, devset=devset, seed=seed
    )


def _commit(
    flow_name: RunKind,
    store: ParquetStore,
    run_id: str,
    rows: list[dict],
    *,
    started: datetime,
    input_path: str,
    examples: int,
    config: dict,
) -> dict[str, str]:
    """Commit an optimize or evaluate run: its ``evaluations`` rows and a ``runs`` row in which
    every example of the set counts as scored."""
    runs = runs_frame(
        flow_name,
        started,
        input_path=input_path,
        total=examples,
        succeeded=examples,
        failed=0,
        flagged=0,
        fallback=0,
        config_json=json.dumps(config, default=str),
    )
    return commit_run(flow_name, store, run_id, {"evaluations": evaluations_frame(rows), "runs": runs})


def require_lm(optimizer: str, promote_if_better: bool, model: str | None) -> None:
    """Fail before any work when the run cannot succeed without an LM (a scheduled deployment on a
    worker without ``SLEUTH_LM`` would otherwise spend minutes on the baseline first)."""
    if model:
        return
    if optimizer != "labeled":
        raise ValueError(
            f"the {optimizer} optimizer runs the program: give an LM (--lm, or SLEUTH_LM on the worker)"
        )
    if promote_if_better:
        raise ValueError(
            "promote_if_better compares the programs' dev scores, which needs an LM (--lm, or SLEUTH_LM on the worker)"
        )


@flow(name="optimize-node", timeout_seconds=FLOW_TIMEOUT_S[RunKind.OPTIMIZE])
def optimize_node(
    node: str,
    optimizer: str = "labeled",
    lm: LMOption | None = None,
    teacher_lm: str | None = None,
    trainset: str | None = None,
    devset: str | None = None,
    programs_dir: str | None = None,
    data_dir: str | None = None,
    run_id: str | None = None,
    promote_if_better: bool = False,
    seed: int = 0,
    train_limit: int | None = None,
    dev_limit: int | None = None,
) -> OptimizeRun:
    """``lm``: the model a run uses (default from ``$SLEUTH_LM``...); the examples' inputs are
    fitted to its context window as a run fits them, the train examples (the demos to be) to a
    share of it that leaves the demos and a live input room together. ``train_limit`` /
    ``dev_limit``: that many examples, spread evenly over each set (a small local model takes
    ~30-60 s a call)."""
    logger = get_run_logger()
    started = datetime.now(UTC)
    settings = lm or LMSettings.from_env()
    model, lm_context = settings.model, settings.context_tokens
    require_lm(optimizer, promote_if_better, model)
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    train_path, dev_path = trainset or str(set_path(node, "train")), devset or str(set_path(node, "dev"))
    train = load_examples(node, train_path, context_tokens=demo_context(node, lm_context), limit=train_limit)
    dev = load_examples(node, dev_path, context_tokens=lm_context, limit=dev_limit)
    current_path = program_store.resolve(node, "latest", programs_dir)
    current_version = current_path.stem if current_path else "uncompiled"
    rows: list[dict] = []
    steps = 2 + 2 * bool(model)  # evaluate the baseline (and the current program), compile (and evaluate it)
    key = artifact_key(RunKind.OPTIMIZE, "progress", run_id)
    current = ProgramRef("current", current_version, str(current_path) if current_path else None)
    with progress("optimize " + node, steps, unit="steps", key=key) as shown:
        baseline_score, baseline_rows = evaluate_task(node, dev, "dev")
        rows += baseline_rows
        shown.advance()
        before = after = None
        if model:
            before, before_rows = evaluate_task(node, dev, "dev", current, settings, dev_path, dev_limit)
            rows += before_rows
            shown.advance()
        compiled = compile_task(node, optimizer, train, dev, settings, teacher_lm, seed)
        shown.advance()
        saved = None
        meta = {
            "optimizer": optimizer,
            "lm": model,
            "lm_context": lm_context,
            "teacher_lm": teacher_lm,
            "trainset": train_path,
            "devset": dev_path,
            "trainset_sha256_16": file_hash(train_path),
            "devset_sha256_16": file_hash(dev_path),
            "dev_score_before": before,
            "baseline_dev_score": baseline_score,
            "previous_version": current_version,
            "run_id": run_id,
            "seed": seed,
            "train_examples": len(train),
            "dev_examples": len(dev),
        }
        if model:
            # evaluate the compiled program before deciding whether it is promoted
            with tempfile.TemporaryDirectory() as tmp:
                probe = Path(tmp) / "candidate.json"
                compiled.save(str(probe))
                candidate = ProgramRef("compiled", "candidate", str(probe))
                after, after_rows = evaluate_task(node, dev, "dev", candidate, settings, dev_path, dev_limit)
            meta["dev_score_after"] = after
            shown.advance()
    promote = program_store.promoted(after, before, only_if_better=promote_if_better)
    if promote:
        saved = program_store.save(node, compiled, meta, programs_dir)
        logger.info("saved %s", saved)
    else:
        logger.info("not promoted: dev score %s does not beat %s", after, before)
    if model:
        rows += [{**r, "program_version": saved.stem if saved else "rejected"} for r in after_rows]
    paths = _commit(
        RunKind.OPTIMIZE,
        store,
        run_id,
        rows,
        started=started,
        input_path=train_path,
        examples=len(dev),
        config=meta,
    )
    return OptimizeRun(
        run_id=run_id,
        node=node,
        optimizer=optimizer,
        baseline_dev_score=baseline_score,
        dev_score_before=before,
        dev_score_after=after,
        promoted=promote,
        program=str(saved) if saved else None,
        paths=paths,
    )


@flow(name="evaluate-node", timeout_seconds=FLOW_TIMEOUT_S[RunKind.EVALUATE])
def evaluate_node(
    node: str,
    program: str = "latest",
    lm: LMOption | None = None,
    split: str = "dev",
    examples_path: str | None = None,
    programs_dir: str | None = None,
    data_dir: str | None = None,
    run_id: str | None = None,
    limit: int | None = None,
) -> EvaluationRun:
    """The baseline program's metrics, and the DSPy program's beside them when an LM is given,
    its inputs fitted to the model's context window as a run fits them."""
    started = datetime.now(UTC)
    store = ParquetStore(data_dir)
    run_id = begin_run(run_id, store)
    path = examples_path or str(set_path(node, split))
    settings = lm or LMSettings.from_env()
    model, lm_context = settings.model, settings.context_tokens
    examples = load_examples(node, path, context_tokens=lm_context, limit=limit)
    results: dict[str, Any] = {}
    score, rows = evaluate_task(node, examples, split)
    results["baseline"] = score
    all_rows = list(rows)
    if model and program != "baseline":
        program_path = program_store.resolve(node, program, programs_dir)
        version = program_path.stem if program_path else "uncompiled"
        ref = ProgramRef("dspy", version, str(program_path) if program_path else None)
        score, rows = evaluate_task(node, examples, split, ref, settings, path, limit)
        results[f"dspy ({version})"] = score
        all_rows += rows
    config = {"lm": model, "lm_context": lm_context, "program": program}
    paths = _commit(
        RunKind.EVALUATE,
        store,
        run_id,
        all_rows,
        started=started,
        input_path=path,
        examples=len(examples),
        config=config,
    )
    return EvaluationRun(
        run_id=run_id,
        node=node,
        split=split,
        examples=len(examples),
        scores=results,
        metrics=breakdown(all_rows),
        paths=paths,
    )
