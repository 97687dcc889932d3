"""Progress of long loops: plain lines off a terminal (no control characters, a short loop
prints none), rich bars on a pseudo-terminal that end on total/total with the cursor back."""

import os
import pty
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.cli import main
from flows.progress import duration, progress, show_in_terminal, spoken_duration
from tests.conftest import ROOT, SAMPLES
from tests.test_cli_output import CONTROL, SAMPLE_ARGS


@pytest.fixture
def plain(monkeypatch):
    show_in_terminal("plain")
    monkeypatch.setenv("SLEUTH_PROGRESS_SECONDS", "0")
    yield
    show_in_terminal("off")


def test_plain_lines_per_group_then_a_final_line(plain, capsys):
    with progress("collect", {"openai/gpt-4o-mini": 3, "ollama/llama3": 2}, unit="queries") as shown:
        shown.advance(1, "openai/gpt-4o-mini")
        shown.advance(2, "ollama/llama3")
        shown.advance(2, "openai/gpt-4o-mini")
    err = capsys.readouterr().err
    assert not CONTROL.search(err.replace("\n", ""))
    lines = err.splitlines()
    assert re.fullmatch(r"collect openai/gpt-4o-mini: 1/3 queries \(\d+\.\d/s, \d+s left\)", lines[0]), lines
    assert lines[1] == "collect ollama/llama3: 0/2 queries (0.0/s)"
    assert re.fullmatch(r"collect openai/gpt-4o-mini: 3/3 queries in \d+s \(\d+\.\d/s\)", lines[-2]), lines
    assert re.fullmatch(r"collect ollama/llama3: 2/2 queries in \d+s \(\d+\.\d/s\)", lines[-1]), lines


def test_a_short_loop_prints_nothing(monkeypatch, capsys):
    show_in_terminal("plain")
    monkeypatch.setenv("SLEUTH_PROGRESS_SECONDS", "60")
    try:
        with progress("analyze", 3, unit="responses") as shown:
            shown.advance(3)
    finally:
        show_in_terminal("off")
    assert capsys.readouterr().err == ""


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 5)), max_size=20))
def test_the_final_line_counts_every_item(steps):
    show_in_terminal("off")
    totals = {"a": 10, "b": 10}
    with progress("x", totals, unit="items") as shown:
        for group, n in steps:
            shown.advance(n, group)
    for group in {"a", "b"} | {g for g, _ in steps}:
        done = sum(n for g, n in steps if g == group)
        total = totals.get(group, 0)
        assert shown.line(group, final=True).startswith(
            f"x {group}: {done}/{total} items" if total else f"x {group}: {done} items"
        )


@given(st.floats(0, 10 * 24 * 3600))
def test_durations_read_as_time(seconds):
    text = duration(seconds)
    assert re.fullmatch(r"\d+s|\d+m\d\ds|\d+h\d\dm", text)
    spoken = spoken_duration(seconds)
    assert re.fullmatch(r"\d+ s|\d+ min|\d+\.\d h", spoken)
    assert (
        spoken_duration(45) == "45 s"
        and spoken_duration(600) == "10 min"
        and spoken_duration(9000) == "2.5 h"
    )


