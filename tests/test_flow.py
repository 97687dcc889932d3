"""The analyze flow end to end: Prefect, the real MiniLM encoder, Parquet read back."""

import json

import duckdb
import polars as pl
import pytest

from flows.cli import main
from tests.conftest import SAMPLES, write_jsonl

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("prefect_harness")]
SAMPLE_ARGS = [str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]


def test_cli_run_writes_tables_that_polars_and_duckdb_read(tmp_path, capsys):
    assert main(["analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), "--run-id", "r1"]) == 0
    out = capsys.readouterr().out
    assert "nimbusnotes.example" in out and f"{tmp_path}/analyses/run_id=r1" in out

    analyses = pl.read_parquet(f"{tmp_path}/analyses/**/*.parquet", hive_partitioning=True)
    assert analyses.height == 15 and set(analyses["run_id"]) == {"r1"}
    assert analyses.filter(pl.col("status") == "flagged")["flags"].to_list() == [["empty_response"]]
    result = json.loads(analyses["result_json"][0])
    assert {"queryId", "scores", "feedback", "analyzerVersion", "groundTruthVersion"} <= set(result)
    assert result["groundTruthVersion"].startswith("sha256:")
    summaries = duckdb.sql(
        f"select domain, query_count, accuracy_mean, accuracy_delta from read_parquet('{tmp_path}/summaries/**/*.parquet', hive_partitioning=true) order by domain"
    ).fetchall()
    assert [(d, n) for d, n, _, _ in summaries] == [("en.wikipedia.org", 7), ("nimbusnotes.example", 8)]
    assert all(delta is None for *_, delta in summaries)
    runs = pl.read_parquet(f"{tmp_path}/runs/**/*.parquet", hive_partitioning=True).row(0, named=True)
    assert (runs["total"], runs["succeeded"], runs["failed"], runs["flagged"]) == (15, 15, 0, 1)

    # A second run of the same query sets, with only the strongest provider, trends upward.
    best = [line for line in (SAMPLES / "responses.jsonl").read_text().splitlines() if '"openai"' in line]
    subset = write_jsonl(tmp_path / "openai.jsonl", best)
    assert (
        main(
            [
                "analyze",
                str(subset),
                "--ground-truth",
                str(SAMPLES / "pages.jsonl"),
                "--data-dir",
                str(tmp_path),
                "--run-id",
                "r2",
            ]
        )
        == 0
    )
    s2 = pl.read_parquet(f"{tmp_path}/summaries/run_id=r2/*.parquet")
    assert s2["previous_run_id"].to_list() == ["r1", "r1"]
    assert all(d > 0 for d in s2["attribution_delta"].to_list())

    assert main(["analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), "--run-id", "r1"]) == 2
    assert "already" in capsys.readouterr().err

    assert main(["runs", "--data-dir", str(tmp_path)]) == 0
    assert "r2" in capsys.readouterr().out


def _error_input(tmp_path):
    return write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {
                "query_id": "ok",
                "domain": "en.wikipedia.org",
                "response": "Mount Everest is the highest mountain on Earth.",
                "expected_answer": "Mount Everest is the highest mountain above sea level.",
            },
            {"query_id": "empty", "domain": "en.wikipedia.org", "response": ""},
            "{broken json",
            {"query_id": "nogt", "domain": "unknown.example", "response": "Something."},
            {
                "query_id": "coerced",
                "domain": "en.wikipedia.org",
                "response": {"content": "Photosynthesis releases oxygen."},
            },
            {"query_id": "bad", "domain": "en.wikipedia.org"},
        ],
    )


def test_every_error_row(tmp_path):
    from flows.analyze import analyze_responses

    result = analyze_responses(
        str(_error_input(tmp_path)), str(SAMPLES / "pages.jsonl"), run_id="e1", data_dir=str(tmp_path)
    )
    assert (result.total, result.failed, result.flagged) == (6, 3, 2)
    rows = {r["source_line"]: r for r in pl.read_parquet(f"{tmp_path}/analyses/**/*.parquet").to_dicts()}
    assert rows[1]["status"] == "ok"
    assert (
        rows[2]["status"] == "flagged"
        and rows[2]["accuracy_score"] == rows[2]["completeness_score"] == rows[2]["attribution_score"] == 0
    )
    assert (
        rows[3]["status"] == "error" and "not valid JSON" in rows[3]["error"] and rows[3]["query_id"] is None
    )
    assert rows[4]["status"] == "error" and "unknown.example" in rows[4]["error"]
    assert rows[5]["status"] == "flagged" and rows[5]["flags"] == ["response_coerced"]
    assert rows[6]["status"] == "error" and "response" in rows[6]["error"] and rows[6]["query_id"] == "bad"
    for line in (3, 4, 6):  # error rows have no wrong-fact counts, like their other counts
        assert (
            rows[line]["claims_contradicted"],
            rows[line]["contradiction_count"],
            rows[line]["has_wrong_fact"],
        ) == (None,) * 3
    assert (
        rows[2]["claims_contradicted"] == rows[2]["contradiction_count"] == 0
        and rows[2]["has_wrong_fact"] is False
    )
    summary = (
        pl.read_parquet(f"{tmp_path}/summaries/**/*.parquet")
        .filter(pl.col("domain") == "unknown.example")
        .row(0, named=True)
    )
    assert (
        summary["error_count"] == 1
        and summary["accuracy_mean"] is None
        and summary["wrong_fact_rate"] is None
    )


def test_stop_on_error_writes_nothing(tmp_path, capsys):
    code = main(
        [
            "analyze",
            str(_error_input(tmp_path)),
            "--ground-truth",
            str(SAMPLES / "pages.jsonl"),
            "--data-dir",
            str(tmp_path / "data"),
            "--stop-on-error",
        ]
    )
    assert code == 2 and "line 3" in capsys.readouterr().err
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").rglob("*.parquet"))


def test_crash_mid_run_leaves_no_partition(tmp_path, monkeypatch):
    import flows.analyze as fa

    real, calls = fa.analyze_to_rows, []

    def crash_on_second(*args, **kw):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("worker died")
        return real(*args, **kw)

    monkeypatch.setattr(fa, "analyze_to_rows", crash_on_second)
    with pytest.raises(RuntimeError, match="worker died"):
        fa.analyze_responses(*SAMPLE_ARGS[::2], run_id="c1", data_dir=str(tmp_path))
    assert len(calls) >= 2  # a RuntimeError is not transient: no retry
    assert not list(tmp_path.rglob("*.parquet")) and not list(tmp_path.rglob("run_id=c1"))


def test_transient_errors_are_retried(tmp_path, monkeypatch):
    import flows.analyze as fa

    real, failures = fa.analyze_to_rows, []

    def flaky(*args, **kw):
        if not failures:
            failures.append(1)
            raise ConnectionError("connection reset")
        return real(*args, **kw)

    monkeypatch.setattr(fa, "analyze_to_rows", flaky)
    result = fa.analyze_responses(*SAMPLE_ARGS[::2], run_id="t1", data_dir=str(tmp_path))
    assert failures == [1] and result.total == 15 and result.failed == 0


def test_reanalyze_as_new_run(tmp_path, capsys):
    assert main(["analyze", *SAMPLE_ARGS, "--data-dir", str(tmp_path), "--run-id", "base"]) == 0
    pages = [json.loads(line) for line in (SAMPLES / "pages.jsonl").read_text().splitlines()]
    pages.append(
        {
            "url": "https://nimbusnotes.example/about",
            "title": "About | Nimbus Notes",
            "text": "Nimbus Notes was founded in 2015 in Oslo and is one of the most popular note apps in Europe.",
        }
    )
    new_pages = write_jsonl(tmp_path / "pages2.jsonl", pages)
    assert (
        main(
            [
                "reanalyze",
                "base",
                "--ground-truth",
                str(new_pages),
                "--data-dir",
                str(tmp_path),
                "--run-id",
                "re",
            ]
        )
        == 0
    )
    old = pl.read_parquet(f"{tmp_path}/analyses/run_id=base/*.parquet")
    new = pl.read_parquet(f"{tmp_path}/analyses/run_id=re/*.parquet")
    assert new.height == old.height
    changed = set(new.filter(pl.col("domain") == "nimbusnotes.example")["ground_truth_version"])
    assert changed.isdisjoint(set(old["ground_truth_version"]))
    runs = pl.read_parquet(f"{tmp_path}/runs/run_id=re/*.parquet").row(0, named=True)
    assert runs["flow"] == "reanalyze" and runs["input_path"] == "run_id=base"


def test_dask_task_runner_on_a_local_cluster(tmp_path):
    from distributed import LocalCluster

    from flows.analyze import analyze_responses
    from flows.runtime import task_runner_for

    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address.removeprefix("tcp://")
        flow = analyze_responses.with_options(task_runner=task_runner_for(f"dask://{address}", 2))
        result = flow(*SAMPLE_ARGS[::2], run_id="d1", data_dir=str(tmp_path))
    assert result.total == 15 and result.failed == 0
    assert pl.read_parquet(f"{tmp_path}/analyses/run_id=d1/*.parquet").height == 15


@pytest.mark.parametrize("command", [[], ["analyze"], ["reanalyze"], ["runs"]])
def test_help_for_every_subcommand(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*command, "--help"])
    assert exit_info.value.code == 0 and "usage: sleuth" in capsys.readouterr().out


def test_local_runs_skip_heartbeats_only_without_a_server(monkeypatch):
    from prefect.settings import PREFECT_API_URL, PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    from flows.runtime import local_run_settings

    with temporary_settings({PREFECT_API_URL: None}):
        with local_run_settings():
            assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() is None
    with temporary_settings({PREFECT_API_URL: "http://127.0.0.1:1/api"}):
        with local_run_settings():
            assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() == 180


def test_invalid_unicode_is_an_error_row_naming_its_line_and_the_run_completes(prefect_harness, tmp_path):
    """A lone surrogate (valid JSON, storable nowhere) and a line that is not UTF-8 each become an
    error row with their line; every other record is analysed and the run is written."""
    from flows.analyze import analyze_responses
    from modules.queries import load_query_set
    from modules.research.batch import load_questions
    from modules.store import ParquetStore

    good = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()][:2]
    path = tmp_path / "in.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                json.dumps(good[0]).encode(),
                json.dumps({**good[1], "response": "caf\udce9"}).encode(),  # ensure_ascii: \udce9
                json.dumps({**good[1], "query_id": "latin1"}).encode().replace(b"Plus", b"Pl\xfcs"),
                json.dumps(good[1]).encode(),
            ]
        )
        + b"\n"
    )
    result = analyze_responses(
        str(path), str(SAMPLES / "pages.jsonl"), run_id="unicode", data_dir=str(tmp_path / "d")
    )
    assert (result.total, result.succeeded, result.failed) == (4, 2, 2)
    rows = {
        r["source_line"]: r for r in ParquetStore(str(tmp_path / "d")).read("analyses", "unicode").to_dicts()
    }
    assert "in.jsonl line 2: invalid Unicode (lone surrogate \\udce9" in rows[2]["error"]
    assert "in.jsonl line 3: not UTF-8 (byte 0xfc" in rows[3]["error"] and rows[4]["status"] != "error"
    for loader in (load_questions, load_query_set):
        bad = tmp_path / "bad.jsonl"
        bad.write_bytes(b'{"id": "1", "question": "caf\xe9?"}\n')
        with pytest.raises(ValueError, match="line 1: not UTF-8"):
            loader(str(bad))
