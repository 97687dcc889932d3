"""queries generate, check and approve: query sets drafted from a site's pages and reviewed by a person."""

from __future__ import annotations

import argparse

from .options import add_lm, command


def cmd_queries_generate(args: argparse.Namespace) -> int:
    """draft a query set from a site's pages, for a person to review

    Questions a user would ask an assistant about the site, with expected answers and claims taken
    from the pages; written with review: draft.
    """
    from modules.lm import LMSettings
    from modules.queries import draft_query_set, write_drafts
    from modules.response import load_pages

    settings = LMSettings.from_env(args.lm, args.lm_base_url, args.lm_context)
    drafts = draft_query_set(
        load_pages(args.ground_truth),
        args.domain,
        n=args.n,
        query_set_id=args.query_set_id,
        lm=settings.build(),
        lm_context=settings.context_tokens,
    )
    if not drafts.queries:
        raise ValueError(f"no queries could be drafted from the pages of {args.domain}")
    out = write_drafts(drafts.queries, args.out, force=args.force)
    for q in drafts.queries:
        print(
            f"- [{q.query_id}] {q.query}\n    expected: {q.expected_answer}\n    claims: "
            + "; ".join(f"({c.importance}) {c.text}" for c in q.claims)
        )
    for note in drafts.notes:
        print(f"note: {note}")
    print(
        f"\n{len(drafts.queries)} draft queries written to {out} (review: draft).\nReview and edit them, then "
        f"`sleuth queries approve {out}`; collect and monitor refuse unreviewed drafts."
    )
    return 0


def cmd_queries_check(args: argparse.Namespace) -> int:
    """validate a query set and print its version

    Exit status 2 lists every problem by line.
    """
    from modules.queries import load_query_set

    qs = load_query_set(args.file)
    print(
        f"{args.file}: query set {qs.query_set_id!r}, {len(qs.queries)} queries, {len(qs.drafts)} drafts, "
        f"domains {', '.join(qs.domains)}, version {qs.version}"
    )
    rivals = ", ".join(c.name for c in qs.competitors)
    print(f"competitors: {rivals}" if rivals else "competitors: none (add them for share of voice)")
    return 0


def cmd_queries_approve(args: argparse.Namespace) -> int:
    """mark reviewed draft queries approved

    Run this after reviewing (and editing) the drafts; rewrites the file.
    """
    from modules.queries import approve_queries

    approval = approve_queries(args.file, args.query_id)
    print(f"{args.file}: {approval.approved} drafts approved, {approval.still_drafts} still drafts")
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "queries",
        help="draft, check and approve query sets",
        description="Query sets are JSONL/Parquet rows {query_set_id, query_id, query, domain, "
        "expected_answer, claims [{id, text, importance}], brand_names, review?, source_urls?, "
        "competitors? [{name, domains, brand_names}]}.",
    )
    qsub = p.add_subparsers(dest="queries_command", required=True, metavar="SUBCOMMAND")
    q = command(qsub, "generate", cmd_queries_generate)
    q.add_argument("--ground-truth", required=True, metavar="PAGES", help="the site's pages (as for analyze)")
    q.add_argument("--domain", required=True, help="the site's domain (its subdomains' pages count too)")
    q.add_argument("--n", type=int, default=20, help="how many queries (default 20)")
    q.add_argument("--query-set-id", help="default <domain>-<date>")
    q.add_argument("--out", metavar="FILE", help="default datasets/query_sets/<query_set_id>.jsonl")
    q.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    add_lm(q, context=True)
    command(qsub, "check", cmd_queries_check).add_argument("file", metavar="FILE")
    q = command(qsub, "approve", cmd_queries_approve)
    q.add_argument("file", metavar="FILE")
    q.add_argument("--query-id", action="append", help="approve only this query; repeatable (default all)")
