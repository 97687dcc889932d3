"""HTML building blocks for run reports: one self-contained page, every text escaped.

No template engine and no external asset: the page opens from disk with no network. Text from
runs (answers, pages, queries) only ever enters the page through ``esc``; the one markup kept
from data is the relevance analyzer's ``<mark>``/``<b>`` highlighting, re-derived by
``safe_highlight`` so that nothing else can pass.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from ..links import linkable_url
from .columns import Column

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 32px}header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;color:#c7cbd4}main{padding:8px 32px 48px;max-width:1200px}
section{background:#fff;border:1px solid #e2e5ea;border-radius:8px;padding:16px 20px;margin:16px 0}
h2{font-size:18px;margin:0 0 10px}h3{font-size:15px;margin:14px 0 6px}
table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}table.kv{width:auto}
th,td{border-bottom:1px solid #e8eaee;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
mark{background:#fff1a8;padding:0 1px}mark.gt{background:#d6f5d6}mark.wrong{background:#fde2e1;color:#a50e0e}
b{color:#0b4fa8}
.tier-excellent{color:#137333}.tier-good{color:#3c7d0e}.tier-fair{color:#b06000}.tier-poor{color:#c5221f}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;background:#eef0f3;margin-right:4px}
.bad{background:#fde7e7;color:#a50e0e}.good{background:#e6f4ea;color:#137333}.warn{background:#fef7e0;color:#8a5a00}
.answer{font-size:15px;background:#f8fafc;border-left:4px solid #0b4fa8;padding:8px 12px}
.response{white-space:pre-wrap;background:#fafafa;border:1px solid #eee;padding:8px;border-radius:4px}
.bar{display:inline-block;height:10px;background:#5b8def;vertical-align:middle}
.muted{color:#6b7280}figure{margin:8px 0}svg{max-width:100%;height:auto}
ul.claims{margin:4px 0;padding-left:20px}ol.sources{padding-left:24px}
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def link(url: Any, text: Any = None) -> str:
    """``<a href>`` for an http(s) URL (``modules.links`` decides); anything else as escaped text."""
    label = esc(url if text is None else text)
    good = linkable_url(url)
    return f'<a href="{esc(good)}" rel="noopener noreferrer">{label}</a>' if good else label


def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def delta(value: float | None) -> str:
    if value is None:
        return '<span class="muted">-</span>'
    cls = "good" if value > 0.05 else "bad" if value < -0.05 else ""
    text = f"{value:+.1f}"
    return f'<span class="badge {cls}">{"0.0" if text in ("+0.0", "-0.0") else text}</span>'


def percent(value: float | None) -> str:
    """A 0-1 share as a whole percentage ("25%"); "-" when there is none."""
    return "-" if value is None else f"{100 * value:.0f}%"


def rate_delta(value: float | None, *, lower_is_better: bool = True) -> str:
    """The change of a 0-1 share in percentage points, coloured by whether it is good news
    (a wrong-fact rate that rises is bad)."""
    if value is None:
        return '<span class="muted">-</span>'
    points = 100 * value
    better = points < -0.5 if lower_is_better else points > 0.5
    worse = points > 0.5 if lower_is_better else points < -0.5
    text = f"{points:+.0f}"
    text = "0" if text in ("+0", "-0") else text
    return f'<span class="badge {"good" if better else "bad" if worse else ""}">{text} pt</span>'


def tier(value: str | None) -> str:
    return f'<span class="tier-{esc(value)}">{esc(value or "-")}</span>'


def table(
    rows: Sequence[dict], columns: Sequence[tuple[str, str]], *, raw: Iterable[str] = (), css: str = ""
) -> str:
    """``columns`` are (key, label); keys in ``raw`` hold HTML this module built, the rest is escaped."""
    raw = set(raw)
    if not rows:
        return '<p class="muted">(none)</p>'
    head = "".join(f"<th>{esc(label)}</th>" for _, label in columns)

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    numeric = {key for key, _ in columns if any(number(r.get(key)) for r in rows)}
    body = []
    for r in rows:
        cells = []
        for key, _ in columns:
            v = r.get(key)
            if key in raw:
                cells.append(f"<td>{'' if v is None else v}</td>")
            else:  # a number, or a missing one in a column of numbers, aligned right
                num = number(v) or (v is None and key in numeric)
                cells.append(f'<td class="num">{esc(fmt(v))}</td>' if num else f"<td>{esc(fmt(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = f' class="{esc(css)}"' if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def columns_table(rows: Sequence[dict], columns: Sequence[Column], css: str = "") -> str:
    """A table of :mod:`.columns`: changes and a failed flag as coloured badges (a change within
    the noise grey, "n.s."), shares as percentages, 95% intervals beside their figures in grey,
    the rest escaped."""
    formats = {
        "delta": lambda v, r: delta(v),
        "points": lambda v, r: rate_delta(v),
        # good news for the site: its own share up, a competitor's down
        "voice_points": lambda v, r: rate_delta(v, lower_is_better=r.get("is_site") is False),
        "percent": lambda v, r: percent(v),
        "state": lambda v, r: _state_badge(v),
    }
    cells = [{c.key: _cell(c, r, formats) for c in columns} for r in rows]
    raw = [c.key for c in columns if c.kind in ("delta", "points", "voice_points", "state") or c.interval]
    return table(cells, [(c.key, "" if c.kind == "state" else c.label) for c in columns], raw=raw, css=css)


def _cell(column: Column, row: dict, formats: dict) -> Any:
    value = row.get(column.key)
    if column.within_noise(row):
        return (
            f'<span class="badge" title="within the noise of the two runs: not significant at 95%">'
            f"{esc(column.text(value))} n.s.</span>"
        )
    if column.kind == "usd":  # fractions of a cent: the columns' own text
        return column.text(value)
    shown = formats[column.kind](value, row) if column.kind in formats else value
    if not column.interval:
        return shown
    bounds = column.bounds(row)
    return f'{esc(fmt(shown))}<span class="muted">{esc(bounds)}</span>' if bounds else esc(fmt(shown))


def _state_badge(failed) -> str:
    return '<span class="badge bad">failed</span>' if failed else '<span class="badge good">ok</span>'


def marked(text: str, spans: Sequence[tuple], css: str = "") -> str:
    """``text`` with each (start, end, title) span in ``<mark>``; overlapping spans are skipped.
    A span may carry a fourth item, its own CSS class (e.g. ``wrong`` for a wrong fact)."""
    out, pos = [], 0
    for start, end, title, *own in sorted(spans, key=lambda x: tuple(x[:3])):
        if start < pos or end <= start or end > len(text):
            continue
        out.append(esc(text[pos:start]))
        cls = own[0] if own else css
        cls = f' class="{esc(cls)}"' if cls else ""
        out.append(f'<mark{cls} title="{esc(title)}">{esc(text[start:end])}</mark>')
        pos = end
    out.append(esc(text[pos:]))
    return "".join(out)


_TAGS = re.compile(r"(</?(?:mark|b)>)")


def safe_highlight(highlighted: str | None) -> str:
    """The relevance analyzer's highlighted text with only its ``<mark>`` and ``<b>`` tags live.

    The text between those tags was escaped when it was written; it is unescaped and escaped
    again here, so a tampered table cannot pass markup (a raw ``<script>`` comes out as text).
    """
    return "".join(p if _TAGS.fullmatch(p) else esc(html.unescape(p)) for p in _TAGS.split(highlighted or ""))


def section(title: str, body: str, anchor: str | None = None) -> str:
    a = f' id="{esc(anchor)}"' if anchor else ""
    return f"<section{a}><h2>{esc(title)}</h2>{body}</section>"


def page(title: str, subtitle: str, sections: Sequence[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header><main>{''.join(sections)}</main>"
        '<footer class="muted" style="padding:0 32px 24px">sleuth run report &middot; self-contained: '
        "no script, no network</footer></body></html>\n"
    )
