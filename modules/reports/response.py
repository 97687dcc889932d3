"""Report sections of a response-analysis run (``analyze``, ``reanalyze``, ``monitor``) and of a
``collect`` run."""

from __future__ import annotations

import json

import polars as pl

from ..response.tables import read_with_trends, trend_baseline
from ..response.triage import answers_to_fix, named_instead
from ..store import ParquetStore
from ..store.runs import RunKind
from . import plots
from .columns import (
    BRAND_COLUMNS,
    COLLECTION_COLUMNS,
    DOMAIN_COLUMNS,
    DOMAIN_NOTE,
    PROVIDER_COLUMNS,
    PROVIDER_NOTE,
    SOURCE_COLUMNS,
    SOURCE_NOTE,
    VERDICT_COLUMNS,
    VISIBILITY_COLUMNS,
    VISIBILITY_NOTE,
    brand_rows,
    collection_rows,
    provider_rows,
    score_parts,
    source_rows,
    verdict_rows,
)
from .html import columns_table, esc, link, marked, section, table, tier

METRICS = plots.METRICS


def _values(analyses: pl.DataFrame, by: str) -> dict[str, dict[str, list[float]]]:
    scored = analyses.filter(pl.col("status") != "error")
    out: dict[str, dict[str, list[float]]] = {}
    for key, group in scored.group_by(by, maintain_order=True):
        name = key[0] if isinstance(key, tuple) else key
        out[str(name)] = {m: [v for v in group[f"{m}_score"].to_list() if v is not None] for m in METRICS}
    return dict(sorted(out.items()))


def _tiers(summaries: list[dict], group_key: str) -> dict[str, dict[str, dict[str, int]]]:
    return {
        str(s[group_key]) + (f" / {s['query_set_id']}" if s.get("query_set_id") else ""): {
            m: {t: s[f"{m}_{t}"] or 0 for t in plots.TIERS} for m in METRICS
        }
        for s in summaries
    }


def summary_section(summaries: list[dict], analyses: pl.DataFrame) -> str:
    body = columns_table(summaries, DOMAIN_COLUMNS)
    body += f'<p class="muted">{esc(DOMAIN_NOTE)} (&Delta; in percentage points; a rise is bad news)</p>'
    body += "<h3>Tiers per domain</h3><figure>" + plots.tier_bars(_tiers(summaries, "domain")) + "</figure>"
    body += (
        "<h3>Score distributions</h3><figure>" + plots.histograms(_values(analyses, "domain")) + "</figure>"
    )
    return section("Per-domain scores", body, "domains")


def trend_section(store: ParquetStore, summaries: list[dict], flow: RunKind) -> str:
    """Each domain's mean scores across the runs that summarised it (this run marked); a
    monitor run's trend is over monitor runs, as its deltas are."""
    history = trend_baseline(store, "summaries", flow)
    figures = []
    for s in summaries:
        same_set = (
            pl.col("query_set_id").is_null()
            if s["query_set_id"] is None
            else pl.col("query_set_id") == s["query_set_id"]
        )
        runs = history.filter((pl.col("domain") == s["domain"]) & same_set).sort("run_at")
        series = {m: list(zip(runs["run_at"].to_list(), runs[f"{m}_mean"].to_list())) for m in METRICS}
        title = f"{s['domain']} / {s['query_set_id'] or 'no query set'}: {runs.height} run(s)"
        figures.append(f"<figure>{plots.trends(series, s['run_at'], title)}</figure>")
        visibility = {
            label: [(t, None if v is None else 100 * v) for t, v in zip(runs["run_at"], runs[c])]
            for c, label in ((v.key, v.label) for v in VISIBILITY_COLUMNS if v.kind == "percent")
            if c in runs.columns
        }
        if any(v is not None for points in visibility.values() for _, v in points):
            figures.append(
                "<figure>"
                + plots.trends(visibility, s["run_at"], f"{title}: visibility", ylabel="% of answers")
                + "</figure>"
            )
    return section("Trends across runs", "".join(figures) or '<p class="muted">(no history)</p>', "trends")


def share_of_voice_section(brands: pl.DataFrame, analyses: pl.DataFrame) -> str:
    """Share of voice per provider (one stacked bar each), each tracked brand's figures, and the
    answers that name a competitor but not the site."""
    rows = brands.to_dicts()
    several = len({(r["domain"], r["query_set_id"]) for r in rows}) > 1
    label = lambda r: (f"{r['domain']} · " if several else "") + f"{r['provider'] or '-'}/{r['model'] or '-'}"  # noqa: E731
    brand = lambda r: f"{r['brand']} (us)" if r["is_site"] else r["brand"]  # noqa: E731
    groups = list(dict.fromkeys(label(r) for r in rows))
    names = list(dict.fromkeys(brand(r) for r in sorted(rows, key=lambda r: not r["is_site"])))
    shares = {n: [None] * len(groups) for n in names}
    for r in rows:
        shares[brand(r)][groups.index(label(r))] = r["share_of_voice"]
    body = (
        "<figure>"
        + plots.share_bars(groups, shares, "share of voice per provider: answers naming each tracked brand")
        + "</figure>"
    )
    body += columns_table(brand_rows(rows), BRAND_COLUMNS)
    body += f'<p class="muted">{esc(VISIBILITY_NOTE)}</p>'
    return section("Share of voice", body + _instead_of_us(analyses), "share-of-voice")


