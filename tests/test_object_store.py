"""Runs on object storage: ``--data-dir s3://bucket/prefix`` against a local S3-compatible server
(moto's server mode on 127.0.0.1) through s3fs. Commits claim the run id with a conditional PUT,
readers see only committed runs, racing writers (processes, Dask worker processes) never merge,
a collection checkpoints there and resumes, and polars and DuckDB read the tables."""

import multiprocessing
import os

import polars as pl
import pytest

from flows.cli import main
from modules.store import ParquetStore, RunExistsError
from tests.conftest import SAMPLES

BUCKET = "sleuth-runs"


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server on loopback; s3fs, polars and child processes reach it through the
    standard AWS variables (``AWS_ENDPOINT_URL``)."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ALLOW_HTTP": "true",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    import fsspec

    fsspec.filesystem("s3", skip_instance_cache=True).mkdir(BUCKET)
    yield env
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    server.stop()


def _s3_fs():
    import s3fs

    return s3fs.S3FileSystem(skip_instance_cache=True)


def commit_run(data_dir: str, run_id: str, marker: str) -> str:
    """One writer's run (a process or a Dask worker): ``ok`` or ``refused``."""
    store = ParquetStore(data_dir)
    try:
        with store.run_writer(run_id) as w:
            w.write("analyses", pl.DataFrame({"writer": [marker] * 3}))
            w.write("runs", pl.DataFrame({"writer": [marker]}))
    except RunExistsError:
        return "refused"
    return "ok"


def test_racing_writer_processes_never_merge_on_s3(s3):
    data_dir = f"s3://{BUCKET}/race"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        outcomes = pool.starmap(commit_run, [(data_dir, "same", f"w{i}") for i in range(4)])
    assert sorted(outcomes) == ["ok", "refused", "refused", "refused"]
    analyses = ParquetStore(data_dir).read("analyses")
    winner = f"w{outcomes.index('ok')}"
    assert analyses["writer"].to_list() == [winner] * 3  # one writer's rows, nothing merged
    assert commit_run(data_dir, "same", "late") == "refused"


def test_dask_worker_processes_commit_to_s3(s3):
    from distributed import Client, LocalCluster

    data_dir = f"s3://{BUCKET}/dask"
    with (
        LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        futures = client.map(
            commit_run,
            [data_dir] * 6,
            ["shared"] * 3 + ["r1", "r2", "r3"],
            [f"w{i}" for i in range(6)],
            pure=False,
        )
        outcomes = client.gather(futures)
        pids = set(client.run(os.getpid).values())
    assert outcomes[:3].count("ok") == 1 and outcomes[3:] == ["ok"] * 3 and os.getpid() not in pids
    store = ParquetStore(data_dir)
    assert store.run_ids() == ["r1", "r2", "r3", "shared"]
    assert store.read("analyses").group_by("run_id").len()["len"].to_list() == [3, 3, 3, 3]


def test_a_commit_cut_short_is_never_read_and_its_id_stays_taken(s3, monkeypatch):
    data_dir = f"s3://{BUCKET}/crash"
    store = ParquetStore(data_dir)
    assert commit_run(data_dir, "good", "g") == "ok"
    real_copy = store.fs.copy

    def copy_until_runs(source, target, **kw):
        if "/runs/" in target:
            raise ConnectionError("connection lost mid-commit")
        return real_copy(source, target, **kw)

    assert ParquetStore(data_dir).fs is store.fs  # fsspec shares one instance per settings
    monkeypatch.setattr(store.fs, "copy", copy_until_runs)
    with pytest.raises(ConnectionError):
        commit_run(data_dir, "cut", "c")
    monkeypatch.undo()
    assert store.fs.exists(store.partition("analyses", "cut"))  # the part that made it...
    assert store.read("analyses")["run_id"].unique().to_list() == ["good"]  # ...is never read
    assert commit_run(data_dir, "cut", "again") == "refused"  # and the id stays taken


def test_analyze_and_a_resumed_collection_on_s3_read_by_polars_and_duckdb(prefect_harness, s3, tmp_path):
    import duckdb

    from modules.testing import FakeAssistant

    data_dir = f"s3://{BUCKET}/team"
    analyze = [
        "analyze",
        str(SAMPLES / "responses.jsonl"),
        "--ground-truth",
        str(SAMPLES / "pages.jsonl"),
        "--run-id",
        "a1",
        "--data-dir",
        data_dir,
    ]
    assert main(analyze) == 0
    assert main(analyze) == 2  # the id is taken

    fake = FakeAssistant({}, delay_s=20)
    try:
        provider = f"openai/slow,base_url={fake.base_url},concurrency=5"
        assert (
            main(
                [
                    "collect",
                    str(SAMPLES / "queries.jsonl"),
                    "--provider",
                    provider,
                    "--max-seconds",
                    "3",
                    "--run-id",
                    "c1",
                    "--data-dir",
                    data_dir,
                ]
            )
            == 1
        )
        fake.delay_s = 0
        assert main(["collect", "--resume", "c1", "--run-id", "c2", "--data-dir", data_dir]) == 0
    finally:
        fake.close()
    store = ParquetStore(data_dir)
    assert store.read("responses", "c2")["status"].to_list() == ["answered"] * 5
    assert not store.checkpoint("c1").exists() and not store.checkpoint("c2").exists()

    options = {
        "aws_endpoint_url": s3["AWS_ENDPOINT_URL"],
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
        "aws_region": "us-east-1",
        "aws_allow_http": "true",
    }
    analyses = pl.read_parquet(
        f"{data_dir}/analyses/**/*.parquet", hive_partitioning=True, storage_options=options
    )
    assert (
        analyses["run_id"].unique().to_list() == ["a1"] and analyses.height == store.read("analyses").height
    )

    con = duckdb.connect()
    con.register_filesystem(_s3_fs())
    committed = con.sql(f"""
        SELECT r.run_id, count(*) AS n
        FROM read_parquet('{data_dir}/responses/**/*.parquet', hive_partitioning = true) r
        WHERE r.run_id IN (SELECT run_id FROM read_parquet('{data_dir}/runs/**/*.parquet', hive_partitioning = true))
        GROUP BY r.run_id ORDER BY r.run_id""").fetchall()
    assert committed == [("c1", 5), ("c2", 5)]


def test_a_missing_bucket_is_refused_not_created(s3, tmp_path, capsys):
    args = ["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
    assert main([*args, "--data-dir", "s3://typo-bucket/runs"]) == 2
    assert "bucket 'typo-bucket' does not exist" in capsys.readouterr().err
    assert not _s3_fs().exists("typo-bucket")
