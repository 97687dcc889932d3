"""research, research-batch and feedback: the research agent and a person's verdict on its reports."""

from __future__ import annotations

import argparse
import sys

from .options import add_lm, add_run_outputs, add_task_runner, command
from .output import print_paths, print_result, print_table


def _research_options(args: argparse.Namespace):
    from modules.lm import LMSettings
    from modules.research import ResearchOptions

    given = {
        "search": args.search,
        "corpus": args.corpus,
        "lm": LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context),
        "max_steps": args.max_steps,
        "max_seconds": args.max_seconds,
        "max_tokens": args.max_tokens,
        "programs": args.programs,
        "web": args.web or None,
    }
    return ResearchOptions(**{k: v for k, v in given.items() if v is not None})


def _add_research_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--search",
        choices=["local", "duckduckgo", "google", "searxng", "serper", "auto"],
        help="search engine (default local: the offline corpus); auto = the configured order, alternated",
    )
    p.add_argument(
        "--corpus",
        metavar="PATH",
        help="local corpus, JSONL/Parquet of {url, title, text} (default $SLEUTH_CORPUS or the sample)",
    )
    add_lm(
        p, "compiled programs (default modules/compiled): the newest per node runs with an LM", context=True
    )
    p.add_argument(
        "--web",
        action="store_true",
        help="the offline web: the local corpus served as linked pages on 127.0.0.1; search gives "
        "snippets only and the Analyzer reads the pages the Decision node crawls",
    )
    p.add_argument("--max-steps", type=int, help="decision steps per question (default 8)")
    p.add_argument("--max-seconds", type=float, help="wall-clock limit per question (default 300)")
    p.add_argument("--max-tokens", type=int, help="LM token budget per question (default 200000)")
    add_run_outputs(p)
    p.add_argument("--no-input", action="store_true", help="do not ask for feedback at the end")


def _print_research(result) -> None:
    from modules.research import report_text

    for report in result.reports:
        print(report_text(report) + "\n")
    parent = getattr(result, "parent_run_id", None)
    print(f"run {result.run_id}" + (f" (re-opened from {parent})" if parent else "") + " written to:")
    print_paths(result.paths, width=9)


def _ask_feedback(run_id: str, args: argparse.Namespace, options) -> None:
    """At a terminal: accept, reject or add information; the last two re-open the thread."""
    from flows.research import research_feedback
    from flows.runtime import local_run_settings

    while True:
        try:
            choice = (
                input("\nAccept this report? [a]ccept / [r]eject / a[d]d information / [q]uit: ")
                .strip()
                .lower()
            )
        except EOFError:
            return
        verdict = {
            "a": "accept",
            "accept": "accept",
            "r": "reject",
            "reject": "reject",
            "d": "add",
            "add": "add",
        }.get(choice)
        if verdict is None:
            return
        text = ""
        if verdict != "accept":
            text = input(
                "What is wrong with it?  "
                if verdict == "reject"
                else "What should the research know or consider?  "
            ).strip()
            if not text:
                print("sleuth: feedback needs a text; nothing done")
                continue
        with local_run_settings():
            result = research_feedback(run_id, verdict, text, options=options, data_dir=args.data_dir)
        if verdict == "accept":
            print(f"accepted; recorded in {result.paths['feedback']}")
            return
        _print_research(result)
        run_id = result.run_id


def cmd_research(args: argparse.Namespace) -> int:
    """research a question: search, read, analyse, report (Prefect flow)

    Run the research agent on one question and print its report; tables reports, steps, sources
    and memory go under the run id.
    """
    from flows.research import research
    from flows.runtime import local_run_settings

    if not args.question.strip():
        raise ValueError("the question is empty")
    options = _research_options(args)
    options.engines()  # an unknown engine fails before any flow starts
    with local_run_settings():
        result = research(
            args.question,
            options=options,
            run_id=args.run_id,
            data_dir=args.data_dir,
            question_id=args.question_id,
        )
    print_result(result, args.json, _print_research)
    if not (args.no_input or args.json) and sys.stdin.isatty():
        _ask_feedback(result.run_id, args, options)
    return 0


def cmd_research_batch(args: argparse.Namespace) -> int:
    """research every question of a JSONL file, one thread each

    Lines are {"id": ..., "question": ...}; one run, one report per question.
    """
    from flows.research import research_batch
    from flows.runtime import local_run_settings, task_runner_for
    from modules.research import load_questions

    questions = load_questions(args.file)
    options = _research_options(args)
    options.engines()
    flow = research_batch.with_options(task_runner=task_runner_for(args.task_runner, args.concurrency))
    with local_run_settings():
        result = flow(
            questions, options=options, run_id=args.run_id, data_dir=args.data_dir, input_label=args.file
        )
    print_result(result, args.json, _print_research_batch)
    return 0


def _print_research_batch(result) -> None:
    rows = [
        [
            r["question_id"],
            r["status"],
            f"{r['confidence']:.2f}",
            (r.get("short_answer") or "-")[:40],
            r["question"][:70],
        ]
        for r in result.reports
    ]
    print_table(["question", "status", "conf", "short answer", "asked"], rows)
    print(f"\nrun {result.run_id}: {len(result.reports)} questions; tables under {result.data_dir}")


def cmd_feedback(args: argparse.Namespace) -> int:
    """accept a research report, or re-open it with a rejection or new information

    --reject and --add re-open the run's threads as a child run (parent_run_id) that reuses their
    memory and treats the feedback as constraints.
    """
    from flows.research import research_feedback
    from flows.runtime import local_run_settings

    verdict, text = (
        ("accept", "")
        if args.accept
        else ("reject", args.reject)
        if args.reject is not None
        else ("add", args.add)
    )
    options = _research_options(args)
    with local_run_settings():
        result = research_feedback(
            args.run_id_to_reopen,
            verdict,
            text,
            options=options,
            run_id=args.run_id,
            data_dir=args.data_dir,
            question_ids=args.question_id or None,
        )
    if verdict == "accept" and not args.json:
        print(f"accepted run {args.run_id_to_reopen}; recorded in {result.paths['feedback']}")
        return 0
    print_result(result, args.json, _print_research)
    return 0


def register(sub) -> None:
    p = command(sub, "research", cmd_research)
    p.add_argument("question", metavar="QUESTION")
    p.add_argument("--question-id", default="q1", help="id of the question in the tables (default q1)")
    _add_research_options(p)

    p = command(sub, "research-batch", cmd_research_batch)
    p.add_argument("file", metavar="FILE", help="JSONL of {id, question}")
    _add_research_options(p)
    p.add_argument("--concurrency", type=int, default=2, help="threads researched at once (default 2)")
    add_task_runner(p)

    p = command(sub, "feedback", cmd_feedback)
    p.add_argument("run_id_to_reopen", metavar="RUN_ID", help="the research run the feedback is about")
    verdict = p.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--accept", action="store_true", help="accept the report")
    verdict.add_argument("--reject", metavar="TEXT", help="reject it, saying what is wrong")
    verdict.add_argument("--add", metavar="TEXT", help="add information or a constraint")
    p.add_argument("--question-id", action="append", help="only this question of a batch run; repeatable")
    _add_research_options(p)
