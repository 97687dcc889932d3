"""An LM or provider that cannot answer is one error line, exit 2, before any work: checked
against a loopback OpenAI-compatible server (listing, refused key, unknown model), a closed port,
and every command that takes ``--lm`` or ``--provider`` run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from modules.lm_check import LMUnavailableError, check

ROOT = Path(__file__).resolve().parents[1]


class _Models(BaseHTTPRequestHandler):
    key: str | None = None

    def do_GET(self):  # noqa: N802
        if self.path != "/v1/models":
            self.send_response(404)
            self.end_headers()
            return
        if self.key and self.headers.get("Authorization") != f"Bearer {self.key}":
            self.send_response(401)
            self.end_headers()
            return
        body = json.dumps({"object": "list", "data": [{"id": "served-model", "aliases": ["alias-1"]}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    _Models.key = None
    httpd.shutdown()


def _url(httpd) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/v1"


def test_a_served_model_passes_by_name_or_alias(server):
    check("openai/served-model", _url(server))
    check("openai/alias-1", _url(server))


def test_a_model_the_server_does_not_serve_is_named_with_what_it_serves(server):
    with pytest.raises(
        LMUnavailableError, match=r"does not serve 'other' \(it serves: alias-1, served-model\)"
    ):
        check("openai/other", _url(server))


def test_a_refused_key_names_the_variable(server, monkeypatch):
    _Models.key = "right"
    monkeypatch.setenv("SLEUTH_LM_API_KEY", "wrong")
    with pytest.raises(LMUnavailableError, match=r"refused the key \(HTTP 401\): check SLEUTH_LM_API_KEY"):
        check("openai/served-model", _url(server))
    monkeypatch.setenv("SLEUTH_LM_API_KEY", "right")
    check("openai/served-model", _url(server))


def test_a_server_without_a_listing_passes(server):
    check("openai/anything", _url(server).removesuffix("/v1") + "/elsewhere")


def test_a_closed_port_says_it_cannot_reach_the_url():
    import socket

    with socket.socket() as s:  # a port that nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(
        LMUnavailableError, match=rf"cannot reach http://127.0.0.1:{port}/v1/models .*sleuth lm start"
    ):
        check("openai/m", f"http://127.0.0.1:{port}/v1")


def test_missing_keys_name_the_providers_variable(monkeypatch):
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "MY_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LMUnavailableError, match="no API key: set OPENAI_API_KEY"):
        check("openai/gpt-4o-mini")
    with pytest.raises(LMUnavailableError, match="no API key: set ANTHROPIC_API_KEY"):
        check("anthropic/claude-sonnet-4-5")
    with pytest.raises(LMUnavailableError, match="no API key: set MY_KEY"):
        check("openai/gpt-4o-mini", key_env="MY_KEY", what="--provider")


def test_an_unknown_provider_is_refused_by_litellms_rule(monkeypatch):
    with pytest.raises(LMUnavailableError, match="not a model LiteLLM knows"):
        check("nosuchprovider/model")
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    with pytest.raises(LMUnavailableError, match="set COHERE_API_KEY"):
        check("cohere/command-r")


#: Every command that takes --lm (or --provider), with arguments argparse accepts; the check
#: runs before any of them is read.
COMMANDS = {
    "analyze": ["analyze", "responses.jsonl", "--ground-truth", "pages.jsonl"],
    "reanalyze": ["reanalyze", "RUN", "--ground-truth", "pages.jsonl"],
    "research": ["research", "who wrote it?"],
    "research-batch": ["research-batch", "questions.jsonl"],
    "feedback": ["feedback", "RUN", "--accept"],
    "rerank": ["rerank", "--query", "q", "--results", "results.json"],
    "rerank-batch": ["rerank-batch", "in.jsonl", "--out", "out.jsonl"],
    "eval": ["eval", "analyzer"],
    "optimize": ["optimize", "judge"],
    "queries generate": ["queries", "generate", "--ground-truth", "pages.jsonl", "--domain", "a.com"],
    "monitor": ["monitor", "queries.jsonl"],
}
_PROBE = (
    "import sys; from flows.cli import main; rc = main(sys.argv[1:]); "
    "heavy = [m for m in ('prefect', 'dspy', 'torch', 'litellm') if m in sys.modules]; "
    "print(rc, ','.join(heavy) or '-')"
)


def _run(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("SLEUTH_LM")
    }
    env["SLEUTH_DATA_DIR"] = str(tmp_path / "runs")
    return subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_lm_command_stops_on_a_missing_key_before_any_work(command, tmp_path):
    done = _run([*COMMANDS[command], "--lm", "openai/gpt-4o-mini"], tmp_path)
    assert done.stderr.strip().splitlines() == [
        "sleuth: error: --lm openai/gpt-4o-mini: no API key: set OPENAI_API_KEY (or use the local model: --lm local)"
    ]
    assert done.stdout.split() == ["2", "-"]  # exit 2; neither Prefect, DSPy, torch nor LiteLLM imported
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("command", ["collect", "monitor"])
def test_a_provider_without_its_key_stops_collection_before_any_call(command, tmp_path):
    done = _run([command, "queries.jsonl", "--provider", "openai/gpt-4o-mini"], tmp_path)
    assert (
        done.stderr.strip() == "sleuth: error: --provider openai/gpt-4o-mini: no API key: set OPENAI_API_KEY"
    )
    assert done.stdout.split() == ["2", "-"]


def test_an_unreachable_base_url_stops_the_command(tmp_path):
    done = _run(
        [*COMMANDS["research"], "--lm", "openai/m", "--lm-base-url", "http://127.0.0.1:9/v1"], tmp_path
    )
    assert done.stdout.split() == ["2", "-"]
    assert "cannot reach http://127.0.0.1:9/v1/models" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_lm_timeout_sets_every_lm_request_of_the_command(monkeypatch, capsys):
    from flows.cli import build_parser, main
    from flows.cli.lm import resolve_lm_options
    from modules.lm import default_timeout

    monkeypatch.delenv("SLEUTH_LM_TIMEOUT", raising=False)
    for command in (
        ["analyze", "x.jsonl", "--ground-truth", "p.jsonl"],
        ["research", "q"],
        ["rerank-batch", "i", "--out", "o"],
    ):
        args = build_parser().parse_args([*command, "--lm-timeout", "240"])
        resolve_lm_options(args)
        assert default_timeout() == 240.0
        monkeypatch.delenv("SLEUTH_LM_TIMEOUT")
    assert main(["research", "q", "--lm-timeout", "0"]) == 2
    assert "--lm-timeout must be a number of seconds > 0" in capsys.readouterr().err


def test_fallbacks_are_counted_by_their_true_reason():
    """A slow local model's judge timed out and the warning blamed its output: a timeout, a
    dropped connection and a claim left without a verdict are each named for what they are."""
    import socket

    import dspy

    from modules.lm import LMSettings, NodeRunner
    from modules.testing import FakeLM

    slow = FakeLM(mode="slow", delay_s=3)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens here once the socket is closed
    try:
        for base_url, reason in ((slow.base_url, "timeout"), (f"http://127.0.0.1:{closed}/v1", "transport")):
            runner = LMSettings(model="openai/fake", base_url=base_url, timeout_s=1, retries=0).runner()
            call = runner.run(
                dspy.Predict("question -> answer"),
                {"question": "q"},
                "answer",
                lambda: "baseline",
                node="report",
            )
            assert call.fallback and call.output == "baseline", call
            assert runner.calls()["fallback_reasons"] == {reason: 1}, (call.error, runner.calls())
    finally:
        slow.close()

    def no_verdict(**_):
        raise ValueError("the LM gave no verdict for claim(s) price")

    runner = NodeRunner(lm=dspy.utils.DummyLM([{"answer": "x"}]), retries=0)
    runner.run(no_verdict, {}, "out", lambda: None, node="judge")
    assert runner.calls()["fallback_reasons"] == {"missing claim": 1}
