"""README's five-minute tour runs as written: every command of the section, in order, in one
shell, on a fresh data dir, writing nothing into the source tree."""

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def tour_script() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    assert len(blocks) >= 5, "the tour lost its commands"
    return "\n".join(blocks)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tracked_state() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT, capture_output=True, text=True
    ).stdout


def test_the_tour_runs_as_written(tmp_path):
    script = tour_script()
    assert "8099" in script and ".venv/bin/sleuth" in script
    bin_dir = Path(sys.executable).parent  # the environment running the tests: README's .venv in CI
    script = script.replace(".venv/bin/", f"{bin_dir}/").replace("8099", str(_free_port()))
    before = _tracked_state()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("SLEUTH_DATA_DIR", None)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script + "\nwait\n"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = done.stdout
    assert done.returncode == 0, (out + done.stderr)[-4000:]
    # 1. the audit: its summary, run listing and report
    assert "run audit: 15 responses, 15 analysed" in out
    assert re.search(r"nimbusnotes\.example\s+nimbus-2026-11\s+8\s", out)
    assert list(tmp_path.rglob("audit.html"))
    # 2. research: answered yes, with both people's pages as sources
    assert re.search(r"status: answered .*confidence 0\.\d\d\n\nAnswer:\nYes\.", out)
    assert "wiki/Scott_Derrickson" in out and "wiki/Ed_Wood\n" in out
    # 3. rerank: scored results, whole brief answers; rerank-batch's output file
    assert re.search(r"\[\s*\d+ kept\] Ed Wood ", out) and "(October 10\n" not in out
    (batch_out,) = tmp_path.rglob("rerank-out.jsonl")
    assert len(batch_out.read_text().splitlines()) == 2
    # 4. monitor: three providers side by side, the good one ranked first
    assert re.search(r"demo/good\s+ok\s+1\s+100\.0", out)
    for model in ("rival", "refuse"):
        assert re.search(rf"demo/{model}\s+ok\s+\d\s", out), model
    assert list(tmp_path.rglob("provider_summaries/run_id=week-1"))
    assert _tracked_state() == before, "the tour wrote into the source tree"
