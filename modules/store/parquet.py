"""Run-versioned Parquet storage: ``<data-dir>/<table>/run_id=<id>/part-<n>-<uuid>.parquet``.

Every flow writes through this layer, on local paths and fsspec URLs (``s3://bucket/prefix``).
Parts are written under a hidden temporary name and renamed into place, so readers (polars,
DuckDB, pandas) never see a partial file, and a run's partition is never shared with another run.

A run's commit is exact: two writers racing on one run id cannot both land, and never merge. On
a local data dir the commit holds ``_commits/<run_id>.lock`` (created exclusively, naming the
tables it publishes), re-checks that the id is free, and renames each staged table into place
with a rename that fails rather than merge, ``runs`` last. An object store (``s3://``,
``gs://``, ``memory://``) has no rename: the commit claims the id with a conditional PUT of
``_commits/<run_id>.claim`` (``If-None-Match: *``: one writer wins, and the claim stays), then
copies the staged tables in, ``runs`` last. A run is committed when its ``runs`` partition
exists: sleuth's readers (``read``, trends, reports) see only committed runs; an analyst's reader
may see a killed commit's partitions until they are rolled back, so it semi-joins every table on
the run ids of ``runs`` (README's Data layout shows how).

What a dead process leaves (its ``_staging`` folder, ``.tmp`` parts, its commit lock and the
partitions that commit published without a ``runs`` row) carries its host and pid and is removed
by the next run or ``sleuth runs --gc``. The store knows no domain table: flows name theirs. Its
own is ``runs`` (:data:`RUNS_TABLE`; schema and run kinds in :mod:`modules.store.runs`).
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import socket
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import fsspec
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from ..process import process_alive

DEFAULT_DATA_DIR = "datasets/runs"
#: The table every run writes last: its partition marks a committed run (``modules.store.runs``).
RUNS_TABLE = "runs"
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


class RunExistsError(FileExistsError):
    """A run id that already has data; pick another so no run overwrites another."""


_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"


def _owner_tag() -> str:
    """``host~pid``: who made a staging folder, temporary file or lock (to tell a live one from a leftover)."""
    return f"{_HOST}~{os.getpid()}"


def _local_pid(name: str) -> int | None:
    """The pid of a ``host~pid`` tag in ``name`` when the host is this one (else None)."""
    m = re.search(r"(?:^|[.])([A-Za-z0-9-]+)~(\d+)(?:[.]|$)", name)
    return int(m.group(2)) if m and m.group(1) == _HOST else None


def _dead_owner(name: str) -> bool:
    """True when ``name`` carries ``host~pid`` of this host and that process no longer exists."""
    pid = _local_pid(name)
    return pid is not None and not process_alive(pid)


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> str:
    """``--data-dir``, else ``$SLEUTH_DATA_DIR``, else ``datasets/runs``."""
    return str(data_dir or os.environ.get("SLEUTH_DATA_DIR") or DEFAULT_DATA_DIR)


def new_run_id() -> str:
    """Sortable by time, unique across machines: ``20261121T193000Z-3f9a1c``."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def validate_run_id(run_id: str) -> str:
    if not _RUN_ID.match(run_id):
        raise ValueError(f"invalid run id {run_id!r}: use letters, digits, '.', '_' and '-' (max 128)")
    return run_id


