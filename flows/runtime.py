"""Run policy shared by every flow: settings, retries, timeouts, the task runner, the start of a
run and its write, its trace in Prefect (tag, flow run id, deployment), its artifacts and the
typed result it returns.

A flow is: ``begin_run`` (a fresh run id, refused when any table already has it), tasks retried
by :data:`retry_transient`, one :func:`commit_run` (all its tables written together, its report
published; it returns the committed partition paths), and a :class:`FlowResult` dataclass."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings
from prefect.task_runners import ThreadPoolTaskRunner

from flows import local_server
from modules.providers import Cancellation
from modules.reports import run_markdown, run_table
from modules.store import ParquetStore, RunKind, new_run_id, validate_run_id


class TransientFailure(Exception):
    """A failure a retry may fix that code finds in an outcome rather than an exception (a batch
    whose items were rate limited or timed out): raise it, or a subclass, to be retried."""


#: The one transient-error policy of every task: failures worth retrying (a bad record or a bug
#: never is). Each task keeps its own number of retries and delays.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    TimeoutError,
    ConnectionError,
    BlockingIOError,
    InterruptedError,
    TransientFailure,
)

#: Flow timeouts (seconds): generous bounds that turn a hung run into a Failed one (and a
#: notification) instead of a worker slot held forever. ``research`` includes its reviews.
FLOW_TIMEOUT_S: dict[RunKind, int] = {
    RunKind.ANALYZE: 4 * 3600,
    RunKind.REANALYZE: 4 * 3600,
    RunKind.COLLECT: 6 * 3600,
    RunKind.MONITOR: 8 * 3600,
    RunKind.RESEARCH: 48 * 3600,
    RunKind.RESEARCH_BATCH: 12 * 3600,
    RunKind.FEEDBACK: 4 * 3600,
    RunKind.RERANK_BATCH: 4 * 3600,
    RunKind.OPTIMIZE: 12 * 3600,
    RunKind.EVALUATE: 4 * 3600,
    RunKind.VERDICTS: 600,
}


@contextmanager
def local_run_settings() -> Iterator[None]:
    """Settings for a flow run from the CLI.

    Without ``PREFECT_API_URL`` the flow runs on the shared local server
    (:mod:`flows.local_server`, started by the first command and stopped after idle), or with
    ``SLEUTH_LOCAL_SERVER=0`` on a temporary server that exits with the process. Either way
    flow-run heartbeats (which let a real server detect crashed runs) have nobody to serve, and
    their thread, which sleeps in 1 s steps, adds up to a second to every run's teardown
    (measured: 1.13 s -> 0.13 s for an empty flow). Under a configured server, deployments and
    workers keep Prefect's heartbeat settings untouched.
    """
    if PREFECT_API_URL.value():
        yield
        return
    if local_server.enabled():
        info = local_server.acquire()
        with temporary_settings({PREFECT_API_URL: info.api_url, PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
            with local_server.in_use(info):
                yield
        return
    _start_temporary_server()
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


def _start_temporary_server() -> None:
    """Start the temporary server a flow run without ``PREFECT_API_URL`` would start (Prefect's
    own, the same instance), with SIGINT blocked in its process. Ctrl-C at a terminal signals the
    whole foreground process group: a server stopped by it would leave a run that stops on
    SIGINT unable to record and write what it has. The mask is inherited by the server's process
    only; this process's is restored at once, and Prefect still stops the server (SIGTERM) at exit."""
    import signal

    from prefect.server.api.server import SubprocessASGIServer

    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        SubprocessASGIServer().start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


#: Errors that mean "the input or the options are wrong": the user needs the one line that says
#: which, not the traceback (``sleuth --debug`` shows it).
USER_ERRORS = (ValueError, FileNotFoundError, FileExistsError)


class IncompleteRun(RuntimeError):
    """A run that ended without all it set out to do, its tables written: raised at its end so
    the flow run ends Failed (and Prefect's notifications fire). ``result`` is what the flow
    would have returned, ``exit_status`` what the CLI exits with."""

    def __init__(self, message: str, result: FlowResult, exit_status: int = 1):
        super().__init__(message)
        self.result, self.exit_status = result, exit_status

    def __reduce__(self):  # Prefect pickles a failed run's exception
        return type(self), (self.args[0], self.result, self.exit_status)


