"""How a command is declared: its parser from its handler's docstring, and the options that several
commands share, each declared once with one help text."""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable

TASK_RUNNER_METAVAR = "thread|dask|dask://HOST:PORT"


def command(sub, name: str, func: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
    """The subcommand ``name`` of ``sub``, run by ``func``: its help line (in the parent's list of
    commands) is the first paragraph of ``func``'s docstring, its description (``--help``) the
    rest, so that what a command says it does stands beside the code that does it. White space is
    folded, as argparse's formatter folds it anyway."""
    summary, _, details = inspect.cleandoc(func.__doc__ or "").partition("\n\n")
    p = sub.add_parser(name, help=" ".join(summary.split()), description=" ".join(details.split()) or None)
    p.set_defaults(func=func)
    return p


def count(text: str) -> int:
    """An argparse type: a whole number >= 1 (refused before any run starts)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_service_action(p: argparse.ArgumentParser) -> None:
    """The optional ACTION of a command that looks after a background server: status (default),
    start or stop."""
    p.add_argument("action", nargs="?", choices=["status", "start", "stop"], default="status")


def add_run_id(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run-id", help="id of the new run (default: UTC timestamp + random suffix)")


def add_data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        help="where the runs' tables are (default $SLEUTH_DATA_DIR or datasets/runs; s3://... works)",
    )


def add_json(p: argparse.ArgumentParser, help: str = "print the result as JSON") -> None:
    p.add_argument("--json", action="store_true", help=help)


def add_run_outputs(p: argparse.ArgumentParser) -> None:
    """--run-id, --data-dir and --json: every command that writes a run."""
    add_run_id(p)
    add_data_dir(p)
    add_json(p)


def add_task_runner(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--task-runner",
        default="thread",
        metavar=TASK_RUNNER_METAVAR,
        help="where tasks run (default thread)",
    )


def add_lm(p: argparse.ArgumentParser, programs_help: str | None = None, context: bool = False) -> None:
    """--lm and --lm-base-url (and --programs on the commands that run compiled DSPy programs,
    --lm-context on those whose prompts are fitted to the model's window)."""
    p.add_argument(
        "--lm",
        metavar="MODEL",
        help="DSPy/LiteLLM model, e.g. openai/gpt-4o-mini, or local: the local model (sleuth lm), "
        "started if need be (default $SLEUTH_LM; none: the offline baseline)",
    )
    p.add_argument(
        "--lm-base-url",
        metavar="URL",
        help="OpenAI-compatible server (llama.cpp, vLLM, Ollama); default $SLEUTH_LM_BASE_URL",
    )
    p.add_argument(
        "--lm-timeout",
        type=float,
        metavar="SECONDS",
        help="seconds each LM request may take (default $SLEUTH_LM_TIMEOUT, else 60; 600 with --lm local)",
    )
    if context:
        p.add_argument(
            "--lm-context",
            type=int,
            metavar="TOKENS",
            help="the model's context window: every node's prompt and reply fit in it "
            "(default $SLEUTH_LM_CONTEXT or 8192)",
        )
    if programs_help:
        p.add_argument("--programs", metavar="DIR", help=programs_help)
