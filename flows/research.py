"""Research runs as Prefect flows: one retryable task per research thread, then one write.

A thread is sequential (each step depends on the last), so it is the unit of work and of
retry; a batch maps threads over the task runner. Under a Prefect server, ``review=True``
pauses the flow for a reviewer's feedback (``pause_flow_run(wait_for_input=...)``) and
re-opens the thread with it, as the CLI does at a terminal.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any, Literal

from prefect import flow, get_run_logger, task, unmapped
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import Field, model_validator

from flows.runtime import publish_run_report, retry_on
from modules.research.batch import load_questions
from modules.research.feedback import ThreadSeed, constraints_for, seeds_from_run
from modules.research.memory import Memory
from modules.research.session import ResearchOptions, build_researcher
from modules.research.tables import TABLES, fact_row, failed_report_row, frame, thread_rows
from modules.research.render import report_markdown
from modules.response.tables import runs_frame
from modules.store import ParquetStore, new_run_id, validate_run_id

TRANSIENT = (TimeoutError, ConnectionError)


class Feedback(RunInput):
    """A reviewer's verdict on a report: accept it, reject it (saying why) or add information.

    Under a Prefect server this is the form of the paused run (Resume in the UI); its answer
    does exactly what ``sleuth feedback`` does: accept records the verdict, reject and add
    re-open the thread as a child run that treats the text as a constraint.
    """

    verdict: Literal["accept", "reject", "add"] = Field(
        "accept", title="Verdict",
        description="accept the report; reject it (say what is wrong); or add information or a constraint")
    text: str = Field("", title="Reason or information",
                      description="for reject: what is wrong; for add: what to take into account (required for both)")

    @model_validator(mode="after")
    def _text_when_needed(self) -> "Feedback":
        if self.verdict != "accept" and not self.text.strip():
            raise ValueError(f"say why for '{self.verdict}': the text becomes the re-opened thread's constraint")
        return self


@task(name="research-thread", cache_policy=NO_CACHE, retries=1, retry_delay_seconds=2,
      retry_condition_fn=retry_on(*TRANSIENT))
def research_thread(seed: ThreadSeed, options: ResearchOptions, run_id: str, parent_run_id: str | None) -> dict[str, list[dict]]:
    """Research one question to a report; a failure other than a transient one becomes an error row."""
    started_at, t = datetime.now(timezone.utc), time.perf_counter()
    thread_id = seed.thread_id or f"{run_id}:{seed.question_id}"
    try:
        researcher = build_researcher(options)
        memory = Memory(researcher.embedder, seed.facts)
        result = researcher.run(seed.question, memory=memory, constraints=seed.constraints)
    except TRANSIENT:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded in the reports table, never lost
        get_run_logger().exception("thread %s failed", seed.question_id)
        row = failed_report_row(seed.question_id, seed.question, f"{type(exc).__name__}: {exc}", thread_id=thread_id,
                                parent_run_id=parent_run_id, lm=options.lm_settings().model, started_at=started_at,
                                duration_s=time.perf_counter() - t)
        row["constraints"] = list(seed.constraints)
        # the thread's memory carries over unchanged, so a later re-open still has it
        return {"reports": [row], "steps": [], "sources": [],
                "memory": [fact_row(seed.question_id, f, thread_id) for f in seed.facts]}
    for line in result.log:
        get_run_logger().warning("%s: %s", seed.question_id, line)
    return thread_rows(seed.question_id, result, thread_id=thread_id, parent_run_id=parent_run_id,
                       lm=options.lm_settings().model, programs=researcher.program_versions, started_at=started_at,
                       duration_s=time.perf_counter() - t)


@task(name="write-research-run", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=[1, 4],
      retry_condition_fn=retry_on(OSError))
def write_research_run(data_dir: str | None, run_id: str, rows: dict[str, list[dict]], runs) -> dict[str, str]:
    store = ParquetStore(data_dir)
    with store.run_writer(run_id) as writer:
        for table in TABLES:
            writer.write(table, frame(table, rows[table]))
        writer.write("runs", runs)
    return {t: f"{store.table_path(t)}/run_id={run_id}" for t in writer.tables}


def _research(seeds: list[ThreadSeed], options: ResearchOptions, run_id: str, data_dir: str | None,
              parent_run_id: str | None, input_label: str, flow_name: str) -> dict[str, Any]:
    started_at = datetime.now(timezone.utc)
    store = ParquetStore(data_dir)
    if store.run_exists(run_id):
        raise FileExistsError(f"run {run_id!r} already exists under {store.root}; choose another --run-id")
    ids = [s.question_id for s in seeds]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids must be unique within a run")
    futures = research_thread.map(seeds, unmapped(options), unmapped(run_id), unmapped(parent_run_id))
    rows: dict[str, list[dict]] = {t: [] for t in TABLES}
    for future in futures:
        for table, part in future.result().items():
            rows[table].extend(part)
    reports = rows["reports"]
    runs = runs_frame(
        flow_name, started_at, input_path=input_label, total=len(reports),
        succeeded=sum(r["status"] != "error" for r in reports), failed=sum(r["status"] == "error" for r in reports),
        flagged=sum(r["status"] != "answered" for r in reports), fallback=sum(bool(s["fallback"]) for s in rows["steps"]),
        config_json=options.model_dump_json(),
    )
    paths = write_research_run(data_dir, run_id, rows, runs)
    for report in reports:
        create_markdown_artifact(key=_key("research-report", report["question_id"]), markdown=report_markdown(report),
                                 description=f"run {run_id}: {report['question'][:200]}")
    create_table_artifact(key="research-steps", table=[{k: v for k, v in s.items() if k != "reasoning"} for s in rows["steps"]],
                          description=f"steps of run {run_id}")
    create_table_artifact(key="research-sources", table=rows["sources"], description=f"sources of run {run_id}")
    publish_run_report(run_id, data_dir)
    return {"run_id": run_id, "data_dir": store.root, "parent_run_id": parent_run_id, "paths": paths,
            "reports": [{k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in reports]}


def review_markdown(result: dict[str, Any]) -> str:
    """What the reviewer reads above the form: the report(s) of the run awaiting a verdict."""
    reports = "\n\n---\n\n".join(report_markdown(r) for r in result["reports"])
    return (f"## Review run {result['run_id']}\n\nAccept the report, reject it saying what is wrong, or add "
            f"information; reject and add re-open the research as a child run.\n\n{reports}")


def _key(prefix: str, question_id: str) -> str:
    """Artifact keys allow lowercase letters, digits and dashes only."""
    import re

    return (prefix + "-" + re.sub(r"[^a-z0-9-]+", "-", question_id.lower())).strip("-")[:100]


@flow(name="research")
def research(question: str, options: ResearchOptions | None = None, run_id: str | None = None,
             data_dir: str | None = None, question_id: str = "q1", review: bool = False,
             review_timeout_s: int = 3600) -> dict[str, Any]:
    """Research one question; with ``review`` (under a server), wait for a reviewer's feedback."""
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    result = _research([ThreadSeed(question_id=question_id, question=question)], options, run_id, data_dir,
                       None, "-", "research")
    while review:
        form = Feedback.with_initial_data(description=review_markdown(result), verdict="accept")
        feedback = pause_flow_run(wait_for_input=form, timeout=review_timeout_s)
        if feedback.verdict == "accept":
            record_feedback(result["run_id"], "accept", "", data_dir)
            break
        result = reopen(result["run_id"], feedback.verdict, feedback.text, options=options, data_dir=data_dir)
    return result