@pytest.mark.slow
@pytest.mark.usefixtures("prefect_harness")
def test_analyze_off_a_terminal_prints_plain_progress_lines(plain, tmp_path, capsys):
    assert main(["analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), "--batch-size", "5"]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err and "\x1b" not in err
    lines = err.splitlines()
    assert all(line.startswith("analyze: ") for line in lines), lines
    # A loaded CI machine can stretch the run past a minute (the duration then reads "1m03s").
    assert re.fullmatch(r"analyze: 15/15 responses in (\d+m)?\d+s \(\d+\.\d/s\)", lines[-1]), lines


def _under_a_terminal(args: list[str]) -> tuple[int, bytes]:
    """Run the CLI with stdin, stdout and stderr on a pseudo-terminal; everything it wrote."""
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("SLEUTH_PROGRESS_SECONDS", "PREFECT_API_URL")}
    env |= {"TERM": "xterm-256color", "COLUMNS": "120"}
    process = subprocess.Popen(
        [sys.executable, "-m", "flows.cli", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
        cwd=ROOT,
    )
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return process.wait(timeout=300), out


@pytest.mark.slow
def test_progress_bars_on_a_terminal_end_cleanly(tmp_path):
    status, raw = _under_a_terminal(
        ["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
        + ["--data-dir", str(tmp_path), "--batch-size", "3"]
    )
    out = raw.decode()
    assert status == 0, out
    bars, _, summary = out.partition("\x1b[?25h")  # rich hides the cursor while it draws, shows it after
    assert "\x1b[?25l" in bars and summary.lstrip("\r\n").startswith("run ")
    frames = [
        re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", f) for f in re.split(r"\r\x1b\[2K|\r\n", bars) if f.strip()
    ]
    assert all(f.startswith("analyze ") for f in frames), frames
    assert re.search(r"15/15 responses 100%", frames[-1]), frames[-1]  # the last frame: total/total
    assert bars.endswith("\r\n")  # ended by a newline: nothing left half-drawn on the summary's line
    assert "nimbusnotes.example" in summary and "\x1b" not in summary.replace("\x1b[?25h", "")


@pytest.mark.usefixtures("prefect_harness")
def test_collect_counts_every_call_per_provider_errors_included(plain, tmp_path, capsys):
    from modules.queries import load_query_set
    from modules.testing import FakeAssistant

    query_set = str(SAMPLES / "queries.jsonl")
    n = len(load_query_set(query_set).queries)
    fake = FakeAssistant({q.query: q.expected_answer for q in load_query_set(query_set).queries})
    try:
        args = ["collect", query_set, "--data-dir", str(tmp_path), "--timeout", "5"]
        for model in ("good", "denied"):  # denied: a bad key, every call an error
            args += ["--provider", f"openai/{model},base_url={fake.base_url},label=openai"]
        assert main(args) == 0
    finally:
        fake.close()
    lines = capsys.readouterr().err.splitlines()
    for model in ("good", "denied"):
        final = [line for line in lines if line.startswith(f"collect openai/{model}: ") and " in " in line]
        assert len(final) == 1 and final[0].startswith(f"collect openai/{model}: {n}/{n} queries in "), lines


def test_analyze_counts_from_the_first_wave(prefect_harness, tmp_path, capsys, monkeypatch):
    """The encoding of later waves comes after the first wave's count, not all of it before the
    progress opens (20,000 answers showed nothing for five minutes)."""
    import json
    import sys

    from flows.cli import main
    from modules.response.analyzer import ResponseAnalyzer
    from tests.conftest import SAMPLES, write_jsonl

    real = ResponseAnalyzer.encode_ahead

    def marked(self, *args, **kwargs):
        print("ENCODING A WAVE", file=sys.stderr)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ResponseAnalyzer, "encode_ahead", marked)
    monkeypatch.setenv("SLEUTH_PROGRESS_SECONDS", "0")
    import flows.analyze

    monkeypatch.setattr(flows.analyze, "LARGE_GROUND_TRUTH_CHUNKS", 1)  # the sample pages count as large
    monkeypatch.setattr(flows.analyze, "GROUND_TRUTH_PROGRESS_CHUNKS", 1)
    rows = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()]
    many = [{**r, "query_id": f"{r['query_id']}-{i}"} for i in range(8) for r in rows]  # 120
    path = write_jsonl(tmp_path / "many.jsonl", many)
    args = ["analyze", str(path), "--ground-truth", str(SAMPLES / "pages.jsonl"), "--batch-size", "10"]
    assert main([*args, "--concurrency", "2", "--data-dir", str(tmp_path / "data")]) == 0
    err = capsys.readouterr().err.splitlines()
    waves = [i for i, line in enumerate(err) if line == "ENCODING A WAVE"]
    counts = [i for i, line in enumerate(err) if line.startswith("analyze: ") and "/120 responses" in line]
    assert len(waves) == 6 and counts, err
    assert counts[0] < waves[-1]  # counting began while waves were still to encode
    assert any(line.startswith("ground truth: ") and "page chunks" in line for line in err), err
    assert any(
        line.startswith("sleuth: note: ground truth ") and "page chunks to embed" in line for line in err
    ), err