class ParquetStore:
    """A data dir (local path or fsspec URL) of run-partitioned Parquet tables: atomic part files,
    one exact commit per run (:meth:`run_writer`), readers that see committed runs only, and the
    checkpoints of runs in progress."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.root = resolve_data_dir(data_dir).rstrip("/")
        self.fs, self._root_path = fsspec.core.url_to_fs(self.root)
        self.local = "file" in (
            self.fs.protocol if isinstance(self.fs.protocol, tuple) else (self.fs.protocol,)
        )

    @classmethod
    def of(cls, where: str | os.PathLike | ParquetStore | None) -> ParquetStore:
        """The store a run already holds, or one for a data dir: a run builds its store once and
        passes it down."""
        return where if isinstance(where, ParquetStore) else cls(where)

    def check_writable(self) -> None:
        """Fail before any work (ValueError, one line) when runs could not be written here."""
        staging = f"{self._root_path}/_staging"
        protocols = self.fs.protocol if isinstance(self.fs.protocol, tuple) else (self.fs.protocol,)
        if {"s3", "s3a", "gs", "gcs", "az", "abfs"} & set(protocols):
            bucket = self._root_path.split("/", 1)[0]
            try:
                there = self.fs.exists(bucket)
            except OSError as exc:
                raise ValueError(
                    f"data dir {self.root} is not usable: {exc} (check its credentials)"
                ) from None
            if not there:  # makedirs would create it: a typo would become a new bucket
                raise ValueError(
                    f"data dir {self.root}: bucket {bucket!r} does not exist (create it first, or fix the name)"
                )
        try:
            made = not self.fs.exists(staging)
            self.fs.makedirs(staging, exist_ok=True)
            probe = f"{staging}/.probe-{_owner_tag()}-{uuid.uuid4().hex[:8]}"
            with self.fs.open(probe, "wb") as f:
                f.write(b"")
            self.fs.rm(probe)
            if made and self.local:  # a run that fails next leaves no trace
                try:
                    os.rmdir(staging)
                except OSError:  # another run is staging there meanwhile
                    pass
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise ValueError(
                f"data dir {self.root} is not usable: {reason} (set --data-dir or SLEUTH_DATA_DIR)"
            ) from None

    def checkpoint(self, run_id: str) -> Checkpoint:
        """The run's work in progress (see :class:`Checkpoint`)."""
        return Checkpoint(self, run_id)

    def put_whole(self, path: str, data: bytes) -> None:
        """Write ``data`` so that readers see all of it or nothing: a temporary name renamed into
        place on a local disk; a single PUT on an object store."""
        if not self.local:
            self.fs.pipe_file(path, data)
            return
        folder, name = path.rsplit("/", 1)
        os.makedirs(folder, exist_ok=True)
        tmp = f"{folder}/.{name}.{_owner_tag()}.tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    def partition(self, table: str, run_id: str) -> str:
        return f"{self._root_path}/{table}/run_id={validate_run_id(run_id)}"

    def table_path(self, table: str) -> str:
        """Where readers point: a hive-partitioned dataset directory."""
        return f"{self.root}/{table}"

    def tables(self) -> list[str]:
        """The tables under the data dir: its folders, less the store's own (``_staging``,
        ``_commits``, ``_checkpoints``) and hidden ones."""
        if not self.fs.exists(self._root_path):
            return []
        names = (p.rstrip("/").rsplit("/", 1)[-1] for p in self.fs.ls(self._root_path, detail=False))
        return sorted(n for n in names if not n.startswith(("_", ".")))

    def run_exists(self, run_id: str, tables: tuple[str, ...] | None = None) -> bool:
        """Whether the run id is taken: data in any of ``tables`` (default: every table) or, on an
        object store, a claim."""
        names = self.tables() if tables is None else tables
        return any(self.fs.exists(self.partition(t, run_id)) for t in names) or (
            not self.local and self.fs.exists(self._claim_path(run_id))
        )

    def _claim_path(self, run_id: str) -> str:
        return f"{self._root_path}/_commits/{validate_run_id(run_id)}.claim"

    def write(self, table: str, run_id: str, data: pl.DataFrame | pa.Table) -> str:
        """Write one part file atomically into the run's partition; returns its path.

        The ``run_id`` column, if present, is dropped: the partition directory carries it.
        """
        return self._write_part(self.partition(table, run_id), data)

    @contextmanager
    def run_writer(self, run_id: str) -> Iterator[RunWriter]:
        """Stage all of a run's tables, then publish them together when the block succeeds.

        Nothing is visible under ``<table>/run_id=<id>`` until commit, and an exception leaves
        no trace but the removed staging folder, so a crash never leaves a partial run.
        """
        validate_run_id(run_id)
        if self.local:
            self.gc()  # first: a commit cut short by a kill no longer holds its run id
        if self.run_exists(run_id):
            raise RunExistsError(
                f"run {run_id!r} already has data under {self.root}; choose another --run-id"
            )
        writer = RunWriter(
            self, run_id, f"{self._root_path}/_staging/{run_id}.{_owner_tag()}.{uuid.uuid4().hex[:8]}"
        )
        try:
            yield writer
            writer.commit()
        finally:
            if self.fs.exists(writer.staging):
                self.fs.rm(writer.staging, recursive=True)

    def _write_part(self, part_dir: str, data: pl.DataFrame | pa.Table) -> str:
        if isinstance(data, pl.DataFrame):
            data = data.to_arrow()
        if "run_id" in data.column_names:
            data = data.drop(["run_id"])
        self.fs.makedirs(part_dir, exist_ok=True)
        try:
            existing = [p for p in self.fs.ls(part_dir, detail=False) if p.endswith(".parquet")]
        except FileNotFoundError:  # an object store has no empty folders
            existing = []
        name = f"part-{len(existing):05d}-{uuid.uuid4().hex[:8]}.parquet"
        final = f"{part_dir}/{name}"
        if self.local:
            tmp = f"{part_dir}/.{name}.{_owner_tag()}.tmp"
            try:
                pq.write_table(data, tmp, compression="zstd")
                os.replace(tmp, final)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
        else:  # object stores publish a PUT atomically: the object appears whole or not at all
            with self.fs.open(final, "wb") as f:
                pq.write_table(data, f, compression="zstd")
        return final if not self.local else str(Path(final))

    def leftovers(self) -> list[str]:
        """What processes that died mid-write left behind on this host (local data dirs only):
        staging folders, ``.tmp`` part files, commit locks, and checkpoints of runs that were
        written after all (an interrupted run's checkpoint is kept: it is what ``--resume`` reads)."""
        root = Path(self._root_path)
        if not self.local or not root.is_dir():
            return []
        found = [p for p in (root / "_staging").glob("*") if _dead_owner(p.name)]
        for lock in (root / "_commits").glob("*.lock"):
            owner, tables = _CommitLock.read(lock)
            if _dead_owner(owner):  # a commit cut short: what it published without ``runs``, then the lock
                run_id = lock.name.removesuffix(".lock")
                if not (root / RUNS_TABLE / f"run_id={run_id}").is_dir():
                    found += [
                        root / t / f"run_id={run_id}"
                        for t in tables
                        if (root / t / f"run_id={run_id}").is_dir()
                    ]
                found.append(lock)
        found += [p for p in root.glob("*/run_id=*/.*.tmp") if _dead_owner(p.name)]
        found += [p for p in root.glob("_checkpoints/*/*/.*.tmp") if _dead_owner(p.name)]
        found += [
            p for p in root.glob("_checkpoints/*") if (root / RUNS_TABLE / f"run_id={p.name}").is_dir()
        ]  # written
        return sorted(str(p) for p in found)

    def gc(self) -> list[str]:
        """Remove :meth:`leftovers` (a dead commit's partitions before its lock); returns what
        was removed."""
        removed = []
        for path in self.leftovers():
            try:
                if os.path.isdir(path):
                    import shutil

                    shutil.rmtree(path)
                else:
                    os.remove(path)
                removed.append(path)
            except FileNotFoundError:  # another process cleaned it first
                pass
        return removed

    def read(self, table: str, run_id: str | None = None) -> pl.DataFrame:
        """A table (one run, or every committed run, with a ``run_id`` column); empty if it does not exist."""
        base = f"{self._root_path}/{table}"
        if run_id is not None:
            base = self.partition(table, run_id)
        if not self.fs.exists(base):
            return pl.DataFrame()
        files = [f for f in self.fs.glob(f"{base}/**/*.parquet") if not Path(f).name.startswith(".")]
        if run_id is None and table != RUNS_TABLE:  # only committed runs (a runs row is written last)
            committed = set(self.run_ids(RUNS_TABLE))
            files = [f for f in files if re.search(r"run_id=([^/]+)", f).group(1) in committed]
        if not files:
            return pl.DataFrame()
        frames = []
        for f in sorted(files):
            with self.fs.open(f, "rb") as fh:
                df = pl.read_parquet(fh)
            rid = re.search(r"run_id=([^/]+)", f).group(1)
            frames.append(df.with_columns(pl.lit(rid).alias("run_id")))
        return pl.concat(frames, how="diagonal_relaxed")

    def run_ids(self, table: str = RUNS_TABLE) -> list[str]:
        base = f"{self._root_path}/{table}"
        if not self.fs.exists(base):
            return []
        return sorted(
            Path(p).name.split("=", 1)[1] for p in self.fs.ls(base, detail=False) if "run_id=" in Path(p).name
        )


