import duckdb
import pandas as pd
import polars as pl
import pytest

from modules.store import ParquetStore, RunExistsError, resolve_data_dir


def test_write_read_hive_partitions(tmp_path):
    store = ParquetStore(tmp_path)
    for run in ("r1", "r2"):
        with store.run_writer(run) as w:
            w.write("analyses", pl.DataFrame({"x": [1, 2], "run_id": [run, run]}))
            w.write("runs", pl.DataFrame({"n": [2]}))
    assert store.run_ids() == ["r1", "r2"]
    assert sorted(store.read("analyses")["run_id"].to_list()) == ["r1", "r1", "r2", "r2"]
    glob = f"{tmp_path}/analyses/**/*.parquet"
    assert pl.read_parquet(glob, hive_partitioning=True).height == 4
    assert duckdb.sql(f"select count(*) from read_parquet('{glob}', hive_partitioning=true) where run_id='r2'").fetchall() == [(2,)]
    assert len(pd.read_parquet(tmp_path / "analyses")) == 4


def test_never_overwrites_a_run(tmp_path):
    store = ParquetStore(tmp_path)
    with store.run_writer("r1") as w:
        w.write("runs", pl.DataFrame({"n": [1]}))
    with pytest.raises(RunExistsError):
        with store.run_writer("r1"):
            pass
    assert store.read("runs", "r1")["n"].to_list() == [1]


def test_crash_leaves_no_partial_partition(tmp_path):
    store = ParquetStore(tmp_path)
    with pytest.raises(RuntimeError):
        with store.run_writer("boom") as w:
            w.write("analyses", pl.DataFrame({"x": [1]}))
            raise RuntimeError("crash mid-run")
    assert not list(tmp_path.rglob("*.parquet")) and not list(tmp_path.rglob("*.tmp"))
    assert store.run_ids("analyses") == []


def test_invalid_run_id(tmp_path):
    with pytest.raises(ValueError, match="invalid run id"):
        ParquetStore(tmp_path).partition("runs", "../escape")


def test_fsspec_url(tmp_path):
    store = ParquetStore("memory://sleuth-test")
    with store.run_writer("m1") as w:
        w.write("runs", pl.DataFrame({"n": [3]}))
    assert store.read("runs")["n"].to_list() == [3] and store.run_ids() == ["m1"]


def test_data_dir_resolution(monkeypatch):
    monkeypatch.delenv("SLEUTH_DATA_DIR", raising=False)
    assert resolve_data_dir() == "datasets/runs"
    monkeypatch.setenv("SLEUTH_DATA_DIR", "/data/x")
    assert resolve_data_dir() == "/data/x" and resolve_data_dir("/cli") == "/cli"
