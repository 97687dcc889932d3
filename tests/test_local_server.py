"""The shared local Prefect server, for real: commands that start at once get one server, a
second ``sleuth analyze`` reuses the first one's, and the server stops itself when idle."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from flows import local_server
from flows._process import start_ticks
from modules.process import process_alive
from modules.testing import LoopbackServer
from tests.conftest import ROOT, SAMPLES


def _env(home: Path, idle_minutes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    return env | {
        "PREFECT_HOME": str(home),
        "SLEUTH_LOCAL_SERVER": "1",
        "SLEUTH_SERVER_IDLE_MINUTES": idle_minutes,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }


COUNTED_IN_THREADS = """
import threading
from prefect import flow
from prefect.artifacts import Artifact
from flows.progress import progress
from flows.runtime import local_run_settings

@flow
def counted_in_threads():
    with progress("collect", 4, unit="queries", key="progress-in-threads") as shown:
        workers = [threading.Thread(target=shown.advance) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return Artifact.get("progress-in-threads").data

with local_run_settings():
    print(counted_in_threads())
"""


def _analyze_sample(env: dict[str, str], data_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    """``sleuth analyze`` of the sample answers, as a user runs it (its own process)."""
    return subprocess.run(
        [sys.executable, "-m", "flows.cli", "analyze", str(SAMPLES / "responses.jsonl")]
        + ["--ground-truth", str(SAMPLES / "pages.jsonl"), "--data-dir", str(data_dir), *extra],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _sleuth_server(command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``sleuth server COMMAND``, as a user runs it (its own process)."""
    return subprocess.run(
        [sys.executable, "-m", "flows.cli", "server", command],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return condition()


def test_commands_share_one_server_which_stops_when_idle(tmp_path):
    home, folder = tmp_path / "prefect", tmp_path / "prefect" / "sleuth-server"
    env = _env(home, "0.4")  # 24 s idle: longer than the gap between two commands, short for a test
    try:
        acquire = "from flows import local_server; info = local_server.acquire(); print(info.url, info.pid)"
        starters = [
            subprocess.Popen(
                [sys.executable, "-c", acquire], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        started = {p.communicate(timeout=180)[0].strip() for p in starters}
        assert len(started) == 1, started  # the lock: one server for two commands that start at once
        info = json.loads((folder / "server.json").read_text())
        assert started == {f"{info['url']} {info['pid']}"}

        for run_id in ("first", "second"):
            out = _analyze_sample(env, tmp_path / "runs", "--run-id", run_id)
            assert out.returncode == 0, out.stderr
            assert json.loads((folder / "server.json").read_text()) == info  # the same server, reused
        # both flow runs were recorded by that server (not by a temporary one each)
        count = httpx.post(info["url"] + "/api/flow_runs/count", json={}, timeout=10).json()
        assert count == 2

        # progress counted in threads with no Prefect context (a provider client's pool) reaches
        # this server, not a temporary one that such a thread would start
        counted = subprocess.run(
            [sys.executable, "-c", COUNTED_IN_THREADS], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert float(counted.stdout.split()[-1]) == 100.0, counted.stderr
        assert "temporary server" not in counted.stderr, counted.stderr

        status = _sleuth_server("status", env)
        assert f"{info['url']}/api (pid {info['pid']})" in status.stdout

        assert _wait_until(lambda: not process_alive(info["pid"]), 120), "the idle server did not stop"
        assert not (folder / "server.json").exists()

        # a state file left by a server that died (killed, machine restarted): a new one starts
        (folder / "server.json").write_text(json.dumps(info))
        again = subprocess.run(
            [sys.executable, "-c", acquire], env=env, cwd=ROOT, capture_output=True, text=True
        )
        url, pid = again.stdout.split()
        assert int(pid) != info["pid"] and process_alive(int(pid)), again.stderr
        assert httpx.get(url + "/api/health", timeout=10).status_code == 200
    finally:
        local_server.stop(folder)


def test_a_configured_api_url_wins(monkeypatch):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.runtime import local_run_settings

    def refuse(*args, **kwargs):
        raise AssertionError("a local server was asked for under a configured PREFECT_API_URL")

    monkeypatch.setenv("SLEUTH_LOCAL_SERVER", "1")
    monkeypatch.setattr(local_server, "acquire", refuse)
    with temporary_settings({PREFECT_API_URL: "http://127.0.0.1:1/api"}):
        with local_run_settings():
            assert PREFECT_API_URL.value() == "http://127.0.0.1:1/api"


def test_idle_minutes_must_be_a_positive_number(monkeypatch):
    for bad in ("soon", "0", "-1"):
        monkeypatch.setenv("SLEUTH_SERVER_IDLE_MINUTES", bad)
        with pytest.raises(ValueError, match="SLEUTH_SERVER_IDLE_MINUTES"):
            local_server.idle_seconds()
    monkeypatch.setenv("SLEUTH_SERVER_IDLE_MINUTES", "2.5")
    assert local_server.idle_seconds() == 150


def test_a_server_that_cannot_start_is_one_error_line(tmp_path):
    """A database the server cannot open: it exits at start, the command says so in one line
    (where the log is, how to opt out) and nothing is analysed."""
    (tmp_path / "not-a-dir").write_text("")
    env = _env(tmp_path / "prefect", "1") | {
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{tmp_path / 'not-a-dir' / 'prefect.db'}"
    }
    out = _analyze_sample(env, tmp_path / "runs")
    assert out.returncode == 2
    errors = [line for line in out.stderr.splitlines() if line.startswith("sleuth: error:")]
    assert len(errors) == 1 and "Traceback" not in out.stderr, out.stderr
    assert "exited" in errors[0] and "server.log" in errors[0] and "SLEUTH_LOCAL_SERVER=0" in errors[0]
    assert not (tmp_path / "runs" / "analyses").exists()


def test_a_stale_record_never_signals_another_process_nor_trusts_a_squatter(tmp_path):
    """After a crash or a restart the recorded pid may be anyone's and the old port anyone's:
    neither ``server stop`` nor a command signals that process, and a server answering 200 on
    the old port is not taken for ours."""
    squatter = LoopbackServer(lambda request: (200, {}, b"{}"), methods=("GET",))
    bystander = subprocess.Popen(["sleep", "1000"])
    home, folder = tmp_path / "prefect", tmp_path / "prefect" / "sleuth-server"
    folder.mkdir(parents=True)
    env = _env(home, "1")
    stale = {"pid": bystander.pid, "started": time.time(), "idle_s": 60.0}
    try:
        for record in (
            {"url": "http://127.0.0.1:1"},  # an older version's record: no start time, no nonce
            {
                "url": squatter.url,
                "start_ticks": start_ticks(bystander.pid),
                "nonce": "forged",
            },  # the pid's real start time, a squatter on the port
        ):
            (folder / "server.json").write_text(json.dumps(stale | record))
            stop = _sleuth_server("stop", env)
            assert stop.returncode == 0 and "no local Prefect server running" in stop.stdout, stop
            assert bystander.poll() is None, "server stop signalled a process that is not the server"
            assert not (folder / "server.json").exists()

        (folder / "server.json").write_text(json.dumps(stale | record))
        out = _analyze_sample(env, tmp_path / "runs")
        assert out.returncode == 0, out.stderr
        assert bystander.poll() is None, "a command signalled a process that is not the server"
        info = json.loads((folder / "server.json").read_text())
        assert info["pid"] != bystander.pid and info["url"] != record["url"]
        assert httpx.get(info["url"] + local_server.IDENTITY_PATH, timeout=10).text == info["nonce"]
    finally:
        bystander.kill()
        bystander.wait()
        squatter.close()
        local_server.stop(folder)


def test_a_server_that_dies_mid_command_stops_it_with_one_line(tmp_path):
    """The local server killed while an analyze runs: the command ends within seconds with one
    line naming the server's log, instead of retrying a dead server for minutes."""
    rows = [json.loads(x) for x in (SAMPLES / "responses.jsonl").read_text().splitlines()]
    big = tmp_path / "big.jsonl"
    big.write_text(
        "".join(
            json.dumps({**r, "query_id": f"{r['query_id']}-{i}", "response": f"{r['response']} Variant {i}."})
            + "\n"
            for i in range(600)
            for r in rows
        )
    )
    home, folder = tmp_path / "prefect", tmp_path / "prefect" / "sleuth-server"
    command = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "flows.cli",
            "analyze",
            str(big),
            "--ground-truth",
            str(SAMPLES / "pages.jsonl"),
        ]
        + ["--data-dir", str(tmp_path / "runs")],
        env=_env(home, "5"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert _wait_until(lambda: (folder / "server.json").exists(), 180), command.communicate()
        time.sleep(4)  # the flow is running
        assert command.poll() is None, "the analyze ended before the server could be killed: make it bigger"
        os.kill(json.loads((folder / "server.json").read_text())["pid"], 9)
        killed = time.monotonic()
        out, err = command.communicate(timeout=60)
        assert time.monotonic() - killed < 30
    finally:
        command.kill()
        local_server.stop(folder)
    assert command.returncode == local_server.LOST_SERVER_STATUS, err
    errors = [line for line in err.splitlines() if line.startswith("sleuth: error:")]
    assert len(errors) == 1 and "server.log" in errors[0] and "Traceback" not in err, err
    assert len(err) < 2000, err
    assert not (tmp_path / "runs" / "analyses").exists()


def test_a_command_stopped_while_holding_the_lock_makes_others_say_so_not_hang(tmp_path, monkeypatch, capsys):
    """A command stopped with Ctrl-Z while it starts the server holds the lock: another command
    says what it waits for, then gives up with one line naming the lock."""
    import signal

    from flows import _process

    folder = tmp_path / "state"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from pathlib import Path; from flows._process import locked; import time\n"
            f"with locked(Path({str(folder)!r})):\n    print('held', flush=True); time.sleep(600)",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        holder.send_signal(signal.SIGSTOP)  # as Ctrl-Z does
        monkeypatch.setattr(_process, "LOCK_NOTICE_S", 0.2)
        t0 = time.monotonic()
        with pytest.raises(_process.LockTimeout, match=r"server\.lock .*Ctrl-Z"):
            with _process.locked(folder, wait_s=1.5):
                pass
        assert time.monotonic() - t0 < 10
        assert "waiting for another command" in capsys.readouterr().err
    finally:
        holder.kill()
        holder.wait()
    with _process.locked(folder, wait_s=1.0) as held:  # free again once that process is gone
        assert held
