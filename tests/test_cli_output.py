"""What the terminal shows: quiet by default (sleuth's summary, no Prefect INFO lines, no
progress bars, no control characters when not a terminal), everything with --verbose; and
``sleuth runs``: the table, --kind, --since, --json, ``runs show``."""

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from flows.cli import main
from modules.store import ParquetStore
from modules.store.runs import RunKind, runs_frame
from tests.conftest import ROOT, SAMPLES

SAMPLE_ARGS = [str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # \t and \n are text


def _sleuth(*args: str) -> subprocess.CompletedProcess:
    """The command as a user runs it, its output piped (not a terminal), without the settings an
    earlier in-process quiet command left in this process's environment."""
    quiet = {
        "HF_HUB_DISABLE_PROGRESS_BARS",
        "TQDM_DISABLE",
        "TRANSFORMERS_VERBOSITY",
        "TRANSFORMERS_NO_ADVISORY_WARNINGS",
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_LOGGING") and k not in quiet}
    return subprocess.run(
        [sys.executable, "-m", "flows.cli", *args], capture_output=True, text=True, env=env, timeout=600
    )


@pytest.mark.slow
@pytest.mark.parametrize("verbose", [False, True])
def test_analyze_is_quiet_by_default_and_verbose_shows_the_logs(tmp_path, verbose):
    done = _sleuth("analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), *(["--verbose"] if verbose else []))
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    assert "nimbusnotes.example" in done.stdout and "Parquet written to:" in done.stdout
    log = tmp_path / "logs" / "sleuth.log"
    if verbose:
        assert "Finished in state Completed" in out and "Starting temporary server" in out
        return
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    assert "INFO" not in out and "Loading weights" not in out and "temporary server" not in out
    summary = [line for line in done.stdout.splitlines() if line.strip()]
    # the summary (run line, table, legend, visibility table, paths), nothing else
    assert len(summary) <= 20, done.stdout
    assert done.stderr.strip() == ""
    text = log.read_text()  # what the terminal no longer shows is in the log file
    assert "Starting temporary server" in text and "Finished in state Completed" in text

    run_id = re.search(r"^run (\S+):", done.stdout, re.M).group(1)
    shown = _sleuth("runs", "show", run_id, "--data-dir", str(tmp_path))
    assert shown.returncode == 0 and f"# Run {run_id} (analyze)" in shown.stdout
    assert "| nimbusnotes.example | nimbus-2026-11 | 8 |" in shown.stdout  # the report's figures
    assert f"  summaries            {tmp_path}/summaries/run_id={run_id}" in shown.stdout  # aligned paths


@pytest.mark.slow
@pytest.mark.usefixtures("prefect_harness")
def test_warnings_a_user_must_see_are_counted_at_the_end(tmp_path, capsys):
    args = ["analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), "--set", "batch.max_response_chars=100"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "INFO" not in captured.out + captured.err
    assert captured.err.strip().splitlines() == [
        f"1 warning (details in {tmp_path}/logs/sleuth.log):",
        "  responses cut to batch.max_response_chars before scoring (flag response_truncated): 9 of 15 responses",
    ]
    assert "WARNING | prefect.flow_runs - responses cut" in (tmp_path / "logs" / "sleuth.log").read_text()


def _runs(tmp_path) -> None:
    store, now = ParquetStore(tmp_path), datetime.now(UTC)
    rows = {
        "old-monitor": (
            RunKind.MONITOR,
            now - timedelta(days=10),
            {"query_set_id": "nimbus-2026-11", "total": 8},
        ),
        "new-monitor": (
            RunKind.MONITOR,
            now - timedelta(hours=2),
            {"query_set_id": "nimbus-2026-11", "total": 8},
        ),
        "an-analysis": (
            RunKind.ANALYZE,
            now - timedelta(hours=1),
            {"ground_truth_versions": json.dumps({"nimbusnotes.example": "v1"}), "total": 15, "failed": 2},
        ),
        "a-reanalysis": (RunKind.REANALYZE, now, {"input_path": "run_id=an-analysis", "total": 15}),
    }
    for run_id, (kind, started, fields) in rows.items():
        store.write("runs", run_id, runs_frame(kind, started, **fields))


def test_runs_table_filters_and_json(tmp_path, capsys):
    _runs(tmp_path)
    assert main(["runs", "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:7] == ["run", "id", "kind", "started", "(UTC)", "duration", "status"]
    assert [line.split()[0] for line in lines[2:]] == [
        "old-monitor",
        "new-monitor",
        "an-analysis",
        "a-reanalysis",
    ]
    analysis = next(line for line in lines if line.startswith("an-analysis"))
    assert "errors" in analysis and "nimbusnotes.example" in analysis
    assert "an-analysis" in next(line for line in lines if line.startswith("a-reanalysis")).split()[1:]

    assert main(["runs", "--data-dir", str(tmp_path), "--kind", "monitor", "--since", "7d"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == ["new-monitor"] and "nimbus-2026-11" in lines[2]
    since = (datetime.now(UTC) - timedelta(days=11)).strftime("%Y-%m-%d")
    assert main(["runs", "--data-dir", str(tmp_path), "--kind", "monitor", "--since", since, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["run_id"] for r in rows] == ["old-monitor", "new-monitor"]
    assert {r["kind"] for r in rows} == {"monitor"} and rows[0]["query_set_id"] == "nimbus-2026-11"
    assert main(["runs", "--data-dir", str(tmp_path), "--kind", "research"]) == 0
    assert "that match" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["runs", "--data-dir", str(tmp_path), "--since", "last week"])
    assert "neither a date" in capsys.readouterr().err


def test_runs_show_refuses_an_unknown_run_in_one_line(tmp_path, capsys):
    _runs(tmp_path)
    assert main(["runs", "show", "nope", "--data-dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().splitlines() == [
        f"sleuth: error: no run 'nope' under {tmp_path}"
    ]


def test_control_sequences_in_data_never_reach_the_terminal(prefect_harness, tmp_path, capsys):
    """An answer, a provider's name and a query id that would clear the screen, retitle the
    terminal and print a lying OSC 8 link: every one is printed as visible escapes."""
    from tests.conftest import write_jsonl

    hostile = (
        "\x1b[2J\x1b]0;pwned\x07\x1b]8;;https://evil.example\x1b\\docs.example.com\x1b]8;;\x1b\\\x9b31m\r"
    )
    rows = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()][:3]
    rows[0] |= {"provider": f"evil{hostile}", "query_id": f"q{hostile}", "response": f"{hostile} Nimbus"}
    path = write_jsonl(tmp_path / "hostile.jsonl", rows)
    data = ["--data-dir", str(tmp_path / "data")]
    assert (
        main(["analyze", str(path), "--ground-truth", str(SAMPLES / "pages.jsonl"), "--run-id", "h", *data])
        == 0
    )
    assert main(["runs", "show", "h", *data]) == 0
    out = capsys.readouterr()
    for stream in (out.out, out.err):
        assert not CONTROL.search(stream) and "\x9b" not in stream, repr(stream)
    assert "evil\\x1b" in out.out and "pwned\\x07" in out.out  # shown, not obeyed


def test_one_warning_said_of_several_providers_names_each(capsys):
    import logging

    from flows.cli.output import print_warning_summary, set_terminal

    set_terminal(False, None)
    log = logging.getLogger("flows.monitor")
    for name in ("openai/a", "openai/b", "openai/b"):
        log.warning("provider %s failed entirely", name)
    for i in range(5):
        log.warning("query %s retried", i)
    print_warning_summary()
    err = capsys.readouterr().err
    assert "  provider openai/a failed entirely" in err and "  2x provider openai/b failed entirely" in err
    assert "  5x query" in err and "(5 different ones like it)" in err


def test_a_reader_that_leaves_the_pipe_ends_the_command_quietly():
    """`sleuth ... | head`: once the reader is gone the command stops without a traceback."""
    import subprocess
    import sys

    writer = subprocess.Popen(
        [sys.executable, "-c", "from flows.cli import run\nfor _ in range(400): run(['completion', 'bash'])"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    writer.stdout.readline()
    writer.stdout.close()  # as `head -1` does once it has its line
    _, err = writer.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()[-2000:]
