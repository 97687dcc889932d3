"""What may become a link in anything sleuth renders (HTML reports, markdown artifacts).

URLs come from search results, crawled pages and model output, so any of them can be
``javascript:`` or ``data:``. Only an absolute http(s) URL with a host is ever linked; the rest
is shown as text. Browsers drop tabs and newlines inside a URL and leading control characters
and spaces (``"java\\tscript:"`` runs as ``javascript:``), so the check sees what they would see.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

_DROPPED = re.compile(r"[\t\n\r]")
_LINKABLE_SCHEMES = frozenset({"http", "https"})


def linkable_url(url: object) -> str | None:
    """The URL as a browser would read it, if it is an http(s) URL with a host; else None."""
    if not isinstance(url, str):
        return None
    cleaned = _DROPPED.sub("", url).strip(
        "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14"
        "\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20"
    )
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        return None
    if parts.scheme.lower() not in _LINKABLE_SCHEMES or not parts.hostname:
        return None
    return cleaned


def markdown_link(url: object) -> str:
    """An autolink for a linkable URL; anything else as an inline code span (never a link)."""
    good = linkable_url(url)
    if good and not re.search(r"[\s<>]", good):
        return f"<{good}>"
    text = str(url).replace("`", "'").replace("\n", " ")
    return f"`` {text} ``"


_MARKDOWN_SPECIAL = re.compile(r"([\\`\[\]])")


def markdown_text(value: object) -> str:
    """Data shown as text in markdown: raw HTML (``<script>``, ``<a href="javascript:...">``),
    autolinks (``<javascript:...>``) and link syntax (``[x](javascript:...)``) cannot form, as
    the HTML reports escape them; what the text says is unchanged."""
    text = html.escape(str(value), quote=False)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)