class _NoTracebackForUserErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], (*USER_ERRORS, IncompleteRun)):
            record.exc_info, record.exc_text = None, None
        return True


def quiet_user_errors() -> None:
    """Flow and task run logs keep one line, not a traceback, for a user error. Only for CLI runs
    on the temporary server: under a configured server the Prefect log keeps everything."""
    if PREFECT_API_URL.value():
        return
    for name in ("prefect.flow_runs", "prefect.task_runs"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _NoTracebackForUserErrors) for f in logger.filters):
            logger.addFilter(_NoTracebackForUserErrors())


def retry_on(*exception_types: type[BaseException]) -> Callable[..., bool]:
    """A Prefect ``retry_condition_fn``: retry only failures of these types."""

    def condition(task, task_run, state) -> bool:
        try:
            state.result()
        except exception_types:
            return True
        except Exception:
            return False
        return False

    return condition


#: A Prefect ``retry_condition_fn``: retry :data:`TRANSIENT_ERRORS` only.
retry_transient = retry_on(*TRANSIENT_ERRORS)


def task_runner_for(spec: str, concurrency: int):
    """``thread`` | ``dask`` (a local cluster) | ``dask://HOST:PORT`` (an existing scheduler)."""
    if spec == "thread":
        return ThreadPoolTaskRunner(max_workers=concurrency)
    if spec == "dask" or spec.startswith("dask://"):
        from prefect_dask import DaskTaskRunner  # lazy: dask is heavy and only this runner needs it

        if spec == "dask":
            return DaskTaskRunner(
                cluster_kwargs={"n_workers": concurrency, "threads_per_worker": 1, "dashboard_address": None}
            )
        return DaskTaskRunner(address="tcp://" + spec[len("dask://") :])
    raise ValueError(f"unknown task runner {spec!r}: use thread, dask or dask://HOST:PORT")


@dataclasses.dataclass
class FlowResult:
    """What a flow returns: a small dataclass per flow, its fields in the order of its JSON
    (``sleuth ... --json`` prints :meth:`as_dict`)."""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class CountedRun(FlowResult):
    """The first fields of a run that counts its items as its ``runs`` row does (analyses,
    collections, monitors): its id, data dir, committed table paths and totals."""

    run_id: str
    data_dir: str
    paths: dict[str, str]
    total: int
    succeeded: int
    failed: int
    flagged: int
    fallback: int


def prefect_run_fields() -> dict[str, str | None]:
    """The Prefect flow run and deployment this code runs in (None outside a flow run): they
    go into the ``runs`` row, so a sleuth run can be traced to the Prefect run that made it."""
    from prefect.runtime import deployment, flow_run

    run_id = flow_run.id
    return {
        "flow_run_id": str(run_id) if run_id else None,
        "deployment": deployment.name if run_id and deployment.id else None,
    }


def begin_run(run_id: str | None, store: ParquetStore | str | None) -> str:
    """The new run's id (the one given, or a new one), refused when any table already has data
    under it or when the data dir cannot be written (before any work, not after it); the
    current flow run is tagged with it."""
    run_id = validate_run_id(run_id or new_run_id())
    store = ParquetStore.of(store)
    store.check_writable()
    if store.run_exists(run_id):
        raise FileExistsError(f"run {run_id!r} already exists under {store.root}; choose another --run-id")
    if store.checkpoint(run_id).exists():
        raise FileExistsError(
            f"run {run_id!r} is running or was interrupted (it has a checkpoint under {store.root}); "
            f"resume it with --resume {run_id}, or choose another --run-id"
        )
    tag_flow_run(run_id)
    return run_id