class Checkpoint:
    """A run's work saved as it is done, under ``_checkpoints/<run_id>/``: ``manifest.json``
    (what the run was asked to do) and ``items/<name>.json``, one JSON object per finished item,
    each written whole. A run that is killed or crashes keeps every finished item for a resume;
    a committed run's checkpoint is removed. Local writes are not fsynced: they survive the
    process, not a power cut."""

    _NAME = re.compile(r"^[A-Za-z0-9_-]{1,100}$")

    def __init__(self, store: ParquetStore, run_id: str):
        self.store, self.run_id = store, validate_run_id(run_id)
        self.path = f"{store._root_path}/_checkpoints/{run_id}"

    def exists(self) -> bool:
        return self.store.fs.exists(f"{self.path}/manifest.json")

    def begin(self, manifest: dict) -> None:
        """Start the checkpoint with ``manifest``, recording this process as its owner."""
        manifest = {**manifest, "owner": _owner_tag()}
        self.store.put_whole(f"{self.path}/manifest.json", json.dumps(manifest, default=str).encode())

    def running_owner(self) -> str | None:
        """``host~pid`` of the process still writing this checkpoint, when it runs on this host
        (a resume of it would pay for every call twice); None when it ended or runs elsewhere."""
        owner = str((self.manifest() or {}).get("owner") or "")
        pid = _local_pid(owner)
        return owner if pid is not None and pid != os.getpid() and process_alive(pid) else None

    def manifest(self) -> dict | None:
        try:
            return json.loads(self.store.fs.cat_file(f"{self.path}/manifest.json"))
        except FileNotFoundError:
            return None

    def put(self, name: str, item: dict) -> None:
        if not self._NAME.match(name):
            raise ValueError(f"checkpoint item name {name!r}: use letters, digits, '_' and '-'")
        self.store.put_whole(f"{self.path}/items/{name}.json", json.dumps(item, default=str).encode())

    def items(self) -> list[dict]:
        folder = f"{self.path}/items"
        if not self.store.fs.exists(folder):
            return []
        paths = [
            p
            for p in self.store.fs.ls(folder, detail=False)
            if p.endswith(".json") and not p.rsplit("/", 1)[-1].startswith(".")
        ]
        return [json.loads(data) for _, data in sorted(self.store.fs.cat(paths).items())] if paths else []

    def remove(self) -> None:
        if self.store.fs.exists(self.path):
            self.store.fs.rm(self.path, recursive=True)

    @classmethod
    def run_ids(cls, store: ParquetStore) -> list[str]:
        """Runs with a checkpoint: interrupted, or still running."""
        base = f"{store._root_path}/_checkpoints"
        if not store.fs.exists(base):
            return []
        return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in store.fs.ls(base, detail=False))


