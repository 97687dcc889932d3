"""Compiled DSPy programs on disk: ``<dir>/<node>/<UTC timestamp>-<short hash>.json`` + metadata.

A program file is DSPy's own ``Module.save`` JSON (instructions and demos); its metadata
(optimizer, LMs, dataset hashes, dev scores) sits beside it as ``<same name>.meta.json``.
Flows take ``--programs DIR`` and load the newest program per node; the report records which.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dspy

from .nodes import NODES
from .nodes import node as node_spec
from .tables_io import atomic_write_bytes, atomic_write_text

DEFAULT_DIR = Path(__file__).resolve().parent / "compiled"


def new_program(name: str) -> dspy.Module:
    """The uncompiled DSPy program of a node: its signature's instructions, no demos."""
    return dspy.Predict(node_spec(name).signature)


def save(
    node: str, program: dspy.Module, meta: dict[str, Any], root: str | os.PathLike | None = None
) -> Path:
    """Write the program and its metadata atomically; returns the program's path."""
    folder = Path(root or DEFAULT_DIR) / node
    with tempfile.TemporaryDirectory() as scratch:
        program.save(str(Path(scratch) / "program.json"))
        data = (Path(scratch) / "program.json").read_bytes()
    name = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + f"-{hashlib.sha256(data).hexdigest()[:8]}"
    path = folder / f"{name}.json"
    atomic_write_text(
        folder / f"{name}.meta.json",
        json.dumps({"node": node, "version": name, **meta}, indent=2, default=str) + "\n",
    )
    atomic_write_bytes(path, data)  # the program appears last: a reader never finds one without metadata
    return path


def versions(node: str, root: str | os.PathLike | None = None) -> list[Path]:
    folder = Path(root or DEFAULT_DIR) / node
    return (
        sorted(
            p
            for p in folder.glob("*.json")
            if not p.name.endswith(".meta.json") and not p.name.startswith(".")
        )
        if folder.exists()
        else []
    )


def resolve(node: str, spec: str | None, root: str | os.PathLike | None = None) -> Path | None:
    """``baseline`` -> None; ``latest`` (or None) -> the newest saved program, if any; else a path."""
    if spec == "baseline":
        return None
    if spec in (None, "latest"):
        found = versions(node, root)
        return found[-1] if found else None
    path = Path(spec)
    if not path.exists():
        raise FileNotFoundError(f"no program file {path}")
    return path


def promoted(after: float | None, before: float | None, only_if_better: bool) -> bool:
    """Whether a compiled program replaces the current one: always, unless ``only_if_better``;
    then only when its dev score is known and beats the current program's (any score beats a
    node that has none)."""
    if not only_if_better:
        return True
    return after is not None and (before is None or after > before)


def load(node: str, path: str | os.PathLike) -> dspy.Module:
    program = new_program(node)
    program.load(str(path))
    return program


def metadata(path: str | os.PathLike) -> dict[str, Any]:
    meta = Path(str(path)[: -len(".json")] + ".meta.json")
    return json.loads(meta.read_text()) if meta.exists() else {}


def load_latest(root: str | os.PathLike | None = None) -> tuple[dict[str, dspy.Module], dict[str, str]]:
    """The newest program of every node that has one, and their versions (for the report)."""
    programs, names = {}, {}
    for node in NODES:
        path = resolve(node, "latest", root)
        if path is not None:
            programs[node], names[node] = load(node, path), path.stem
    return programs, names