@contextmanager
def stop_on_signals(cancellation: Cancellation) -> Iterator[None]:
    """The first SIGINT or SIGTERM cancels ``cancellation`` (the run stops its calls and writes
    what it has); a second one acts as it would have without this (Prefect's SIGTERM handler,
    KeyboardInterrupt). Signals can be caught only in the main thread; elsewhere this does nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    watched = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.getsignal(s) for s in watched}

    def handler(signum: int, frame) -> None:
        for s in watched:
            signal.signal(s, previous[s])
        notice = (
            f"{signal.Signals(signum).name} received: stopping the calls and writing what was collected"
            " (send it again to stop at once)"
        )
        print(f"\n{notice}", file=sys.stderr, flush=True)  # at once, whatever the logs show
        _run_logger().warning(notice)
        cancellation.cancel(f"{signal.Signals(signum).name} received", signum)

    for s in watched:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s in watched:
            signal.signal(s, previous[s])


def _run_logger() -> logging.Logger | logging.LoggerAdapter:
    from prefect import get_run_logger
    from prefect.exceptions import MissingContextError

    try:
        return get_run_logger()
    except MissingContextError:
        return logging.getLogger("sleuth")


def tag_flow_run(run_id: str) -> None:
    """Tag the current Prefect flow run ``sleuth-run:<run_id>`` (filterable in the UI and API)."""
    from prefect.client.orchestration import get_client
    from prefect.context import FlowRunContext

    context = FlowRunContext.get()
    if context is None:
        return
    tag = f"sleuth-run:{run_id}"
    tags = list(context.flow_run.tags or [])
    if tag in tags:
        return
    with get_client(sync_client=True) as client:
        client.update_flow_run(context.flow_run.id, tags=tags + [tag])
    context.flow_run.tags = tags + [tag]


@task(
    name="write-run",
    cache_policy=NO_CACHE,
    retries=2,
    retry_delay_seconds=[1, 4],
    retry_condition_fn=retry_transient,
)
def write_run(
    store: ParquetStore | str | None, run_id: str, tables: dict[str, pl.DataFrame]
) -> dict[str, str]:
    """All of a run's tables, published together (``runs`` last); the ``runs`` row carries the
    Prefect trace. Returns what the commit published: ``{table: partition path}``."""
    tables = dict(tables)
    if "runs" in tables:
        tables["runs"] = tables["runs"].with_columns(
            *(pl.lit(v, pl.String).alias(k) for k, v in prefect_run_fields().items())
        )
    with ParquetStore.of(store).run_writer(run_id) as writer:
        for name, table in tables.items():
            writer.write(name, table)
    return writer.published


def commit_run(
    flow: RunKind,
    store: ParquetStore | str | None,
    run_id: str,
    tables: dict[str, pl.DataFrame],
    **task_options: Any,
) -> dict[str, str]:
    """How every flow ends: its tables written together (:func:`write_run`, retried on transient
    errors; ``task_options`` as for ``Task.with_options``), then its report published as
    artifacts. Returns ``{table: partition path}``."""
    paths = (write_run.with_options(**task_options) if task_options else write_run)(store, run_id, tables)
    publish_run_report(flow, run_id, store)
    return paths


def artifact_key(flow: RunKind, what: str, run_id: str) -> str:
    """A Prefect artifact key unique to the flow kind and run (keys allow ``a-z``, digits, ``-``)."""
    key = re.sub(r"[^a-z0-9-]+", "-", f"{flow}-{what}-{run_id}".lower()).strip("-")
    if len(key) > 100:  # keep it unique when the run id is long
        key = key[:87].rstrip("-") + "-" + hashlib.sha1(key.encode()).hexdigest()[:12]
    return key


def publish_run_report(flow: RunKind, run_id: str, store: ParquetStore | str | None) -> None:
    """The run's summary as markdown and table artifacts: the figures of ``sleuth report RUN_ID``."""
    from prefect.artifacts import create_markdown_artifact, create_table_artifact

    create_markdown_artifact(
        key=artifact_key(flow, "report", run_id),
        markdown=run_markdown(run_id, store),
        description=f"Summary of run {run_id}; `sleuth report {run_id}` renders it as HTML with plots",
    )
    rows = run_table(run_id, store)
    if rows:
        create_table_artifact(
            key=artifact_key(flow, "figures", run_id), table=rows, description=f"Main figures of run {run_id}"
        )
