"""How the research loop reads page titles: one home for a title's name, its qualifier and its base.

Encyclopedia-style titles carry the name of their subject and, where names clash, a qualifier:
"Ed Wood (film)" (a parenthesised kind), "Boston, Lincolnshire" (a comma and a larger place).
The answerer and the crawl Decision compare titles with the question and with each other's
names; they read titles through these helpers so that both agree on what a title names.
"""

from __future__ import annotations

import html
import re

_PARENTHESISED = re.compile(r"\s*\([^)]*\)\s*$")


def plain_text(text: str) -> str:
    """Text as titles and questions are compared: HTML entities decoded, "&" read as "and"."""
    return re.sub(r"\s*&\s*", " and ", html.unescape(text or ""))


def title_name(title: str, case: bool = False) -> str:
    """A page's subject as its title names it, less a parenthesised qualifier, in lower case
    unless ``case``: "Ed Wood (film)" -> "ed wood"; "Tunnels &amp; Trolls" -> "tunnels and trolls"."""
    name = _PARENTHESISED.sub("", plain_text(title)).strip()
    return name if case else name.lower()


def title_base(title: str) -> str:
    """The name before any qualifier: "Boston, Lincolnshire" and "Boston (band)" -> "boston"."""
    return title_name(title).split(",")[0].strip()


def title_qualifier(title: str) -> str:
    """The comma qualifier: "Boston, Lincolnshire" -> "Lincolnshire"; "Kiss and Tell (1945 film)" -> ""."""
    name = title_name(title, case=True)
    return name.split(",", 1)[1].strip() if "," in name else ""


def is_qualified(title: str, name: str) -> bool:
    """``title`` is ``name`` (lower case) with a qualifier: "Boston, Lincolnshire", "Boston (band)"."""
    return plain_text(title).lower().startswith((name + ",", name + " ("))


__all__ = ["is_qualified", "plain_text", "title_base", "title_name", "title_qualifier"]
