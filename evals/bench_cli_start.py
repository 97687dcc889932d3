"""Time to first result: ``sleuth analyze`` on the 15-answer sample, and where its seconds go.

Each run is a fresh process, as a user's command is, in three setups, ``--repeats`` runs each,
medians printed:
  temporary: ``SLEUTH_LOCAL_SERVER=0``, a temporary Prefect server per command (Prefect's own);
  cold:      the shared local server stopped before each run: the command starts it;
  warm:      the shared local server left up by the previous run: the command reuses it.
Phases, timed in the process one after another (their sum is its wall time, interpreter start
included): imports (``flows.cli`` and the analyze flow), model load (the embedder's first
encode), server (entering ``local_run_settings``), work (``sleuth analyze`` as the CLI runs it),
teardown (leaving it and exiting). ``sleuth`` is the wall time of the real command, where the
model loads in the background while Prefect imports and the server starts; ``ratio`` compares
those. A throwaway ``PREFECT_HOME``, no ``PREFECT_API_URL``.

    .venv/bin/python -m evals.bench_cli_start [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples"

#: Runs in the measured process; prints its phases as JSON on the last line.
_CHILD = """
import json, sys, time
t = [time.perf_counter()]
import flows.cli  # first, as the console script does: its fast exit runs after Prefect's exit handlers
import flows.analyze
t.append(time.perf_counter())
from modules.embeddings import LocalEmbedder
LocalEmbedder().encode(["warm up"])
t.append(time.perf_counter())
from flows.runtime import local_run_settings
settings = local_run_settings()
settings.__enter__()
t.append(time.perf_counter())
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()) as out:
    status = flows.cli.run(sys.argv[1:])
assert status == 0 and "15 responses, 15 analysed" in out.getvalue(), out.getvalue()
t.append(time.perf_counter())
settings.__exit__(None, None, None)
t.append(time.perf_counter())
names = ["imports", "model load", "server", "work", "teardown"]
print(json.dumps({n: b - a for n, a, b in zip(names, t, t[1:])}), flush=True)
"""

PHASES = ["imports", "model load", "server", "work", "teardown", "sum", "sleuth"]


def _run(env: dict[str, str], data_dir: Path, run_id: str, cold: Path | None = None) -> dict[str, float]:
    """One instrumented run, then one of the real command; ``cold``: the state folder of the
    shared server to stop before each."""
    from flows import local_server

    args = ["analyze", str(SAMPLES / "responses.jsonl"), "--ground-truth", str(SAMPLES / "pages.jsonl")]
    args += ["--data-dir", str(data_dir), "--run-id", run_id]
    if cold:
        local_server.stop(cold)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )
    total = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"run {run_id} failed:\n{out.stderr[-3000:]}")
    phases = json.loads(out.stdout.strip().splitlines()[-1])
    phases["teardown"] += total - sum(phases.values())  # interpreter start and exit: outside the phases
    phases["sum"] = total
    if cold:
        local_server.stop(cold)
    start = time.perf_counter()
    subprocess.run(
        [str(Path(sys.executable).parent / "sleuth"), *args[:-1], run_id + "-cli"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    phases["sleuth"] = time.perf_counter() - start
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    from flows import local_server

    tmp = Path(tempfile.mkdtemp(prefix="sleuth-bench-start-"))
    home = tmp / "prefect"
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env |= {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "HF_HUB_OFFLINE": "1"}
    folder = home / "sleuth-server"
    results: dict[str, list[dict[str, float]]] = {"temporary": [], "cold": [], "warm": []}
    try:
        _run(env | {"SLEUTH_LOCAL_SERVER": "0"}, tmp / "runs", "warmup")  # database created, disk caches warm
        for i in range(args.repeats):
            results["temporary"].append(_run(env | {"SLEUTH_LOCAL_SERVER": "0"}, tmp / "runs", f"t{i}"))
            results["cold"].append(_run(env | {"SLEUTH_LOCAL_SERVER": "1"}, tmp / "runs", f"c{i}", folder))
            results["warm"].append(_run(env | {"SLEUTH_LOCAL_SERVER": "1"}, tmp / "runs", f"w{i}"))
    finally:
        local_server.stop(folder)

    print(f"sleuth analyze on the sample (15 answers), median of {args.repeats} runs, seconds\n")
    print(f"{'setup':10s}" + "".join(f"{p:>12s}" for p in PHASES))
    medians = {}
    for setup, runs in results.items():
        medians[setup] = {p: statistics.median(r[p] for r in runs) for p in PHASES}
        print(f"{setup:10s}" + "".join(f"{medians[setup][p]:12.2f}" for p in PHASES))
    print(f"\nratio temporary / warm: {medians['temporary']['sleuth'] / medians['warm']['sleuth']:.2f}x")
    print(f"ratio cold / warm: {medians['cold']['sleuth'] / medians['warm']['sleuth']:.2f}x")


if __name__ == "__main__":
    main()
