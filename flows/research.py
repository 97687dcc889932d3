"""Research runs as Prefect flows: one retryable task per research thread, then one write.

A thread is sequential (each step depends on the last), so it is the unit of work and of
retry; a batch maps threads over the task runner. Under a Prefect server, ``review=True``
pauses the flow for a reviewer's feedback (``pause_flow_run(wait_for_input=...)``) and
re-opens the thread with it, as the CLI does at a terminal.

Why pause and not suspend: a suspended run leaves its process, and on resume Prefect runs the
flow again from the top, which would redo the research; and when nobody answers, no process is
left to record that. A paused run keeps its (sleeping) process, so an unanswered review ends on
time as a Completed run with an ``unreviewed`` verdict in ``feedback``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from prefect import flow, get_run_logger, task, unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.futures import as_completed
from prefect.input import RunInput
from pydantic import ConfigDict, Field, ValidationError, model_validator

from flows.progress import progress, spoken_duration
from flows.runtime import (
    FLOW_TIMEOUT_S,
    TRANSIENT_ERRORS,
    FlowResult,
    artifact_key,
    begin_run,
    commit_run,
    retry_transient,
)
from modules.research import (
    RESEARCH_TABLES,
    Memory,
    ResearchOptions,
    ThreadSeed,
    build_researcher,
    constraints_for,
    fact_row,
    failed_report_row,
    load_questions,
    report_markdown,
    research_frame,
    seeds_from_run,
    shipped_ranker,
    thread_rows,
)
from modules.store import ParquetStore, RunKind, new_run_id, runs_frame, validate_run_id

#: Seconds the server keeps a paused run resumable after the review deadline, so the flow's
#: own "no verdict" resume always lands before Prefect would fail the run.
PAUSE_GRACE_S = 120


@dataclass
class ResearchRun(FlowResult):
    """What a research run returns: the run, its parent (a re-opened run's), its tables' paths and
    one report row per question; ``review`` is the reviewer's verdict when the flow waited for one."""

    run_id: str
    data_dir: str
    parent_run_id: str | None
    paths: dict[str, str]
    reports: list[dict]
    review: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        if out["review"] is None:  # only a reviewed run says how its review ended
            del out["review"]
        return out


@dataclass
class FeedbackRecorded(FlowResult):
    """An accepted (or unreviewed) report: the reviewed run and the ``feedback`` part file written."""

    run_id: str
    data_dir: str
    verdict: str
    paths: dict[str, str]
    reports: list[dict]


class Feedback(RunInput):
    """A reviewer's verdict on a report: accept it, reject it (saying why) or add information.

    Under a Prefect server this is the form of the paused run (Resume in the UI); its answer
    does exactly what ``sleuth feedback`` does: accept records the verdict, reject and add
    re-open the thread as a child run that treats the text as a constraint. The form's JSON
    schema carries the rule "reject and add need a text", so the server refuses such an answer
    and the run stays paused.
    """

    model_config = ConfigDict(
        json_schema_extra={
            "if": {"properties": {"verdict": {"enum": ["reject", "add"]}}, "required": ["verdict"]},
            "then": {
                "properties": {"text": {"type": "string", "minLength": 1, "pattern": "\\S"}},
                "required": ["text"],
            },
        }
    )

    verdict: Literal["accept", "reject", "add"] = Field(
        "accept",
        title="Verdict",
        description="accept the report; reject it (say what is wrong); or add information or a constraint",
    )
    text: str = Field(
        "",
        title="Reason or information",
        description="for reject: what is wrong; for add: what to take into account (required for both)",
    )

    @model_validator(mode="after")
    def _text_when_needed(self) -> Feedback:
        if self.verdict != "accept" and not self.text.strip():
            raise ValueError(
                f"say why for '{self.verdict}': the text becomes the re-opened thread's constraint"
            )
        return self


@task(
    name="research-thread",
    cache_policy=NO_CACHE,
    retries=1,
    retry_delay_seconds=2,
    retry_condition_fn=retry_transient,
)
def research_thread(
    seed: ThreadSeed, options: ResearchOptions, run_id: str, parent_run_id: str | None
) -> dict[str, list[dict]]:
    """Research one question to a report; a failure other than a transient one becomes an error row."""
    started_at, t = datetime.now(UTC), time.perf_counter()
    thread_id = seed.thread_id or f"{run_id}:{seed.question_id}"
    try:
        researcher = build_researcher(options)
        memory = Memory(researcher.embedder, seed.facts)
        result = researcher.run(
            seed.question, memory=memory, constraints=seed.constraints, searched=seed.searched
        )
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded in the reports table, never lost
        get_run_logger().exception("thread %s failed", seed.question_id)
        row = failed_report_row(
            seed.question_id,
            seed.question,
            f"{type(exc).__name__}: {exc}",
            thread_id=thread_id,
            parent_run_id=parent_run_id,
            lm=options.lm.model,
            started_at=started_at,
            duration_s=time.perf_counter() - t,
        )
        row["constraints"] = list(seed.constraints)
        # the thread's memory carries over unchanged, so a later re-open still has it
        return {
            "reports": [row],
            "steps": [],
            "sources": [],
            "memory": [fact_row(seed.question_id, f, thread_id) for f in seed.facts],
        }
    for line in result.log:
        get_run_logger().warning("%s: %s", seed.question_id, line)
    return thread_rows(
        seed.question_id,
        result,
        thread_id=thread_id,
        parent_run_id=parent_run_id,
        lm=options.lm.model,
        programs=researcher.program_versions,
        started_at=started_at,
        duration_s=time.perf_counter() - t,
    )


def _research(
    seeds: list[ThreadSeed],
    options: ResearchOptions,
    run_id: str,
    store: ParquetStore | str | None,
    parent_run_id: str | None,
    input_label: str,
    flow_name: RunKind,
) -> ResearchRun:
    started_at = datetime.now(UTC)
    store = ParquetStore.of(store)
    run_id = begin_run(run_id, store)
    ids = [s.question_id for s in seeds]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids must be unique within a run")
    futures = research_thread.map(seeds, unmapped(options), unmapped(run_id), unmapped(parent_run_id))
    key = artifact_key(flow_name, "progress", run_id)
    with progress(flow_name, len(seeds), unit="questions", key=key, description=f"run {run_id}") as shown:
        for _ in as_completed(futures):
            shown.advance()
    rows: dict[str, list[dict]] = {t: [] for t in RESEARCH_TABLES}
    for future in futures:
        for table, part in future.result().items():
            rows[table].extend(part)
    reports = rows["reports"]
    runs = runs_frame(
        flow_name,
        started_at,
        input_path=input_label,
        total=len(reports),
        succeeded=sum(r["status"] != "error" for r in reports),
        failed=sum(r["status"] == "error" for r in reports),
        flagged=sum(r["status"] != "answered" for r in reports),
        fallback=sum(bool(s["fallback"]) for s in rows["steps"]),
        config_json=json.dumps(
            {
                **options.model_dump(mode="json"),
                "answer_ranker": shipped_ranker().version,
                "lm_calls": {
                    "answered": sum(r["lm_answered"] for r in reports),
                    "fell_back": sum(r["lm_fallbacks"] for r in reports),
                },
            }
        ),
    )
    paths = commit_run(
        flow_name, store, run_id, {**{t: research_frame(t, rows[t]) for t in RESEARCH_TABLES}, "runs": runs}
    )
    for report in reports:
        create_markdown_artifact(
            key=artifact_key(flow_name, f"answer-{report['question_id']}", run_id),
            markdown=report_markdown(report),
            description=f"run {run_id}: {report['question'][:200]}",
        )
    create_table_artifact(
        key=artifact_key(flow_name, "steps", run_id),
        table=[{k: v for k, v in s.items() if k != "reasoning"} for s in rows["steps"]],
        description=f"steps of run {run_id}",
    )
    create_table_artifact(
        key=artifact_key(flow_name, "sources", run_id),
        table=rows["sources"],
        description=f"sources of run {run_id}",
    )
    return ResearchRun(
        run_id=run_id,
        data_dir=store.root,
        parent_run_id=parent_run_id,
        paths=paths,
        reports=[
            {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in reports
        ],
    )


def review_markdown(result: ResearchRun, timeout_s: float, error: str | None = None) -> str:
    """What the reviewer reads above the form: the report(s) of the run awaiting a verdict."""
    reports = "\n\n---\n\n".join(report_markdown(r) for r in result.reports)
    problem = f"**Your last answer was not taken: {error}**\n\n" if error else ""
    return (
        f"## Review run {result.run_id}\n\n{problem}Accept the report, reject it saying what is wrong, or add "
        f"information; reject and add re-open the research as a child run. If nobody answers within "
        f"{spoken_duration(timeout_s)}, the run ends as `unreviewed`.\n\n{reports}"
    )


class _ReviewDeadline:
    """At the deadline, resume the paused run with no input, as "nobody answered".

    Prefect fails a run whose pause times out, and records nothing; resuming it ourselves just
    before lets the flow record ``unreviewed`` and complete. ``expired`` is set only when this
    resume is the one the server accepted, so a reviewer's answer that lands first wins.
    """

    def __init__(self, flow_run_id, seconds: float):
        self.flow_run_id, self.expired, self.cancelled = flow_run_id, False, False
        self.lock = threading.Lock()
        self.timer = threading.Timer(max(seconds, 0.0), self._expire)
        self.timer.daemon = True

    def _expire(self) -> None:
        from prefect.client.orchestration import get_client
        from prefect.client.schemas.responses import SetStateStatus

        with self.lock:
            if self.cancelled:
                return
            try:
                with get_client(sync_client=True) as client:
                    outcome = client.resume_flow_run(self.flow_run_id, run_input={})
                self.expired = outcome.status == SetStateStatus.ACCEPT
            except Exception:  # noqa: BLE001 - the pause's own timeout still ends the wait
                get_run_logger().exception("could not end the review wait of %s", self.flow_run_id)

    def __enter__(self) -> _ReviewDeadline:
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        with self.lock:  # a resume in flight finishes before ``expired`` is read; none starts after
            self.cancelled = True
            self.timer.cancel()


def await_review(result: ResearchRun, timeout_s: float) -> Feedback | None:
    """Pause until a reviewer answers; None when nobody did within ``timeout_s``.

    An answer that gets past the form but not ``Feedback``'s validation pauses the run again
    with the error above the form (the deadline stays where it was)."""
    from prefect.context import FlowRunContext

    flow_run_id = FlowRunContext.get().flow_run.id
    deadline, error = time.monotonic() + timeout_s, None
    while (left := deadline - time.monotonic()) > 0:
        form = Feedback.with_initial_data(
            description=review_markdown(result, timeout_s, error), verdict="accept"
        )
        with _ReviewDeadline(flow_run_id, left) as watch:
            try:
                feedback = pause_flow_run(wait_for_input=form, timeout=int(left) + PAUSE_GRACE_S)
            except ValidationError as exc:
                error = "; ".join(e["msg"] for e in exc.errors())
                get_run_logger().warning("review answer refused (%s); pausing again", error)
                continue
            except FlowPauseTimeout:
                return None
        return None if watch.expired else feedback
    return None


@flow(name="research", timeout_seconds=FLOW_TIMEOUT_S[RunKind.RESEARCH])
def research(
    question: str,
    options: ResearchOptions | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
    question_id: str = "q1",
    review: bool = False,
    review_timeout_s: int = 3600,
) -> ResearchRun:
    """Research one question; with ``review`` (under a server), wait up to ``review_timeout_s``
    for a reviewer's feedback on each report, then record ``unreviewed`` and complete. A wait
    never runs past the flow's own timeout (less an hour), so that too ends as ``unreviewed``."""
    if review and review_timeout_s <= 0:
        raise ValueError("review_timeout_s must be a positive number of seconds")
    last_verdict_at = time.monotonic() + FLOW_TIMEOUT_S[RunKind.RESEARCH] - 3600
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    result = _research(
        [ThreadSeed(question_id=question_id, question=question)],
        options,
        run_id,
        data_dir,
        None,
        "-",
        RunKind.RESEARCH,
    )
    while review:
        wait_s = max(0.0, min(review_timeout_s, last_verdict_at - time.monotonic()))
        feedback = await_review(result, wait_s)
        if feedback is None:
            get_run_logger().warning(
                "no verdict on run %s within %.0f s: recorded as unreviewed", result.run_id, wait_s
            )
            record_feedback(result.run_id, "unreviewed", f"no verdict within {wait_s:.0f} s", data_dir)
            result.review = "unreviewed"
            break
        if feedback.verdict == "accept":
            record_feedback(result.run_id, "accept", "", data_dir)
            result.review = "accept"
            break
        result = reopen(result.run_id, feedback.verdict, feedback.text, options=options, data_dir=data_dir)
    return result


@flow(name="research-batch", timeout_seconds=FLOW_TIMEOUT_S[RunKind.RESEARCH_BATCH])
def research_batch(
    questions: list[dict] | str,
    options: ResearchOptions | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
    input_label: str = "-",
) -> ResearchRun:
    """Research each ``{id, question}`` (a list, or a JSONL file's path) as its own thread; one run,
    one row per question in ``reports``."""
    if isinstance(questions, str):
        questions, input_label = load_questions(questions), questions
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    seeds = [ThreadSeed(question_id=str(q["id"]), question=q["question"]) for q in questions]
    return _research(seeds, options, run_id, data_dir, None, input_label, RunKind.RESEARCH_BATCH)


def reopen(
    parent_run_id: str,
    verdict: str,
    text: str,
    *,
    options: ResearchOptions | None = None,
    question_ids: list[str] | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
) -> ResearchRun:
    """Re-open a run's threads as a child run that reuses their memory, with the feedback as constraints."""
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    store = ParquetStore(data_dir)
    seeds = seeds_from_run(store, parent_run_id, question_ids)
    for seed in seeds:
        seed.constraints = constraints_for(seed.constraints, verdict, text, seed.answer, seed.short_answer)
    result = _research(
        seeds, options, run_id, store, parent_run_id, f"run_id={parent_run_id}", RunKind.FEEDBACK
    )
    _write_feedback(store, parent_run_id, seeds, verdict, text, run_id)
    return result


@flow(name="research-feedback", timeout_seconds=FLOW_TIMEOUT_S[RunKind.FEEDBACK])
def research_feedback(
    parent_run_id: str,
    verdict: Literal["accept", "reject", "add"],
    text: str = "",
    options: ResearchOptions | None = None,
    question_ids: list[str] | None = None,
    run_id: str | None = None,
    data_dir: str | None = None,
) -> FeedbackRecorded | ResearchRun:
    """``accept`` records the verdict; ``reject`` and ``add`` re-open the thread as a child run."""
    if verdict == "accept":
        return record_feedback(parent_run_id, "accept", text, data_dir, question_ids)
    if not text.strip():
        raise ValueError(f"--{verdict} needs a text: what is wrong, or what to add")
    return reopen(
        parent_run_id,
        verdict,
        text,
        options=options,
        question_ids=question_ids,
        run_id=run_id,
        data_dir=data_dir,
    )


def record_feedback(
    run_id: str, verdict: str, text: str, data_dir: str | None, question_ids: list[str] | None = None
) -> FeedbackRecorded:
    """An accepted report: one feedback row per thread under the reviewed run."""
    store = ParquetStore(data_dir)
    path = _write_feedback(store, run_id, seeds_from_run(store, run_id, question_ids), verdict, text, None)
    return FeedbackRecorded(
        run_id=run_id, data_dir=store.root, verdict=verdict, paths={"feedback": path}, reports=[]
    )


def _write_feedback(
    store: ParquetStore,
    reviewed_run_id: str,
    seeds: list[ThreadSeed],
    verdict: str,
    text: str,
    child_run_id: str | None,
) -> str:
    """Feedback is stored under the run it is about (an added part file; the run's other tables stay as written)."""
    now = datetime.now(UTC)
    rows = [
        {
            "question_id": s.question_id,
            "thread_id": s.thread_id,
            "verdict": verdict,
            "text": text,
            "child_run_id": child_run_id,
            "created_at": now,
        }
        for s in seeds
    ]
    return store.write("feedback", reviewed_run_id, research_frame("feedback", rows))