def _instead_of_us(analyses: pl.DataFrame, shown: int = 10) -> str:
    """The answers that name a tracked competitor and not the site (the first ``shown``), with
    each competitor's first mention marked; and how often each competitor is named so."""
    instead = named_instead(analyses)
    counts: dict[str, int] = {}
    items = []
    for r in instead:
        result = json.loads(r["result_json"])
        named = [c for c in result.get("competitors") or [] if c.get("mentioned")]
        for c in named:
            counts[c["name"]] = counts.get(c["name"], 0) + 1
        spans = [
            (c["firstPosition"]["start"], c["firstPosition"]["end"], f"competitor: {c['name']}")
            for c in named
            if c.get("firstPosition")
        ]
        items.append(
            f"<h3>{esc(r['query_id'])}: {esc(result.get('query') or '')}</h3>"
            f"<p>{esc(r['provider'] or '-')}/{esc(r['model'] or '-')} &middot; names "
            + ", ".join(f"<b>{esc(c['name'])}</b>" for c in named)
            + f'</p><div class="response">{marked(result.get("response") or "", spans)}</div>'
        )
    if not instead:
        return '<h3>Competitors named instead of us</h3><p class="muted">(no answer names a competitor without the site)</p>'
    tally = table(
        [{"name": n, "answers": k} for n, k in sorted(counts.items(), key=lambda x: (-x[1], x[0]))],
        [("name", "competitor"), ("answers", "answers naming it, not us")],
    )
    more = (
        f'<p class="muted">and {len(items) - shown} more such answers (analyses rows with '
        "competitors_mentioned &gt; 0 that name the site by no URL, domain or brand)</p>"
        if len(items) > shown
        else ""
    )
    return f"<h3>Competitors named instead of us</h3>{tally}{''.join(items[:shown])}{more}"


def provider_section(providers: list[dict], collections: list[dict]) -> str:
    rows = provider_rows(providers, collections)
    body = columns_table(rows, PROVIDER_COLUMNS)
    body += f'<p class="muted">{esc(PROVIDER_NOTE)}</p>'
    scored = [r for r in rows if not r["failed"]]
    if scored:
        body += (
            "<figure>"
            + plots.grouped_bars(
                [r["who"] for r in scored],
                {m: [r[f"{m}_mean"] for r in scored] for m in METRICS},
                "mean scores per provider",
            )
            + "</figure>"
        )
    rated = [r for r in scored if r.get("correct_mention_rate") is not None]
    if rated:
        body += (
            "<figure>"
            + plots.grouped_bars(
                [r["who"] for r in rated],
                {
                    "mentioned and correct": [100 * r["correct_mention_rate"] for r in rated],
                    "with a wrong fact": [100 * (r.get("wrong_fact_rate") or 0) for r in rated],
                },
                "answers mentioned and correct, and with a wrong fact (% per provider)",
            )
            + "</figure>"
        )
    for c in collections:
        if c["status"] == "failed":
            body += f'<p><span class="badge bad">failed</span> <b>{esc(c["provider"])}/{esc(c["model"])}</b>: {esc(c["error"])}</p>'
    return section("Providers side by side", body, "providers")


def sources_section(sources: list[dict]) -> str:
    body = columns_table(source_rows(sources, top=15), SOURCE_COLUMNS)
    return section(
        "Sources the assistants cite", body + f'<p class="muted">{esc(SOURCE_NOTE)}</p>', "sources"
    )


def collection_section(collections: list[dict]) -> str:
    return section(
        "Collection per provider",
        columns_table(collection_rows(collections), COLLECTION_COLUMNS),
        "collection",
    )