@flow(name="research-batch")
def research_batch(questions: list[dict] | str, options: ResearchOptions | None = None, run_id: str | None = None,
                   data_dir: str | None = None, input_label: str = "-") -> dict[str, Any]:
    """Research each ``{id, question}`` (a list, or a JSONL file's path) as its own thread; one run,
    one row per question in ``reports``."""
    if isinstance(questions, str):
        questions, input_label = load_questions(questions), questions
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    seeds = [ThreadSeed(question_id=str(q["id"]), question=q["question"]) for q in questions]
    return _research(seeds, options, run_id, data_dir, None, input_label, "research-batch")


def reopen(parent_run_id: str, verdict: str, text: str, *, options: ResearchOptions | None = None,
           question_ids: list[str] | None = None, run_id: str | None = None, data_dir: str | None = None) -> dict[str, Any]:
    """Re-open a run's threads as a child run that reuses their memory, with the feedback as constraints."""
    options = options or ResearchOptions()
    run_id = validate_run_id(run_id or new_run_id())
    store = ParquetStore(data_dir)
    seeds = seeds_from_run(store, parent_run_id, question_ids)
    for seed in seeds:
        seed.constraints = constraints_for(seed.constraints, verdict, text, seed.answer)
    result = _research(seeds, options, run_id, data_dir, parent_run_id, f"run_id={parent_run_id}", "feedback")
    _write_feedback(store, parent_run_id, seeds, verdict, text, run_id)
    return result


@flow(name="research-feedback")
def research_feedback(parent_run_id: str, verdict: Literal["accept", "reject", "add"], text: str = "",
                      options: ResearchOptions | None = None, question_ids: list[str] | None = None,
                      run_id: str | None = None, data_dir: str | None = None) -> dict[str, Any]:
    """``accept`` records the verdict; ``reject`` and ``add`` re-open the thread as a child run."""
    if verdict == "accept":
        return record_feedback(parent_run_id, "accept", text, data_dir, question_ids)
    if not text.strip():
        raise ValueError(f"--{verdict} needs a text: what is wrong, or what to add")
    return reopen(parent_run_id, verdict, text, options=options, question_ids=question_ids, run_id=run_id, data_dir=data_dir)


def record_feedback(run_id: str, verdict: str, text: str, data_dir: str | None,
                    question_ids: list[str] | None = None) -> dict[str, Any]:
    """An accepted report: one feedback row per thread under the reviewed run."""
    store = ParquetStore(data_dir)
    path = _write_feedback(store, run_id, seeds_from_run(store, run_id, question_ids), verdict, text, None)
    return {"run_id": run_id, "data_dir": store.root, "verdict": verdict, "paths": {"feedback": path}, "reports": []}


def _write_feedback(store: ParquetStore, reviewed_run_id: str, seeds: list[ThreadSeed], verdict: str, text: str,
                    child_run_id: str | None) -> str:
    """Feedback is stored under the run it is about (an added part file; the run's other tables stay as written)."""
    now = datetime.now(timezone.utc)
    rows = [{"question_id": s.question_id, "thread_id": s.thread_id, "verdict": verdict, "text": text,
             "child_run_id": child_run_id, "created_at": now} for s in seeds]
    return store.write("feedback", reviewed_run_id, frame("feedback", rows))
