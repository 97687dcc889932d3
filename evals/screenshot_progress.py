"""The README's screenshot of a long command in progress, from a real run: ``sleuth collect`` of
a generated query set from three providers (the fake assistant of modules/testing/fake_assistant.py on
127.0.0.1, with latency, 5xx errors and 429s), under a pseudo-terminal; the last bars it drew
before ``--at`` seconds are rendered to SVG by rich, as the terminal showed them.

    .venv/bin/python -m evals.screenshot_progress [--queries 400] [--at 25] [--out docs/screenshots/progress-collect.svg]
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from modules.queries import Query, write_query_set
from modules.testing import FakeAssistant

ROOT = Path(__file__).resolve().parents[1]
PROVIDERS = (
    ("assistant-a", 8, None),
    ("assistant-b", 4, None),
    ("assistant-c", 2, 240.0),
)  # model, concurrency, rpm

#: What rich writes before each redraw of its bars: back to the first bar's line.
_REDRAW = re.compile(r"\r(?:\x1b\[2K\x1b\[1A)*\x1b\[2K")


def _last_frame(raw: str) -> str:
    """The bars as last drawn: the text after the last redraw that holds every provider's bar."""
    frames = [f for f in _REDRAW.split(raw) if all(m in f for m, _, _ in PROVIDERS)]
    return frames[-1].replace("\r\n", "\n").rstrip("\n") if frames else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--at", type=float, default=25.0, help="seconds into the run to take the picture")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots" / "progress-collect.svg"))
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="sleuth-shot-"))
    queries = [
        Query(
            query_set_id="nimbus-weekly",
            query_id=f"q{i:04d}",
            query=f"What does the Nimbus Notes plan {i} include?",
            domain="nimbusnotes.example",
            expected_answer=f"Plan {i} includes {i % 97} GB of storage.",
        )
        for i in range(args.queries)
    ]
    write_query_set(work / "queries.jsonl", queries)
    fake = FakeAssistant(
        {q.query: q.expected_answer for q in queries},
        latency_s=0.4,
        retry_after=0.5,
        error_rate=0.03,
        rate_limit_rate=0.03,
        keep_bodies=False,
        seed=7,
    )
    command = [str(Path(sys.executable).parent / "sleuth"), "collect", str(work / "queries.jsonl")]
    for model, concurrency, rpm in PROVIDERS:
        spec = f"openai/{model},base_url={fake.base_url},concurrency={concurrency},label=openai"
        command += ["--provider", spec + (f",rpm={rpm:g}" if rpm else "")]
    command += ["--data-dir", str(work / "runs"), "--run-id", "weekly"]
    env = {k: v for k, v in os.environ.items() if k != "SLEUTH_PROGRESS_SECONDS"}
    env |= {"TERM": "xterm-256color", "COLUMNS": "110", "OPENAI_API_KEY": "not-needed"}
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=ROOT)
    os.close(follower)
    raw, started = b"", time.monotonic()
    try:
        while time.monotonic() - started < args.at and process.poll() is None:
            if select.select([leader], [], [], 0.2)[0]:
                try:
                    raw += os.read(leader, 65536)
                except OSError:
                    break
    finally:
        process.send_signal(signal.SIGTERM)  # the run writes what it has and stops
        try:
            while select.select([leader], [], [], 30)[0] and os.read(leader, 65536):
                pass
        except OSError:
            pass
        process.wait(timeout=120)
        os.close(leader)
        fake.close()
    frame = _last_frame(raw.decode(errors="replace"))
    if not frame:
        raise SystemExit(
            f"no progress bars in the first {args.at:g} s:\n{raw.decode(errors='replace')[-2000:]}"
        )

    from rich.console import Console
    from rich.text import Text

    console = Console(record=True, width=110, force_terminal=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(
        Text("$ sleuth collect queries.jsonl --provider ... (3 providers, 400 queries)", style="bold")
    )
    console.print(Text.from_ansi(frame))
    console.save_svg(args.out, title="sleuth collect")
    print(f"{args.out}:\n{Text.from_ansi(frame).plain}")


if __name__ == "__main__":
    main()
