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
    assert duckdb.sql(
        f"select count(*) from read_parquet('{glob}', hive_partitioning=true) where run_id='r2'"
    ).fetchall() == [(2,)]
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


def _race(data_dir: str, marker: int, barrier) -> str:
    """One of two processes writing run ``same``: both pass the early check, then commit together."""
    store = ParquetStore(data_dir)
    try:
        with store.run_writer("same") as w:
            w.write("analyses", pl.DataFrame({"writer": [marker] * 3}))
            w.write("runs", pl.DataFrame({"writer": [marker]}))
            barrier.wait(timeout=60)
        return "committed"
    except RunExistsError as exc:
        return f"refused: {exc}"


def test_two_writers_racing_on_one_run_id_never_merge(tmp_path):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(2)
        with ctx.Pool(2) as pool:
            outcomes = pool.starmap(_race, [(str(tmp_path), 1, barrier), (str(tmp_path), 2, barrier)])
    assert sorted(o.split(":")[0] for o in outcomes) == ["committed", "refused"], outcomes
    store = ParquetStore(tmp_path)
    writers = set(store.read("analyses", "same")["writer"]) | set(store.read("runs", "same")["writer"])
    assert len(writers) == 1 and store.read("analyses", "same").height == 3  # one run's rows, nothing nested
    assert not [p for p in (tmp_path / "analyses" / "run_id=same").iterdir() if p.is_dir()]
    assert not list((tmp_path / "_staging").iterdir()) and not list((tmp_path / "_commits").iterdir())


def test_leftovers_of_a_dead_process_are_removed_and_a_live_ones_kept(tmp_path, capsys):
    import os
    import subprocess
    import sys

    from flows.cli import main
    from modules.store.parquet import _HOST

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_pid, live = int(dead.stdout), f"{_HOST}~{os.getpid()}"
    store = ParquetStore(tmp_path)
    with store.run_writer("ok") as w:
        w.write("runs", pl.DataFrame({"n": [1]}))
    stale = [
        tmp_path / "_staging" / f"r1.{_HOST}~{dead_pid}.abcd1234",
        tmp_path / "runs" / "run_id=ok" / f".part-00001-x.parquet.{_HOST}~{dead_pid}.tmp",
    ]
    kept = [tmp_path / "_staging" / f"r2.{live}.abcd1234", tmp_path / "_staging" / "r3.otherhost~1.abcd1234"]
    for p in stale[:1] + kept:
        p.mkdir(parents=True)
    stale[1].write_bytes(b"PAR1")
    (tmp_path / "_commits").mkdir(exist_ok=True)
    (tmp_path / "_commits" / "r1.lock").write_text(f"{_HOST}~{dead_pid}")
    stale.append(tmp_path / "_commits" / "r1.lock")
    assert sorted(store.leftovers()) == sorted(str(p) for p in stale)
    assert main(["runs", "--gc", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert all(f"removed {p}" in out for p in stale) and not any(p.exists() for p in stale)
    assert all(p.exists() for p in kept) and store.read("runs", "ok")["n"].to_list() == [1]
    with store.run_writer("r1") as w:  # the dead process's lock no longer blocks its run id
        w.write("runs", pl.DataFrame({"n": [2]}))
    assert store.read("runs", "r1")["n"].to_list() == [2]


def test_a_run_id_is_taken_by_data_in_any_table(tmp_path):
    """The store names no domain table: a run id with a partition in any table is taken."""
    store = ParquetStore(tmp_path)
    store.write("whatever", "orphan", pl.DataFrame({"x": [1]}))
    assert (
        store.tables() == ["whatever"]
        and store.run_exists("orphan")
        and not store.run_exists("orphan", ("runs",))
    )
    with pytest.raises(RunExistsError):
        with store.run_writer("orphan"):
            pass


KILLED_MID_COMMIT = """
import os, sys
import polars as pl
from modules.store import parquet as store_module

renamed = []
real = store_module._rename_no_replace

def rename_then_die(source, target):
    real(source, target)
    renamed.append(target)
    if len(renamed) == 2:
        os._exit(137)  # as kill -9 between two renames: no cleanup of any kind

store_module._rename_no_replace = rename_then_die
store = store_module.ParquetStore(sys.argv[1])
with store.run_writer("cut") as w:
    for table in ("analyses", "claims", "runs"):
        w.write(table, pl.DataFrame({"n": [1]}))
"""


def test_a_commit_killed_between_renames_is_rolled_back_and_frees_its_run_id(tmp_path, capsys):
    import subprocess
    import sys

    import duckdb

    from flows.cli import main

    store = ParquetStore(tmp_path)
    with store.run_writer("ok") as w:
        w.write("analyses", pl.DataFrame({"n": [1]}))
        w.write("runs", pl.DataFrame({"n": [1]}))
    died = subprocess.run(
        [sys.executable, "-c", KILLED_MID_COMMIT, str(tmp_path)], capture_output=True, text=True
    )
    assert died.returncode == 137, died.stderr
    assert (tmp_path / "analyses" / "run_id=cut").is_dir() and not (tmp_path / "runs" / "run_id=cut").exists()
    # the documented reader filter keeps a half-published run out of an analyst's query
    analyses, runs = (
        f"read_parquet('{tmp_path}/{t}/*/*.parquet', hive_partitioning=true)" for t in ("analyses", "runs")
    )
    assert duckdb.sql(f"select count(*) from {analyses}").fetchall()[0][0] == 2
    committed = f"select count(*) from {analyses} where run_id in (select run_id from {runs})"
    assert duckdb.sql(committed).fetchall() == [(1,)]
    assert main(["runs", "--gc", "--data-dir", str(tmp_path)]) == 0
    assert "run_id=cut" in capsys.readouterr().out
    assert not any((tmp_path / t / "run_id=cut").exists() for t in ("analyses", "claims", "runs"))
    assert not list((tmp_path / "_commits").glob("*.lock"))
    with store.run_writer("cut") as w:  # the id is free again
        w.write("runs", pl.DataFrame({"n": [2]}))
    assert store.read("runs", "cut")["n"].to_list() == [2]


def test_the_next_run_rolls_back_a_dead_commit_by_itself(tmp_path):
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", KILLED_MID_COMMIT, str(tmp_path)], capture_output=True)
    store = ParquetStore(tmp_path)
    with store.run_writer("another") as w:
        w.write("runs", pl.DataFrame({"n": [1]}))
    assert not (tmp_path / "analyses" / "run_id=cut").exists()
