"""``before<mark>... <b>term</b> ...</mark>after`` built from HTML-escaped pieces.

Terms are matched in the raw text (word boundaries, case-insensitive) and every piece is
escaped on its own, so no markup from a result, and no entity such as ``&amp;``, can be split
or reach the output unescaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from ..text import Span


def highlight(text: str, span: Span | None, terms: Sequence[str]) -> str:
    """The whole text escaped, the span inside ``<mark>`` and the terms in it inside ``<b>``."""
    if span is None:
        return html.escape(text)
    return (
        html.escape(text[: span.start])
        + "<mark>"
        + bold_terms(text[span.start : span.end], terms)
        + "</mark>"
        + html.escape(text[span.end :])
    )


def bold_terms(sentence: str, terms: Sequence[str]) -> str:
    wanted = sorted({t.strip() for t in terms if t and t.strip()}, key=len, reverse=True)
    if not wanted:
        return html.escape(sentence)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in wanted) + r")(?!\w)", re.IGNORECASE)
    out, last = [], 0
    for m in pattern.finditer(sentence):
        out.append(html.escape(sentence[last : m.start()]))
        out.append("<b>" + html.escape(m.group()) + "</b>")
        last = m.end()
    out.append(html.escape(sentence[last:]))
    return "".join(out)


def strip_tags(marked: str) -> str:
    """Remove exactly the tags ``highlight`` adds (for checks: gives back the escaped text)."""
    return re.sub(r"</?(?:mark|b)>", "", marked)