def _answer(row: dict) -> str:
    """One analysed answer: the response with its ground-truth matches marked, claims, mentions."""
    result = json.loads(row["result_json"])
    response = result.get("response") or ""
    fb = result.get("feedback") or {}
    highlights = (fb.get("highlights") or {}).get("highlights") or []
    spans = [
        (
            h["responseRange"]["start"],
            h["responseRange"]["end"],
            f"{h['groundTruthSource']['pageUrl']} (similarity {h['similarity']:.2f}): {h['groundTruthSource']['matchedText'][:200]}",
        )
        for h in highlights
    ]
    wrong = fb.get("contradictions") or []
    spans += [
        (
            w["position"]["start"],
            w["position"]["end"],
            f"wrong fact: {w.get('detail') or w['evidence']}",
            "wrong",
        )
        for w in wrong
    ]
    claims = fb.get("claims") or {}
    found = "".join(
        f'<li>&#10003; {esc(c["claim"]["text"])} <span class="muted">({esc(c["claim"]["importance"])}, '
        f"{c['confidence']:.2f}): &ldquo;{esc(c['evidence'])}&rdquo;</span></li>"
        for c in claims.get("found") or []
    )
    missing = "".join(
        f'<li>&#10007; {esc(c["claim"]["text"])} <span class="muted">({esc(c["importance"])})</span></li>'
        for c in claims.get("missing") or []
    )
    contradicted = "".join(
        f'<li>&#9888; <span class="badge bad">contradicted</span> {esc(c["claim"]["text"])} <span class="muted">'
        f"({esc(c['claim']['importance'])}): &ldquo;{esc(c['statement'])}&rdquo; &middot; {esc(c['evidence'])}</span></li>"
        for c in claims.get("contradicted") or []
    )
    unsupported = "".join(
        f'<li>{esc(u["statement"])} <span class="muted">(best match {u["similarity"]:.2f})</span></li>'
        for u in claims.get("notInGroundTruth") or []
    )
    attribution = (result.get("scores") or {}).get("attribution") or {}
    mentions = "".join(
        f'<li><span class="badge">{esc(m["type"])}</span> {esc(m["matchedText"])}</li>'
        for m in attribution.get("mentions") or []
    )
    mentions += "".join(
        f'<li><span class="badge">cited source #{c["rank"]}</span> {link(c["url"])}</li>'
        for c in attribution.get("citedSources") or []
    )
    mentions += _prominence(attribution.get("components") or {}) if mentions else ""
    sources = "".join(
        f'<li><mark class="gt">{esc(h["responseText"][:120])}</mark> &rarr; {esc(h["groundTruthSource"]["pageUrl"])} '
        f'<span class="muted">&ldquo;{esc(h["groundTruthSource"]["matchedText"][:160])}&rdquo;</span></li>'
        for h in highlights
    )
    scores = " ".join(
        f"{m} <b>{esc(value)}</b> {tier(grade)}"
        + (f' <span class="muted">({esc(credit)})</span>' if credit else "")
        for m, value, grade, credit in score_parts(row)
    )
    capped = (((result.get("scores") or {}).get("accuracy") or {}).get("components") or {}).get("cappedBy")
    sample = f", sample {row['sample']}" if (row.get("sample") or 1) > 1 else ""
    return (
        f"<h3>{esc(row['query_id'])}: {esc(result.get('query') or '')}</h3>"
        f"<p>{esc(row['provider'] or '-')}/{esc(row['model'] or '-')}{esc(sample)} "
        f'<span class="muted">answer {esc((row.get("id") or "")[:10])}</span> &middot; {scores}'
        + (" &middot; " if row["flags"] else "")
        + "".join(f'<span class="badge warn">{esc(f)}</span>' for f in row["flags"] or [])
        + "</p>"
        + (
            f'<div class="response">{marked(response, spans)}</div>'
            if response.strip()
            else '<div class="response muted">(empty response)</div>'
        )
        + f'<p class="muted">Marked: sentences that match a ground-truth chunk ({fb.get("highlights", {}).get("coveragePercent", 0):.0f}% '
        f"of the response)"
        + ("; in red, wrong facts" if wrong else "")
        + "; hover for the page and the matched text.</p>"
        + (_wrong_facts(wrong, capped) if wrong else "")
        + (f'<h3>Matched ground truth</h3><ul class="claims">{sources}</ul>' if sources else "")
        + (
            f'<h3>Claims</h3><ul class="claims">{found}{contradicted}{missing}</ul>'
            if found or contradicted or missing
            else ""
        )
        + (f'<h3>Not in the ground truth</h3><ul class="claims">{unsupported}</ul>' if unsupported else "")
        + (f'<h3>Attribution</h3><ul class="claims">{mentions}</ul>' if mentions else "")
    )


_PLACES = {
    "first_sentence": "in the first sentence",
    "first_paragraph": "in the first paragraph",
    "later": "beyond the first paragraph",
}


