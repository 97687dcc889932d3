"""The ``sleuth`` command. Each subcommand parses options and calls a flow or a module; nothing else.

One module per command area registers its subcommands, each with the help its handler's docstring
gives; ``options`` declares the commands and the options they share, ``output`` how results are
printed. Flows are imported inside the command handlers, so
that ``sleuth --help`` answers without importing Prefect, DSPy or torch.
"""

from __future__ import annotations

import argparse
import atexit
import logging
import os
import sys
from pathlib import Path

from . import analysis, completion, lm, optimize, queries, rerank, research, runs, server, verdicts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sleuth", description="Evidence-based research and AI-answer auditing."
    )
    parser.add_argument(
        "--debug", action="store_true", help="show full tracebacks for input and option errors"
    )
    parser.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    analysis.register(sub)  # analyze, reanalyze
    research.register(sub)  # research, research-batch, feedback
    rerank.register(sub)  # rerank, rerank-batch
    optimize.register(sub)  # eval, optimize
    queries.register(sub)  # queries generate|check|approve
    analysis.register_collection(sub)  # collect, monitor
    runs.register(sub)  # report, diff, runs
    verdicts.register(sub)  # verdicts override|export
    server.register(sub)  # server status|start|stop
    lm.register(sub)  # lm status|start|stop
    completion.register(sub)  # completion bash|zsh
    _add_verbose(sub)
    return parser


VERBOSE_HELP = (
    "show Prefect's and the libraries' logs and progress bars in the terminal "
    "(default: they go to the Prefect run and <data-dir>/logs/sleuth.log; warnings are counted at the end)"
)


def _add_verbose(sub) -> None:
    """``--verbose`` after any command too (``sleuth analyze ... --verbose``), on every leaf parser."""
    for p in dict.fromkeys(sub.choices.values()):
        nested = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if nested:
            _add_verbose(nested[0])
        else:
            p.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP)


def log_file_path(data_dir: str | None) -> Path | None:
    """``<data dir>/logs/sleuth.log`` for a local data dir; None for a bucket (the Prefect run
    keeps the logs)."""
    from modules.store import resolve_data_dir

    root = resolve_data_dir(data_dir)
    return None if "://" in root else Path(root) / "logs" / "sleuth.log"


_OWN_CODE = tuple(str(Path(__file__).resolve().parents[2] / d) + os.sep for d in ("flows", "modules"))


def _describes_input(exc: BaseException) -> bool:
    """Errors libraries raise about the input they were given to parse: the user's to fix."""
    import json
    import tomllib

    if isinstance(exc, (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeError)):
        return True
    return type(exc).__name__ == "ValidationError" and type(exc).__module__.startswith("pydantic")


def _raised_by_sleuth(exc: BaseException) -> bool:
    """The error was raised by sleuth's own code (a check of the input, the options, the data
    dir: the user's to fix), not by a library it called (a bug to report). Told by where it was
    raised: the innermost frame of its traceback, wherever it was re-raised since (a task's
    error is re-raised by the flow); one raised by ``open`` and the like counts as the caller's."""
    tb = exc.__traceback__
    if tb is None or _describes_input(exc):
        return True
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(_OWN_CODE)


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not os.environ.get(
        "PREFECT_API_URL"
    ):  # offline by default: the local server and client send no telemetry
        os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
        os.environ.setdefault("DO_NOT_TRACK", "1")  # (and a terminal gets no telemetry notice)
    args = build_parser().parse_args(argv)
    try:  # first, before Prefect's and the libraries' imports: a missing key is one line at once
        lm.resolve_lm_options(args)
    except ValueError as exc:
        if args.debug:
            raise
        print(f"sleuth: error: {exc}", file=sys.stderr)
        return 2
    from .output import set_terminal

    set_terminal(args.verbose, log_file_path(getattr(args, "data_dir", None)))
    from flows.progress import show_in_terminal

    # bars on a terminal; plain lines when piped, under --json or among --verbose's log lines
    tty = sys.stderr.isatty() and not getattr(args, "json", False) and not args.verbose
    show_in_terminal("rich" if tty else "plain")
    if not args.debug:
        from flows.runtime import quiet_user_errors

        quiet_user_errors()
    from flows.local_server import LocalServerError

    from .output import EscapedStream

    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = EscapedStream(stdout), EscapedStream(stderr)  # no control sequence from data
    try:
        try:
            status = args.func(args)
        except (ValueError, FileNotFoundError, FileExistsError, LocalServerError) as exc:
            if args.debug:
                raise
            if not _raised_by_sleuth(exc):  # a library's ValueError deep inside: a bug, not the input
                print(
                    f"sleuth: internal error: {type(exc).__name__}: {str(exc)[:300]} "
                    "(sleuth --debug shows where; please report it)",
                    file=sys.stderr,
                )
                return 1
            print(f"sleuth: error: {exc}", file=sys.stderr)  # the one line: no warning summary after it
            return 2
        if not args.verbose:
            from .output import print_warning_summary

            print_warning_summary()
        return status
    finally:
        sys.stdout.flush()
        sys.stdout, sys.stderr = stdout, stderr


_exit_status: list[int] = []


def run(argv: list[str] | None = None) -> int:
    """The ``sleuth`` console script: :func:`main`, then, after a normal return, exit without
    Python's interpreter teardown (~1.5 s of freeing torch's and Prefect's modules once the output
    is printed). Threads are joined and the other exit handlers run first, as always (this one is
    registered when this package is imported, before Prefect's, so it runs last); an exception
    exits the ordinary way."""
    try:
        status = main(argv)
    except BrokenPipeError:  # the reader left (`sleuth ... | head`): stop quietly, as a pipe's writer does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    _exit_status.append(status)
    return status


def _exit_now() -> None:
    if not _exit_status:
        return
    logging.shutdown()  # registered before this handler (at import): it would run after it
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(_exit_status[0])


atexit.register(_exit_now)


__all__ = ["build_parser", "main", "run"]
