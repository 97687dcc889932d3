"""Faults a user meets: unusable output places found before any work, one error line instead of
a traceback, output files with the usual mode. (Links, racing writers, invalid Unicode and
crash leftovers are tested beside the code they guard: test_reports, test_store, test_flow.)"""

import json
import os
import stat
import subprocess
import sys

import pytest

from flows.cli import main
from tests.conftest import ROOT, SAMPLES


def test_an_unusable_data_dir_fails_before_any_work(prefect_harness, tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    for data_dir in (a_file, a_file / "below"):
        args = ["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl"),
                "--data-dir", str(data_dir)]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert f"sleuth: error: data dir {data_dir} is not usable" in err
    items = tmp_path / "items.jsonl"
    items.write_text((SAMPLES / "rerank.jsonl").read_text().splitlines()[0] + "\n")
    assert main(["rerank-batch", str(items), "--out", str(a_file / "out.jsonl"), "--data-dir", str(tmp_path / "d")]) == 2
    assert "cannot write --out" in capsys.readouterr().err


def test_rerank_output_has_the_usual_file_mode(prefect_harness, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text((SAMPLES / "rerank.jsonl").read_text().splitlines()[0] + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["rerank-batch", str(items), "--out", str(out), "--data-dir", str(tmp_path / "d")]) == 0
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask and json.loads(out.read_text().splitlines()[0])


def test_a_user_error_is_one_line_not_a_traceback(tmp_path):
    """As a user runs it: no PREFECT_API_URL, a temporary server; ``--debug`` shows the traceback."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["PREFECT_HOME"] = str(tmp_path / "home")
    args = [sys.executable, "-m", "flows.cli", "analyze", str(tmp_path / "missing.jsonl"), "--ground-truth",
            str(SAMPLES / "pages.jsonl"), "--data-dir", str(tmp_path / "d")]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 2 and "sleuth: error: input not found" in done.stderr
    assert "Traceback" not in output and "Failed to send telemetry" not in output
    debug = subprocess.run(args[:3] + ["--debug"] + args[3:], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert debug.returncode != 0 and "Traceback" in debug.stderr and "FileNotFoundError" in debug.stderr


@pytest.mark.parametrize("flag", ["--data-dir"])
def test_a_data_dir_that_is_a_file_is_refused_by_every_run_command(prefect_harness, tmp_path, capsys, flag):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "1", "question": "Who directed Ed Wood?"}) + "\n")
    commands = [["research", "Who directed Ed Wood?", "--corpus", str(SAMPLES / "corpus.jsonl")],
                ["research-batch", str(questions), "--corpus", str(SAMPLES / "corpus.jsonl")],
                ["collect", str(SAMPLES / "queries.jsonl"), "--provider", "openai/x,base_url=http://127.0.0.1:9"]]
    for command in commands:
        assert main(command + [flag, str(a_file)]) == 2, command
        assert "is not usable" in capsys.readouterr().err, command


def test_inputs_of_the_wrong_shape_are_one_line_errors(prefect_harness, tmp_path, capsys):
    not_parquet = tmp_path / "responses.parquet"
    not_parquet.write_text("garbage")
    (tmp_path / "empty").mkdir()
    q42, nan = tmp_path / "q.jsonl", tmp_path / "items.jsonl"
    q42.write_text('{"id": "1", "question": 42}\n')
    nan.write_text('{"id": "1", "query": NaN, "results": [{"title": "a", "url": "http://a.example", "text": "b"}]}\n')
    cases = [
        (["analyze", str(not_parquet), "--ground-truth", str(SAMPLES / "pages.jsonl")], "not a readable Parquet file"),
        (["analyze", str(tmp_path / "empty"), "--ground-truth", str(SAMPLES / "pages.jsonl")], "no Parquet files"),
        (["research-batch", str(q42)], 'line 1: "question" must be text, not int'),
        (["rerank-batch", str(nan), "--out", str(tmp_path / "o.jsonl")], 'line 1: needs a non-empty "query" string (got nan)'),
        (["collect", str(not_parquet), "--provider", "openai/x"], "not a readable Parquet file"),
    ]
    for args, message in cases:
        assert main(args + ["--data-dir", str(tmp_path / "d")]) == 2, args
        last = capsys.readouterr().err.strip().splitlines()[-1]  # (the harness's Prefect log comes before it)
        assert last.startswith("sleuth: error:") and message in last, (args, last)


def test_empty_input_is_refused_and_a_zero_delta_has_no_sign(prefect_harness, tmp_path, capsys):
    from flows.cli import _fmt
    from modules.reports.html import delta

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["analyze", str(empty), "--ground-truth", str(SAMPLES / "pages.jsonl"), "--data-dir", str(tmp_path)]) == 2
    assert "no records" in capsys.readouterr().err.strip().splitlines()[-1]
    assert [_fmt(v) for v in (-0.0, -0.04, 0.04, -0.06, None)] == ["0.0", "0.0", "0.0", "-0.1", "-"]
    assert ">0.0<" in delta(-0.01) and ">-1.0<" in delta(-1.0) and ">+1.0<" in delta(1.0)
