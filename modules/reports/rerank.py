"""Report sections of a ``rerank-batch`` run: each item's results, highlighted, with their scores."""

from __future__ import annotations

from ..store import ParquetStore
from .html import esc, fmt, link, safe_highlight, section

CRITERIA = (
    ("direct_relevance", "relevance", 40),
    ("depth", "depth", 30),
    ("plan_alignment", "plan", 20),
    ("unexpectedness", "unexpected", 10),
)


def _breakdown(r: dict) -> str:
    """The four criteria as bars (width = criterion x its weight), then their sum: the score."""
    cells = []
    for key, label, weight in CRITERIA:
        v = r.get(key)
        width = 0 if v is None else round(v * weight * 2)
        cells.append(
            f'<div>{esc(label)} <span class="bar" style="width:{width}px"></span> {fmt(v, 2)} &times; {weight}</div>'
        )
    return "".join(cells)


def rerank_sections(store: ParquetStore, run_id: str) -> list[str]:
    rows = store.read("rerankings", run_id).sort(["item_id", "rank"])
    out = []
    for (item_id,), group in rows.group_by(["item_id"], maintain_order=True):
        g = group.to_dicts()
        kept = sum(bool(r["kept"]) for r in g)
        body = f"<p>query: <b>{esc(g[0]['query'])}</b> &middot; {len(g)} results, {kept} kept (score &ge; 60)"
        if any(r["fallback"] for r in g):
            body += f' &middot; <span class="badge warn">fallback</span> {esc(g[0]["error"])}'
        body += "</p><table><thead><tr><th>#</th><th>score</th><th>result</th><th>breakdown</th></tr></thead><tbody>"
        for r in g:
            badge = (
                '<span class="badge good">kept</span>' if r["kept"] else '<span class="badge">filtered</span>'
            )
            title = esc(r["title"] or r["result_id"] or "")
            linked = link(r["url"], r["title"] or r["result_id"] or "") if r["url"] else title
            body += (
                f'<tr><td class="num">{fmt(r["rank"])}</td><td class="num"><b>{fmt(r["score"])}</b><br>{badge}</td>'
                f"<td>{linked}<br><i>{esc(r['brief_answer'] or '')}</i><div>{safe_highlight(r['highlighted'])}</div>"
                f'<div class="muted">{esc(r["relevance_note"] or "")} &middot; anchor: {esc(r["anchor"] or "-")}</div></td>'
                f'<td style="min-width:220px">{_breakdown(r)}</td></tr>'
            )
        body += "</tbody></table>"
        out.append(section(f"Item {item_id}", body, f"item-{item_id}"))
    return out or [section("Results", '<p class="muted">(none)</p>')]
