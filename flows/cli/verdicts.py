"""verdicts override and export: an analyst's corrections of the judge's verdicts, and the
labeled examples they make."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path

from .options import add_data_dir, add_json, add_run_id, command
from .output import print_paths, print_result


def cmd_verdicts_override(args: argparse.Namespace) -> int:
    """record an analyst's verdict on an answer's claim or wrong fact (Prefect flow)

    The verdict overrules the judge's wherever the same answer is scored again: `sleuth reanalyze
    RUN_ID` applies it, and so do later analyze and monitor runs that meet the answer. A claim
    takes found, missing or contradicted; a wrong fact (words of the answer) wrong or not_wrong.
    --file reads one correction per JSONL line, {answer, claim | wrong_fact, verdict, note?,
    analyst?}: all are checked, and one bad line records none.
    """
    from pydantic import ValidationError

    from flows.runtime import local_run_settings
    from flows.verdicts import record_verdicts
    from modules.response import VerdictOverride

    if args.file:
        if args.answer or args.claim or args.wrong_fact or args.verdict:
            raise ValueError("give corrections either as options or in --file, not both")
        overrides = []
        for n, line in enumerate(Path(args.file).read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    overrides.append(VerdictOverride.model_validate_json(line))
                except ValidationError as exc:
                    raise ValueError(f"{args.file} line {n}: {_first_error(exc)}") from None
    else:
        if not (args.answer and args.verdict):
            raise ValueError("give --answer and --verdict with --claim or --wrong-fact (or --file)")
        fields = {
            "answer": args.answer,
            "claim": args.claim,
            "wrong_fact": args.wrong_fact,
            "verdict": args.verdict,
            "note": args.note,
            "analyst": args.analyst,
        }
        try:
            overrides = [VerdictOverride(**fields)]
        except ValidationError as exc:
            raise ValueError(_first_error(exc)) from None
    with local_run_settings():
        result = record_verdicts(args.target_run_id, overrides, run_id=args.run_id, data_dir=args.data_dir)
    print_result(result, args.json, _print_recorded)
    return 0


def _first_error(exc) -> str:
    """A pydantic error as one line: what is wrong, and where when it is a field."""
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _print_recorded(result) -> None:
    for v in result.verdicts:
        target = f"claim {v['claim_id']}" if v["claim_id"] else f'"{v["wrong_fact"]}"'
        print(
            f"{v['query_id']} ({v['provider'] or '-'}/{v['model'] or '-'}, answer {v['answer_id'][:10]}): "
            f"{target}: {v['previous_verdict'] or '-'} -> {v['verdict']}"
        )
    pages = (
        f" --ground-truth {shlex.quote(result.ground_truth)}"
        if result.ground_truth
        else " --ground-truth PAGES"
    )
    print(
        f"\nrun {result.run_id}: {len(result.verdicts)} analyst verdict(s) on run {result.target_run_id}; "
        f"`sleuth reanalyze {result.target_run_id}{pages}` rescores its answers with them"
    )
    print_paths(result.paths)


def cmd_verdicts_export(args: argparse.Namespace) -> int:
    """write every answer an analyst gave verdicts on as a labeled verdict set

    Writes DIR/verdicts-analyst.jsonl (the judge's verdict-set format) and the pages they are
    judged on, DIR/verdicts-analyst-pages.jsonl: `sleuth eval judge --examples
    DIR/verdicts-analyst.jsonl` measures the judge on them, `sleuth optimize judge --trainset`
    trains on them.
    """
    from modules.response import AnalyzerConfig, verdict_set
    from modules.store import ParquetStore

    rows, pages = verdict_set(ParquetStore(args.data_dir), AnalyzerConfig())
    if not rows:
        raise ValueError(
            "no analyst verdicts recorded yet: `sleuth verdicts override RUN_ID ...` records them"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    examples, page_file = out / "verdicts-analyst.jsonl", out / "verdicts-analyst-pages.jsonl"
    for path, items in ((examples, rows), (page_file, pages)):
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
        tmp.replace(path)
    print(f"{len(rows)} labeled answers: {examples}\n{len(pages)} pages: {page_file}")
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "verdicts",
        help="record an analyst's verdicts on answers; export them as labeled examples",
        description="An analyst's corrections of the judge's claim verdicts and wrong facts.",
    )
    vsub = p.add_subparsers(dest="verdicts_command", required=True, metavar="SUBCOMMAND")
    o = command(vsub, "override", cmd_verdicts_override)
    o.add_argument(
        "target_run_id", metavar="RUN_ID", help="the analyze, reanalyze or monitor run holding the answer"
    )
    o.add_argument(
        "--answer", metavar="ID", help="the answer's id (analyses.id), or its first 6 or more characters"
    )
    o.add_argument("--claim", metavar="CLAIM_ID", help="the claim whose verdict to set")
    o.add_argument(
        "--wrong-fact", metavar="TEXT", help="words of the answer: a wrong fact, or a flagged one that is not"
    )
    o.add_argument(
        "--verdict",
        choices=["found", "missing", "contradicted", "wrong", "not_wrong"],
        help="a claim: found | missing | contradicted; a wrong fact: wrong | not_wrong",
    )
    o.add_argument("--note", help="why (shown in the reports and kept with the example)")
    o.add_argument("--analyst", help="who decided")
    o.add_argument("--file", metavar="JSONL", help="corrections, one per line (instead of the options)")
    add_run_id(o)
    add_json(o)
    add_data_dir(o)

    e = command(vsub, "export", cmd_verdicts_export)
    e.add_argument("--out", required=True, metavar="DIR", help="the folder to write the verdict set into")
    add_data_dir(e)