def frame(rows: list[dict], schema: dict) -> pl.DataFrame:
    """Rows as a DataFrame with exactly the schema's columns, in its order (missing keys are null):
    every run writes the same columns and types, so a table's runs read as one dataset."""
    if not rows:
        return pl.DataFrame(schema=schema)
    return pl.DataFrame([{k: r.get(k) for k in schema} for r in rows], schema=schema, orient="row")


class RunWriter:
    """Collects one run's tables in a staging folder; ``commit`` renames them into place."""

    def __init__(self, store: ParquetStore, run_id: str, staging: str):
        self.store, self.run_id, self.staging = store, run_id, staging
        self.tables: list[str] = []
        self.published: dict[str, str] = {}  # table -> partition path, once committed

    def write(self, table: str, data: pl.DataFrame | pa.Table) -> None:
        self.store._write_part(f"{self.staging}/{table}", data)
        if table not in self.tables:
            self.tables.append(table)

    def commit(self) -> dict[str, str]:
        """Publish every staged table; ``runs`` goes last, as the marker of a complete run.

        Refuses (``RunExistsError``) when the run id got data since the writer opened: checked
        again under the run's commit lock, and each rename fails rather than merge."""
        order = [t for t in self.tables if t != RUNS_TABLE] + [t for t in self.tables if t == RUNS_TABLE]
        if not self.store.local:
            self._commit_to_object_store(order)
        else:
            with _CommitLock(Path(self.store._root_path), self.run_id, order):
                if self.store.run_exists(self.run_id, (*order, RUNS_TABLE)):
                    raise RunExistsError(
                        f"run {self.run_id!r} was written by another process meanwhile; nothing was published"
                    )
                for table in order:
                    final = Path(self.store.partition(table, self.run_id))
                    final.parent.mkdir(parents=True, exist_ok=True)
                    _rename_no_replace(Path(self.staging) / table, final)
        self.published = {t: f"{self.store.table_path(t)}/run_id={self.run_id}" for t in order}
        return self.published

    def _commit_to_object_store(self, order: list[str]) -> None:
        """Claim the run id (a conditional PUT only one writer wins), then copy each staged part
        into place, ``runs`` last. The claim stays: the id is taken even if the copy is cut short."""
        fs, store = self.store.fs, self.store
        if store.run_exists(self.run_id, (*order, RUNS_TABLE)):
            raise RunExistsError(
                f"run {self.run_id!r} was written by another process meanwhile; nothing was published"
            )
        claim = json.dumps({"owner": _owner_tag(), "at": datetime.now(UTC).isoformat()}).encode()
        try:
            fs.pipe_file(store._claim_path(self.run_id), claim, mode="create")
        except FileExistsError:
            raise RunExistsError(
                f"run {self.run_id!r} was claimed by another writer meanwhile; nothing was published"
            ) from None
        for table in order:
            final = store.partition(table, self.run_id)
            for part in sorted(fs.ls(f"{self.staging}/{table}", detail=False)):
                fs.copy(part, f"{final}/{part.rsplit('/', 1)[-1]}")


