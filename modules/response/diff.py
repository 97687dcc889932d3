"""What changed per answer between two runs: the claim verdicts, the wrong facts, whether the
answer names the site and whether it cites it. A summary's delta says that a rate moved; this
says which answers moved it, with the claim and the evidence (``sleuth diff``).

Answers are matched by (domain, query, provider, model, sample), the sample being which ask of
the query it was (1 when the run asked once, so a run of ``--samples 5`` matches a run that
asked once on its first samples); with several answers to one such key, the first of each run
is compared.
"""

from __future__ import annotations

import json

import polars as pl

from .tables import names_site

KEY = ("domain", "query_id", "provider", "model", "sample")


def diff_runs(before: pl.DataFrame, after: pl.DataFrame) -> dict:
    """{"matched": n, "changed": [answer with its changes], "only_before": [key], "only_after": [key]}."""
    old, new = _by_key(before), _by_key(after)
    changed = []
    for key in sorted(old.keys() & new.keys(), key=lambda k: tuple(v or "" for v in k)):
        changes = answer_changes(old[key], new[key])
        if changes:
            changed.append({**dict(zip(KEY, key)), "changes": changes})
    return {
        "matched": len(old.keys() & new.keys()),
        "changed": changed,
        "only_before": [dict(zip(KEY, k)) for k in sorted(old.keys() - new.keys(), key=str)],
        "only_after": [dict(zip(KEY, k)) for k in sorted(new.keys() - old.keys(), key=str)],
    }


def answer_changes(before: dict, after: dict) -> list[dict]:
    """The changes of one answer: each claim whose verdict changed (with the claim and the later
    run's evidence), each wrong fact that appeared or went, and a change of named or cited."""
    changes = []
    was, now = _claims(before), _claims(after)
    for claim_id in sorted(was.keys() | now.keys()):
        (v0, text0, _), (v1, text1, evidence) = (
            was.get(claim_id, (None, None, None)),
            now.get(claim_id, (None, None, None)),
        )
        if v0 != v1:
            changes.append(
                {"what": "verdict", "claim": text1 or text0, "before": v0, "after": v1, "evidence": evidence}
            )
    wrong0, wrong1 = _wrong_facts(before), _wrong_facts(after)
    for statement, detail in wrong1.items():
        if statement not in wrong0:
            changes.append(
                {"what": "wrong fact", "change": "new", "statement": statement, "evidence": detail}
            )
    for statement, detail in wrong0.items():
        if statement not in wrong1:
            changes.append(
                {"what": "wrong fact", "change": "gone", "statement": statement, "evidence": detail}
            )
    for what, test in (("named", names_site), ("cited", lambda r: bool(r.get("site_cited")))):
        if test(before) != test(after):
            changes.append({"what": what, "before": test(before), "after": test(after)})
    return changes


def _by_key(analyses: pl.DataFrame) -> dict[tuple, dict]:
    rows: dict[tuple, dict] = {}
    if analyses.is_empty():
        return rows
    for row in analyses.filter(pl.col("status") != "error").to_dicts():
        rows.setdefault(tuple(row.get(k) for k in KEY[:-1]) + (row.get("sample") or 1,), row)
    return rows


def _feedback(row: dict) -> dict:
    return json.loads(row.get("result_json") or "{}").get("feedback") or {}


def _claims(row: dict) -> dict[str, tuple[str, str, str | None]]:
    """Each expected claim's (verdict, text, evidence) by claim id."""
    claims = _feedback(row).get("claims") or {}
    out = {}
    for verdict in ("missing", "found", "contradicted"):
        for c in claims.get(verdict) or []:
            claim = c.get("claim") or {}
            evidence = c.get("evidence") if verdict != "missing" else None
            out[claim.get("id")] = (verdict, claim.get("text"), evidence)
    return out


def _wrong_facts(row: dict) -> dict[str, str]:
    return {
        w["statement"]: w.get("detail") or w.get("evidence")
        for w in _feedback(row).get("contradictions") or []
    }


__all__ = ["KEY", "answer_changes", "diff_runs"]
