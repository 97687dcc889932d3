"""Faults a user meets: unusable output places found before any work, one error line instead of
a traceback, output files with the usual mode. (Links, racing writers, invalid Unicode and
crash leftovers are tested beside the code they guard: test_reports, test_store, test_flow.)"""

import json
import os
import stat
import subprocess
import sys
import time
from datetime import UTC

import polars as pl
import pytest

from flows.cli import main
from modules.testing import FakeAssistant
from tests.conftest import ROOT, SAMPLES


def test_an_unusable_data_dir_fails_before_any_work(prefect_harness, tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    for data_dir in (a_file, a_file / "below"):
        args = [
            "analyze",
            str(SAMPLES / "responses.jsonl"),
            "--ground-truth",
            str(SAMPLES / "pages.jsonl"),
            "--data-dir",
            str(data_dir),
        ]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"sleuth: error: data dir {data_dir} is not usable" in err
    items = tmp_path / "items.jsonl"
    items.write_text((SAMPLES / "rerank.jsonl").read_text().splitlines()[0] + "\n")
    assert (
        main(
            [
                "rerank-batch",
                str(items),
                "--out",
                str(a_file / "out.jsonl"),
                "--data-dir",
                str(tmp_path / "d"),
            ]
        )
        == 2
    )
    assert "is a file, not a folder" in capsys.readouterr().err


def test_rerank_output_has_the_usual_file_mode(prefect_harness, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text((SAMPLES / "rerank.jsonl").read_text().splitlines()[0] + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["rerank-batch", str(items), "--out", str(out), "--data-dir", str(tmp_path / "d")]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask and json.loads(out.read_text().splitlines()[0])
    runs = pl.read_parquet(str(tmp_path / "d" / "runs" / "**" / "*.parquet"), hive_partitioning=True)
    assert {"ranker": "relevance-ranker-3", "picker": "sentence-picker-3"}.items() <= json.loads(
        runs["config_json"][0]
    ).items()  # the trained models that scored and anchored the results


def test_a_user_error_is_one_line_not_a_traceback(tmp_path):
    """As a user runs it: no PREFECT_API_URL, a temporary server; ``--debug`` shows the traceback."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(tmp_path / "home")
    args = [
        sys.executable,
        "-m",
        "flows.cli",
        "analyze",
        str(tmp_path / "missing.jsonl"),
        "--ground-truth",
        str(SAMPLES / "pages.jsonl"),
        "--data-dir",
        str(tmp_path / "d"),
    ]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "sleuth: error: input not found" in done.stderr
    assert "Traceback" not in output and "Failed to send telemetry" not in output
    debug = subprocess.run(
        args[:3] + ["--debug"] + args[3:], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert debug.returncode != 0 and "Traceback" in debug.stderr and "FileNotFoundError" in debug.stderr


@pytest.mark.parametrize("flag", ["--data-dir"])
def test_a_data_dir_that_is_a_file_is_refused_by_every_run_command(prefect_harness, tmp_path, capsys, flag):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "1", "question": "Who directed Ed Wood?"}) + "\n")
    fake = FakeAssistant()  # a provider that answers the up-front check, so the data dir is what fails
    commands = [
        ["research", "Who directed Ed Wood?", "--corpus", str(SAMPLES / "corpus.jsonl")],
        ["research-batch", str(questions), "--corpus", str(SAMPLES / "corpus.jsonl")],
        ["collect", str(SAMPLES / "queries.jsonl"), "--provider", f"openai/x,base_url={fake.base_url}"],
    ]
    try:
        for command in commands:
            assert main(command + [flag, str(a_file)]) == 2, command
            assert "is not usable" in capsys.readouterr().err, command
    finally:
        fake.close()


def test_inputs_of_the_wrong_shape_are_one_line_errors(prefect_harness, tmp_path, capsys):
    not_parquet = tmp_path / "responses.parquet"
    not_parquet.write_text("garbage")
    (tmp_path / "empty").mkdir()
    q42, nan = tmp_path / "q.jsonl", tmp_path / "items.jsonl"
    q42.write_text('{"id": "1", "question": 42}\n')
    nan.write_text(
        '{"id": "1", "query": NaN, "results": [{"title": "a", "url": "http://a.example", "text": "b"}]}\n'
    )
    cases = [
        (
            ["analyze", str(not_parquet), "--ground-truth", str(SAMPLES / "pages.jsonl")],
            "not a readable Parquet file",
        ),
        (
            ["analyze", str(tmp_path / "empty"), "--ground-truth", str(SAMPLES / "pages.jsonl")],
            "no Parquet files",
        ),
        (["research-batch", str(q42)], 'line 1: "question" must be text, not int'),
        (
            ["rerank-batch", str(nan), "--out", str(tmp_path / "o.jsonl")],
            'line 1: needs a non-empty "query" string (got nan)',
        ),
        (
            ["collect", str(not_parquet), "--provider", "openai/x,base_url=FAKE"],
            "not a readable Parquet file",
        ),
    ]
    fake = FakeAssistant()  # a provider that answers the up-front check, so the input is what fails
    try:
        for args, message in cases:
            args = [a.replace("base_url=FAKE", f"base_url={fake.base_url}") for a in args]
            assert main(args + ["--data-dir", str(tmp_path / "d")]) == 2, args
            last = (
                capsys.readouterr().err.strip().splitlines()[-1]
            )  # (the harness's Prefect log comes before it)
            assert last.startswith("sleuth: error:") and message in last, (args, last)
    finally:
        fake.close()


def test_empty_input_is_refused_and_a_zero_delta_has_no_sign(prefect_harness, tmp_path, capsys):
    from flows.cli.output import fmt
    from modules.reports.html import delta

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert (
        main(
            [
                "analyze",
                str(empty),
                "--ground-truth",
                str(SAMPLES / "pages.jsonl"),
                "--data-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert "no records" in capsys.readouterr().err.strip().splitlines()[-1]
    assert [fmt(v) for v in (-0.0, -0.04, 0.04, -0.06, None)] == ["0.0", "0.0", "0.0", "-0.1", "-"]
    assert ">0.0<" in delta(-0.01) and ">-1.0<" in delta(-1.0) and ">+1.0<" in delta(1.0)


# --- collections: stopped, killed, resumed --------------------------------------------------


def _queries():
    from modules.queries import load_query_set

    return load_query_set(SAMPLES / "queries.jsonl").queries


def test_cancellation_abandons_calls_in_flight_and_marks_the_rest_cancelled():
    import threading
    import time

    from modules.providers import Cancellation, ask_provider, parse_provider
    from modules.testing import FakeAssistant

    fake = FakeAssistant({}, delay_s=30)  # "slow": each answer would take 30 s
    try:
        spec = parse_provider(f"openai/slow,base_url={fake.base_url}", concurrency=2, timeout_s=60)
        stop = Cancellation()

        def cancel_when_two_are_in_flight():
            while len(fake.requests) < 2:
                time.sleep(0.01)
            stop.cancel("SIGTERM received")

        threading.Thread(target=cancel_when_two_are_in_flight, daemon=True).start()
        t0 = time.monotonic()
        run = ask_provider(spec, _queries(), cancellation=stop)
        assert (
            time.monotonic() - t0 < 25
        )  # not 30+ s: the calls in flight were abandoned (slack for a loaded machine)
        assert {a.error_type for a in run.answers} == {"cancelled"} and run.stats()["status"] == "cancelled"
        assert sum(a.error.startswith("abandoned in flight") for a in run.answers) == 2  # the two in flight
        t0 = time.monotonic()
        run = ask_provider(spec, _queries(), cancellation=Cancellation(max_seconds=0.5))
        assert time.monotonic() - t0 < 5 and "deadline of 0.5 s passed" in run.answers[-1].error
    finally:
        fake.close()


def _collect_cli(fake, data_dir, *extra, concurrency=1):
    return [
        sys.executable,
        "-m",
        "flows.cli",
        "collect",
        str(SAMPLES / "queries.jsonl"),
        "--provider",
        f"openai/good,base_url={fake.base_url},concurrency={concurrency}",
        "--data-dir",
        str(data_dir),
        *extra,
    ]


def _wait_for_requests(fake, n, proc, timeout=120):
    import time

    end = time.monotonic() + timeout
    while len(fake.requests) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "the collection never started"
        time.sleep(0.05)


def _started(args, env, fake, n, **popen):
    """The CLI process ``args`` (its output piped), once ``fake`` has had ``n`` requests."""
    proc = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen
    )
    _wait_for_requests(fake, n, proc)
    return proc


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_signal_mid_collection_writes_what_was_collected_and_resume_asks_the_rest(
    prefect_harness, tmp_path, signum
):
    import signal

    import polars as pl
    from prefect.settings import PREFECT_API_URL

    from modules.store import ParquetStore
    from modules.testing import FakeAssistant

    queries = _queries()
    fake = FakeAssistant({q.query: q.expected_answer for q in queries}, latency_s=0.6)
    if signum == "SIGTERM":  # as `kill` or a Prefect cancellation sends it: to the process, under a server
        env, session = os.environ | {"PREFECT_API_URL": PREFECT_API_URL.value()}, False
    else:  # as Ctrl-C at a terminal sends it: to the whole process group, the temporary server's too
        env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"} | {
            "PREFECT_HOME": str(tmp_path / "home")
        }
        session = True
    try:
        proc = _started(
            _collect_cli(fake, tmp_path, "--run-id", "stopped"), env, fake, 2, start_new_session=session
        )
        if session:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + getattr(signal, signum), err
        assert f"stopped early ({signum} received)" in err and "--resume stopped" in err
        assert f"{signum} received: stopping the calls" in err  # said at once, in a quiet terminal
        store = ParquetStore(tmp_path)
        responses = store.read("responses", "stopped")
        kept = responses.filter(pl.col("status") == "answered")
        assert len(responses) == 5 and 1 <= len(kept) <= 2
        assert set(responses.filter(pl.col("status") != "answered")["error_type"]) == {"cancelled"}
        run = store.read("runs", "stopped").row(0, named=True)
        assert (
            run["stopped"] == f"{signum} received"
            and store.read("collections", "stopped")["status"][0] == "cancelled"
        )
        assert store.checkpoint("stopped").items() == []  # committed: the checkpoint is gone

        asked_before = len(fake.requests)
        assert (
            main(["collect", "--resume", "stopped", "--run-id", "resumed", "--data-dir", str(tmp_path)]) == 0
        )
        assert len(fake.requests) - asked_before == 5 - len(kept)  # only the missing ones
        resumed = store.read("responses", "resumed").sort("query_id")
        assert resumed["status"].to_list() == ["answered"] * 5
        carried = resumed.filter(pl.col("query_id").is_in(kept["query_id"].to_list()))
        assert carried["response"].to_list() == kept.sort("query_id")["response"].to_list()
        assert (
            carried["asked_at"].to_list() == kept.sort("query_id")["asked_at"].to_list()
        )  # when they were asked
        assert store.read("runs", "resumed")["resumed_from"][0] == "stopped"
        assert (
            main(["collect", "--resume", "resumed", "--data-dir", str(tmp_path)]) == 2
        )  # nothing left to ask
    finally:
        fake.close()


def test_a_monitor_of_repeated_samples_stopped_by_sigterm_loses_no_answer_on_resume(
    prefect_harness, tmp_path
):
    """``monitor --samples 5`` over the sample's 5 queries x 3 providers: SIGTERM mid-collection
    writes what was collected, and ``--resume`` asks exactly the missing (query, sample) pairs
    with the same number of samples, keeping every answer already given."""
    import signal

    import polars as pl
    from prefect.settings import PREFECT_API_URL

    from modules.store import ParquetStore
    from modules.testing import FakeAssistant

    queries = _queries()
    fake = FakeAssistant(
        {q.query: q.expected_answer for q in queries},
        rival_answers={q.query: "Try Evernote instead." for q in queries},
        latency_s=0.5,
    )
    env = os.environ | {"PREFECT_API_URL": PREFECT_API_URL.value()}
    providers = []
    for model in ("sometimes-a", "sometimes-b", "gpt-4o-mini"):
        providers += ["--provider", f"openai/{model},base_url={fake.base_url},concurrency=1"]
    monitor = [sys.executable, "-m", "flows.cli", "monitor", str(SAMPLES / "queries.jsonl")]
    monitor += ["--ground-truth", str(SAMPLES / "pages.jsonl"), *providers, "--data-dir", str(tmp_path)]
    try:
        proc = _started([*monitor, "--samples", "5", "--run-id", "stopped"], env, fake, 9)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + signal.SIGTERM, err
        store = ParquetStore(tmp_path)
        responses = store.read("responses", "stopped")
        kept = responses.filter(pl.col("status") == "answered")
        assert responses.height == 75 and 6 <= kept.height < 75, kept.height
        assert set(responses.filter(pl.col("status") != "answered")["error_type"]) == {"cancelled"}
        assert store.read("runs", "stopped")["samples"].to_list() == [5]

        resume = [
            sys.executable,
            "-m",
            "flows.cli",
            "monitor",
            "--resume",
            "stopped",
            "--data-dir",
            str(tmp_path),
        ]
        refused = subprocess.run(
            [*resume, "--samples", "3"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert refused.returncode == 2 and "asked each query 5 time(s), not 3" in refused.stderr
        asked_before = len(fake.requests)
        done = subprocess.run(
            [*resume, "--run-id", "resumed"], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert len(fake.requests) - asked_before == 75 - kept.height  # only the missing asks
        assert "asked 75 calls (5 queries x 5 samples x 3 providers)" in done.stdout
        resumed = store.read("responses", "resumed")
        assert resumed.height == 75 and resumed["status"].to_list() == ["answered"] * 75
        key = ["model", "query_id", "sample"]
        carried = kept.select(*key, "response").join(resumed.select(*key, "response"), on=key)
        assert carried.height == kept.height and (carried["response"] == carried["response_right"]).all()
        assert store.read("analyses", "resumed").height == 75
    finally:
        fake.close()


def test_a_killed_collection_loses_no_answer(prefect_harness, tmp_path, capsys):
    import signal

    import polars as pl
    from prefect.settings import PREFECT_API_URL

    from modules.store import ParquetStore
    from modules.testing import FakeAssistant

    queries = _queries()
    fake = FakeAssistant({q.query: q.expected_answer for q in queries}, latency_s=0.6)
    env = os.environ | {"PREFECT_API_URL": PREFECT_API_URL.value()}
    try:
        proc = _started(_collect_cli(fake, tmp_path, "--run-id", "killed"), env, fake, 3)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        store = ParquetStore(tmp_path)
        assert store.read("runs", "killed").is_empty()  # never committed...
        saved = store.checkpoint("killed").items()
        assert len(saved) >= 2 and {s["status"] for s in saved} == {"answered"}  # ...but every answer is kept

        assert (
            main(
                [
                    "collect",
                    str(SAMPLES / "queries.jsonl"),
                    "--provider",
                    f"openai/good,base_url={fake.base_url}",
                    "--run-id",
                    "killed",
                    "--data-dir",
                    str(tmp_path),
                ]
            )
            == 2
        )
        assert "--resume killed" in capsys.readouterr().err  # the interrupted run's id is not reused

        asked_before = len(fake.requests)
        assert (
            main(["collect", "--resume", "killed", "--run-id", "after-kill", "--data-dir", str(tmp_path)])
            == 0
        )
        assert len(fake.requests) - asked_before == 5 - len(saved)
        responses = store.read("responses", "after-kill")
        assert responses["status"].to_list() == ["answered"] * 5 and responses["response"].null_count() == 0
        assert set(
            responses.filter(pl.col("query_id").is_in([s["query_id"] for s in saved]))["response"]
        ) == {s["response"] for s in saved}
        assert not store.checkpoint("killed").exists() and not store.checkpoint("after-kill").exists()
    finally:
        fake.close()


def test_a_resume_refuses_a_changed_query_set_or_other_providers(prefect_harness, tmp_path, capsys):
    from modules.testing import FakeAssistant

    fake = FakeAssistant({}, latency_s=0)
    changed = tmp_path / "queries.jsonl"
    changed.write_text((SAMPLES / "queries.jsonl").read_text())
    try:
        assert (
            main(
                [
                    "collect",
                    str(changed),
                    "--provider",
                    f"openai/refuse,base_url={fake.base_url}",
                    "--provider",
                    f"openai/broken,base_url={fake.base_url}",
                    "--retries",
                    "0",
                    "--run-id",
                    "first",
                    "--data-dir",
                    str(tmp_path / "d"),
                ]
            )
            == 0
        )
        changed.write_text(changed.read_text().replace("Nimbus", "Nimbvs", 1))
        assert main(["collect", "--resume", "first", "--data-dir", str(tmp_path / "d")]) == 2
        assert "changed since run first" in capsys.readouterr().err
        changed.write_text((SAMPLES / "queries.jsonl").read_text())
        assert (
            main(
                [
                    "collect",
                    "--resume",
                    "first",
                    "--provider",
                    f"openai/other,base_url={fake.base_url}",
                    "--data-dir",
                    str(tmp_path / "d"),
                ]
            )
            == 2
        )
        assert "a resume asks the same providers the same way" in capsys.readouterr().err
        asked_before = len(fake.requests)
        assert (
            main(["collect", "--resume", "first", "--data-dir", str(tmp_path / "d")]) == 0
        )  # the errors, again
        assert {r["model"] for r in fake.requests[asked_before:]} == {"broken"} and len(
            fake.requests
        ) - asked_before == 5
    finally:
        fake.close()


def test_trend_deltas_follow_start_order_whatever_the_finishing_order(tmp_path):
    """A (started first) finishes after B: B compares with the run before both and says so; A
    compares with that run too (B started later); reading by start time gives the whole series."""
    from datetime import datetime, timedelta

    import duckdb
    import polars as pl

    from modules.response.tables import summarize
    from modules.store import ParquetStore

    def analyses(score):
        return pl.DataFrame(
            {
                "domain": ["d.example"] * 2,
                "query_set_id": ["qs"] * 2,
                "status": ["ok"] * 2,
                **{f"{m}_score": [score, score] for m in ("accuracy", "completeness", "attribution")},
                **{f"{m}_tier": ["good"] * 2 for m in ("accuracy", "completeness", "attribution")},
            }
        )

    store = ParquetStore(tmp_path)
    t = datetime(2026, 11, 1, tzinfo=UTC)

    def commit(run_id, score, started_at):
        with store.run_writer(run_id) as w:
            w.write("summaries", summarize(analyses(score), started_at, store.read("summaries")))
            w.write("runs", pl.DataFrame({"flow": ["analyze"], "started_at": [started_at]}))

    commit("P", 50.0, t)
    commit("B", 80.0, t + timedelta(hours=2))  # started last, finishes first
    commit("A", 60.0, t + timedelta(hours=1))
    rows = {r["run_id"]: r for r in store.read("summaries").to_dicts()}
    assert (rows["A"]["previous_run_id"], rows["A"]["accuracy_delta"]) == (
        "P",
        10.0,
    )  # not B: B started later
    assert (rows["B"]["previous_run_id"], rows["B"]["accuracy_delta"]) == (
        "P",
        30.0,
    )  # A did not exist yet: said so
    by_start = duckdb.sql(f"""
        SELECT run_id, accuracy_mean - lag(accuracy_mean) OVER w AS d
        FROM read_parquet('{tmp_path}/summaries/**/*.parquet', hive_partitioning = true)
        WINDOW w AS (PARTITION BY domain, query_set_id ORDER BY run_at) ORDER BY run_at""").fetchall()
    assert by_start == [("P", None), ("A", 10.0), ("B", 20.0)]  # the documented query: right over the series

    # sleuth's own readers (reports, runs show) compare by start time, whatever finished first
    from modules.response.tables import read_with_trends

    now = {r: read_with_trends(store, "summaries", r).row(0, named=True) for r in ("P", "A", "B")}
    assert [(now[r]["previous_run_id"], now[r]["accuracy_delta"]) for r in ("P", "A", "B")] == [
        (None, None),
        ("P", 10.0),
        ("A", 20.0),
    ]


def test_a_lone_surrogate_in_one_answer_loses_nothing_and_an_old_checkpoint_is_repaired(
    prefect_harness, tmp_path
):
    """JSON may carry ``"\\ud800"``; UTF-8 cannot. One such answer must not make the collection
    unwritable, and a checkpoint an older version wrote with it must resume."""
    from modules.providers.collect import Answer
    from modules.store import ParquetStore

    queries = _queries()
    answers = {q.query: q.expected_answer for q in queries}
    poisoned = queries[0].query
    answers[poisoned] = "Nimbus \ud800 Notes costs $8"  # sent as the JSON escape \ud800
    fake = FakeAssistant(answers)
    try:
        args = [
            "collect",
            str(SAMPLES / "queries.jsonl"),
            "--provider",
            f"openai/good,base_url={fake.base_url}",
        ]
        assert main([*args, "--run-id", "lone", "--data-dir", str(tmp_path)]) == 0
        store = ParquetStore(tmp_path)
        responses = store.read("responses", "lone")
        assert responses["status"].to_list() == ["answered"] * 5
        assert "Nimbus \ufffd Notes costs $8" in responses["response"].to_list()

        # a checkpoint written before answers were cleaned on arrival: repaired on resume
        record = Answer(query=queries[0], status="answered", response="\ud800 poisoned").to_record()
        assert Answer.from_record(queries[0], json.loads(json.dumps(record))).response == "\ufffd poisoned"
    finally:
        fake.close()


def test_calls_past_their_deadline_leave_no_thread_or_socket_behind():
    """A provider that drips its answer forever: every call is cut at its deadline, and its
    connection and thread end with it (before, each one stayed until the provider hung up)."""
    import threading
    import time

    from modules.providers import ask_provider, parse_provider

    def open_sockets() -> int:
        count = 0
        for fd in os.listdir("/proc/self/fd"):
            try:
                count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
            except OSError:  # the listing's own descriptor
                pass
        return count

    fake = FakeAssistant({}, drip_s=0.2)
    try:
        spec = parse_provider(
            f"openai/drip,base_url={fake.base_url}", concurrency=4, timeout_s=1, retries=1, backoff_s=0.01
        )
        queries = _queries() * 3
        threads, sockets = threading.active_count(), open_sockets()
        run = ask_provider(spec, queries)
        assert {a.error_type for a in run.answers} == {"timeout"} and len(run.answers) == 15
        time.sleep(1.0)
        assert threading.active_count() <= threads + 1, [t.name for t in threading.enumerate()]
        assert open_sockets() <= sockets + 1
    finally:
        fake.close()


def test_abandoned_calls_that_keep_running_are_bounded_and_fail_the_provider(monkeypatch):
    """Where a call's connection cannot be cut (a provider outside the OpenAI client), calls
    still running after their deadline are bounded: the provider is marked failed, the rest
    not asked."""
    import threading

    from modules.providers import ask_provider, parse_provider
    from modules.providers import collect as collect_module

    release = threading.Event()

    def hangs(spec, query, connections=None):
        release.wait(60)
        raise TimeoutError("released")

    monkeypatch.setattr(collect_module, "_call", hangs)
    try:
        spec = parse_provider(
            "openai/hangs,base_url=http://127.0.0.1:1/v1", concurrency=1, timeout_s=0.3, retries=0
        )
        run = ask_provider(spec, _queries())
    finally:
        release.set()
    kinds = [a.error_type for a in run.answers]
    assert kinds == ["timeout", "timeout", "skipped", "skipped", "skipped"], kinds
    assert run.status == "failed" and "past the deadline" in run.stats()["error"]


@pytest.mark.parametrize(
    "argv",
    [
        ["queries", "check", "{dir}"],
        ["collect", "{dir}", "--provider", "openai/good,base_url={provider}"],
        ["research-batch", "{dir}"],
        ["rerank-batch", "{dir}", "--out", "{tmp}/out.jsonl"],
        ["rerank-batch", str(SAMPLES / "rerank.jsonl"), "--out", "{dir}"],
        ["rerank-batch", str(SAMPLES / "rerank.jsonl"), "--out", "{file}/out.jsonl"],
    ],
)
def test_a_folder_where_a_file_is_expected_is_one_line_before_any_work(
    prefect_harness, tmp_path, capsys, argv
):
    folder, afile = tmp_path / "a-folder", tmp_path / "a-file"
    folder.mkdir()
    afile.write_text("")
    fake = FakeAssistant({})
    try:
        args = [a.format(dir=folder, tmp=tmp_path, file=afile, provider=fake.base_url) for a in argv]
        assert main([*args, "--data-dir", str(tmp_path / "data")] if args[0] != "queries" else args) == 2
    finally:
        fake.close()
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("sleuth: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "is a folder" in lines[0] or "is a file, not a folder" in lines[0], lines
    assert not (tmp_path / "data" / "rerankings").exists()  # no work was done


def test_a_running_collection_cannot_be_resumed_and_a_chain_of_resumes_leaves_no_checkpoint(
    prefect_harness, tmp_path, capsys
):
    """While a collection still runs, ``--resume`` of it is refused (every call would be paid
    twice); A killed, B resuming A killed, C resuming B done: neither A's nor B's checkpoint is
    left for ``sleuth runs`` to offer."""
    import signal

    from prefect.settings import PREFECT_API_URL

    from modules.store import ParquetStore

    queries = _queries()
    fake = FakeAssistant({q.query: q.expected_answer for q in queries}, latency_s=0.8)
    env = os.environ | {"PREFECT_API_URL": PREFECT_API_URL.value()}
    store = ParquetStore(tmp_path)

    def killed_after(args, n):
        return _started(args, env, fake, len(fake.requests) + n)

    try:
        first = killed_after(_collect_cli(fake, tmp_path, "--run-id", "A"), 2)
        assert main(["collect", "--resume", "A", "--run-id", "twice", "--data-dir", str(tmp_path)]) == 2
        assert "run A is still running" in capsys.readouterr().err
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=60)

        second = killed_after(
            [sys.executable, "-m", "flows.cli", "collect", "--resume", "A", "--run-id", "B"]
            + ["--data-dir", str(tmp_path)],
            1,
        )
        time.sleep(1.0)  # its checkpoint has what it carried from A
        second.send_signal(signal.SIGKILL)
        second.communicate(timeout=60)
        assert store.checkpoint("A").exists() and store.checkpoint("B").exists()
        # a killed run's checkpoint names its process until that has gone (a busy machine takes a while)
        deadline = time.monotonic() + 60
        while any(store.checkpoint(r).running_owner() for r in "AB") and time.monotonic() < deadline:
            time.sleep(0.2)

        assert main(["collect", "--resume", "B", "--run-id", "C", "--data-dir", str(tmp_path)]) == 0
        assert store.read("responses", "C")["status"].to_list() == ["answered"] * 5
        assert not store.checkpoint("A").exists() and not store.checkpoint("B").exists()
    finally:
        fake.close()


def test_a_library_error_inside_is_an_internal_error_not_a_user_error(tmp_path, capsys, monkeypatch):
    """A ValueError raised deep in a library is a bug: exit 1 and a line that says so, not the
    "fix your input" exit 2; a missing input leaves nothing in the data dir."""
    import numpy as np

    from flows import cli

    def broken(args):
        np.zeros(3).reshape(2, 2)  # numpy's ValueError, nothing the user typed

    monkeypatch.setattr(cli, "build_parser", _parser_with(cli.build_parser, "runs", broken))
    assert main(["runs", "--data-dir", str(tmp_path / "d1")]) == 1
    err = capsys.readouterr().err
    assert "sleuth: internal error: ValueError" in err and "--debug" in err

    data = tmp_path / "d2"
    args = ["analyze", str(tmp_path / "missing.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
    assert main([*args, "--data-dir", str(data)]) == 2
    assert "input not found" in capsys.readouterr().err and not data.exists()


def _parser_with(build, command, func):
    def build_parser():
        parser = build()
        for action in parser._subparsers._group_actions:
            if command in action.choices:
                action.choices[command].set_defaults(func=func)
        return parser

    return build_parser


def test_a_ground_truth_past_its_cap_is_refused_before_it_is_embedded(prefect_harness, tmp_path, capsys):
    args = ["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
    assert main([*args, "--set", "batch.max_ground_truth_chunks=5", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("sleuth: error: ground truth") and "batch.max_ground_truth_chunks" in err
    assert not (tmp_path / "analyses").exists()