def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


class _CommitLock:
    """``_commits/<run_id>.lock``, created exclusively, naming its owner and the tables it
    publishes; one left by a dead process is rolled back (:meth:`ParquetStore.gc`) and taken over."""

    def __init__(self, root: Path, run_id: str, tables: list[str] | None = None):
        self.root, self.tables = root, list(tables or [])
        self.path = root / "_commits" / f"{run_id}.lock"

    @staticmethod
    def read(path: Path) -> tuple[str, list[str]]:
        """The owner (``host~pid``) and tables of a lock (an older version's holds the owner only)."""
        text = _read_text(path)
        try:
            data = json.loads(text)
            return str(data["owner"]), [str(t) for t in data["tables"]]
        except (ValueError, KeyError, TypeError):
            return text, []

    def __enter__(self) -> _CommitLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                if _dead_owner(_CommitLock.read(self.path)[0]):
                    ParquetStore(str(self.root)).gc()  # rolls back what that commit published
                    self.path.unlink(missing_ok=True)
                    continue
                raise RunExistsError(
                    f"run {self.path.stem!r} is being committed by another process "
                    f"({self.path}); choose another --run-id"
                ) from None
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps({"owner": _owner_tag(), "tables": self.tables}))
            return self
        raise RunExistsError(f"run {self.path.stem!r}: could not take its commit lock {self.path}")

    def __exit__(self, *exc) -> None:
        self.path.unlink(missing_ok=True)


def _rename_no_replace(source: Path, target: Path) -> None:
    """Rename a staged folder into place; fails if the target exists (never merges into it)."""
    try:
        target.mkdir()  # claims the name atomically: fails if another writer has it
    except FileExistsError:
        raise RunExistsError(f"{target} already exists; nothing of this run was published there") from None
    try:
        os.rename(source, target)  # onto the empty folder just made: replaces it, atomically
    except OSError as exc:
        target.rmdir()
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise RunExistsError(f"{target} already exists") from None
        raise
