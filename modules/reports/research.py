"""Report sections of a research run (``research``, ``research-batch``, ``feedback``)."""

from __future__ import annotations

import re

import polars as pl

from ..store import ParquetStore
from . import plots
from .html import esc, fmt, link, section, table

_CITATION = re.compile(r"\[(\d{1,3})\]")


def _answer_html(answer: str, cited: list[str], anchor: str) -> str:
    """The answer with its ``[n]`` markers linked to the numbered sources below it."""

    def cite(m: re.Match) -> str:
        n = int(m.group(1))
        return f'<a href="#{anchor}-src-{n}">[{n}]</a>' if 1 <= n <= len(cited) else m.group(0)

    return _CITATION.sub(cite, esc(answer))


def thread_section(report: dict, steps: pl.DataFrame, sources: pl.DataFrame, memory: pl.DataFrame) -> str:
    qid = report["question_id"]
    anchor = "q-" + re.sub(r"[^a-z0-9]+", "-", str(qid).lower())
    if report["status"] == "error":
        return section(
            report["question"], f'<p><span class="badge bad">failed</span> {esc(report["error"])}</p>', anchor
        )
    cited = list(report["cited_urls"] or [])
    status_cls = "good" if report["status"] == "answered" else "warn"
    head = (
        f'<p><span class="badge {status_cls}">{esc(report["status"])}</span> stopped: {esc(report["stop_reason"])} '
        f"&middot; confidence {fmt(report['confidence'], 2)} &middot; {fmt(report['duration_s'])} s"
        + (f" &middot; LM {esc(report['lm'])}" if report.get("lm") else " &middot; baseline programs")
        + (
            f" &middot; re-opened from run {esc(report['parent_run_id'])}"
            if report.get("parent_run_id")
            else ""
        )
        + "</p>"
    )
    constraints = "".join(f"<li>{esc(c)}</li>" for c in report.get("constraints") or [])
    body = head + (f"<h3>Constraints from feedback</h3><ul>{constraints}</ul>" if constraints else "")
    body += f'<h3>Answer</h3><div class="answer">{_answer_html(report["answer"] or "", cited, anchor)}</div>'
    body += (
        '<ol class="sources">'
        + "".join(f'<li id="{anchor}-src-{i}">{link(u)}</li>' for i, u in enumerate(cited, 1))
        + "</ol>"
    )
    s = steps.filter(pl.col("question_id") == qid).sort("step")
    queried = {
        r["step"]: (r["query_or_url"] or r["action"] or "")[:28]
        for r in s.filter(pl.col("node") == "tool").to_dicts()
    }
    curve = [
        (r["step"], r["confidence"], queried.get(r["step"], r["action"] or ""))
        for r in s.filter(pl.col("node") == "analyzer").to_dicts()
    ]
    body += "<h3>Research journey</h3>"
    if curve:
        body += "<figure>" + plots.confidence_curve(curve, "confidence after each analysis") + "</figure>"
    body += table(
        s.to_dicts(),
        [
            ("step", "step"),
            ("node", "node"),
            ("action", "action"),
            ("engine", "engine"),
            ("query_or_url", "query / URL"),
            ("outcome", "outcome"),
            ("n_results", "results"),
            ("new_facts", "new facts"),
            ("confidence", "confidence"),
            ("fallback", "fallback"),
            ("tokens", "tokens"),
        ],
    )
    body += f'<p class="muted">{esc(report["journey"])}</p>'
    src = sources.filter(pl.col("question_id") == qid).sort(["step", "rank"])
    body += f"<h3>Sources: {src.filter(pl.col('analyzed')).height} read, {src.filter(pl.col('cited')).height} cited, {src.height} seen</h3>"
    body += table(
        src.filter(pl.col("analyzed") | pl.col("cited")).to_dicts(),
        [
            ("step", "step"),
            ("engine", "engine"),
            ("rank", "rank"),
            ("title", "title"),
            ("url", "url"),
            ("analyzed", "read"),
            ("cited", "cited"),
        ],
    )
    facts = memory.filter(pl.col("question_id") == qid) if not memory.is_empty() else memory
    conflicting = facts.filter(pl.col("status") == "conflicting").to_dicts() if not facts.is_empty() else []
    body += f"<h3>Conflicting facts ({len(conflicting)})</h3>" + table(
        conflicting,
        [("text", "fact"), ("source_url", "source"), ("step", "step"), ("confidence", "confidence")],
    )
    if not facts.is_empty():
        counts = facts.group_by("status").len().sort("status").to_dicts()
        body += (
            '<p class="muted">memory: ' + ", ".join(f"{esc(c['status'])} {c['len']}" for c in counts) + "</p>"
        )
    return section(report["question"], body, anchor)


def research_sections(store: ParquetStore, run_id: str) -> list[str]:
    reports = store.read("reports", run_id).sort("question_id")
    steps, sources, memory = (store.read(t, run_id) for t in ("steps", "sources", "memory"))
    out = []
    if reports.height > 1:
        out.append(
            section(
                "Questions",
                table(
                    reports.to_dicts(),
                    [
                        ("question_id", "id"),
                        ("question", "question"),
                        ("status", "status"),
                        ("confidence", "confidence"),
                        ("stop_reason", "stopped"),
                        ("duration_s", "seconds"),
                    ],
                ),
                "questions",
            )
        )
    out += [thread_section(r, steps, sources, memory) for r in reports.to_dicts()]
    feedback = store.read("feedback", run_id)
    if not feedback.is_empty():
        out.append(
            section(
                "Reviewer feedback",
                table(feedback.to_dicts(), [(c, c) for c in feedback.columns if c not in ("run_id",)]),
                "feedback",
            )
        )
    return out