def _prominence(parts: dict) -> str:
    """Where the site's first mention stands and what prominence earned (``components``)."""
    where = []
    place = _PLACES.get(parts.get("firstMentionIn"))
    if place:
        where.append(f"first mention {place}")
    if parts.get("listRank"):
        where.append(f"list item {parts['listRank']}")
    if parts.get("citedRank"):
        where.append(f"cited source #{parts['citedRank']}")
    points = sum(parts.get(k) or 0 for k in ("positionPoints", "listPoints", "citedPoints"))
    return f'<li class="muted">{esc(", ".join(where))}: +{points:g} for prominence</li>' if where else ""


SOURCES = {"expected_answer": "the expected answer", "claim": "a claim", "ground_truth": "the site's page"}


def _wrong_facts(wrong: list[dict], capped: str | None) -> str:
    """The answer's wrong facts: what it says, what the site says instead (and where), what differs."""
    items = []
    for w in wrong:
        where = SOURCES.get(w.get("source"), w.get("source") or "")
        page = f" {link(w['pageUrl'])}" if w.get("pageUrl") else ""
        detail = f' <span class="muted">({esc(w["detail"])})</span>' if w.get("detail") else ""
        items.append(
            f'<li><span class="badge bad">{esc(w.get("kind") or "other")}</span> '
            f'<mark class="wrong">{esc(w["statement"])}</mark> &rarr; the site says: &ldquo;{esc(w["evidence"])}&rdquo; '
            f'<span class="muted">({esc(where)})</span>{page}{detail}</li>'
        )
    note = f'<p class="muted">Accuracy held below good: {esc(capped)}</p>' if capped else ""
    return f'<h3>Wrong facts</h3><ul class="claims wrong-facts">{"".join(items)}</ul>{note}'


def worst_section(analyses: pl.DataFrame, n: int = 5) -> str:
    """Every answer with a wrong fact (those citing the site first), then the ``n`` weakest others."""
    wrong, weakest = answers_to_fix(analyses, n)
    body = "".join(_answer(r) for r in wrong) or '<p class="muted">(no answer states a wrong fact)</p>'
    if weakest:
        body += f"<h2>The {len(weakest)} weakest other answers</h2>" + "".join(_answer(r) for r in weakest)
    return section(f"Answers to fix: {len(wrong)} with a wrong fact", body, "worst")


def flagged_section(analyses: pl.DataFrame) -> str:
    rows = analyses.filter(pl.col("status") != "ok").sort(["status", "query_id"]).to_dicts()
    return section(
        "Flagged and error rows",
        table(
            rows,
            [
                ("source_line", "line"),
                ("query_id", "query"),
                ("provider", "provider"),
                ("model", "model"),
                ("status", "status"),
                ("flags", "flags"),
                ("error", "error"),
            ],
        ),
        "flagged",
    )


def response_sections(store: ParquetStore, run_id: str, flow: RunKind) -> list[str]:
    analyses = store.read("analyses", run_id)
    summaries = read_with_trends(store, "summaries", run_id).to_dicts()
    out = [summary_section(summaries, analyses), trend_section(store, summaries, flow)]
    providers = read_with_trends(store, "provider_summaries", run_id)
    collections = store.read("collections", run_id).to_dicts()
    if not providers.is_empty():
        out.append(provider_section(providers.to_dicts(), collections))
    elif analyses["provider"].n_unique() > 1:
        out.append(
            section(
                "Providers",
                "<figure>"
                + plots.histograms(
                    _values(analyses.with_columns(pl.col("provider").fill_null("-")), "provider")
                )
                + "</figure>",
                "providers",
            )
        )
    brands = read_with_trends(store, "competitor_summaries", run_id)
    if not brands.is_empty():
        out.append(share_of_voice_section(brands, analyses))
    sources = store.read("citation_domains", run_id)
    if not sources.is_empty():
        out.append(sources_section(sources.to_dicts()))
    if collections:
        out.append(collection_section(collections))
    out += [worst_section(analyses), flagged_section(analyses)]
    return out


def verdict_sections(store: ParquetStore, run_id: str) -> list[str]:
    rows = verdict_rows(store.read("verdict_overrides", run_id).to_dicts())
    target = rows[0]["target_run_id"] if rows else "-"
    return [section(f"Analyst verdicts on run {target}", table(rows, VERDICT_COLUMNS), "verdicts")]


def collect_sections(store: ParquetStore, run_id: str) -> list[str]:
    collections = store.read("collections", run_id).to_dicts()
    responses = store.read("responses", run_id).sort(["query_id", "provider", "model"]).to_dicts()
    rows = [{**r, "excerpt": (r["response"] or "")[:240]} for r in responses]
    return [
        collection_section(collections),
        section(
            "Answers",
            table(
                rows,
                [
                    ("query_id", "query"),
                    ("provider", "provider"),
                    ("model", "model"),
                    ("status", "status"),
                    ("excerpt", "answer (first 240 characters)"),
                    ("error", "error"),
                ],
            ),
            "answers",
        ),
    ]
