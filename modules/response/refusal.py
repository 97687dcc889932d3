"""Telling a refusal from an answer: an assistant that declines is not an assistant that is wrong.

The collector records such answers as ``refusal`` and the analyzer flags them, so a provider
that refuses shows up as refusing in the summaries rather than only as a low score.
"""

from __future__ import annotations

import re

# Openings of a declined answer ("I'm sorry, but I can't help with that."). Checked on the first
# sentences only: an answer that gives the facts and then says "I can't verify prices" is an answer.
_REFUSAL = re.compile(
    r"^\W*(?:(?:i'?m|i am) sorry,?\s*(?:but\s*)?)?"
    r"(?:i\s*(?:can(?:no|')t|cannot|won'?t|am (?:not able|unable)|'m (?:not able|unable)|am not allowed)"
    r"\s*(?:to\s+)?(?:help|assist|answer|provide|comply|do that|share|discuss|browse|access|confirm|verify)"
    r"|as an ai(?: language model)?,? i (?:can(?:no|')t|cannot|don'?t|do not)"
    r"|i (?:don'?t|do not) have (?:access|information|any information|enough information|reliable information|the ability)"
    r"|sorry,? (?:i|but i) (?:can(?:no|')t|cannot))",
    re.IGNORECASE,
)
_HEAD = 240


def is_refusal(text: str, finish_reason: str | None = None) -> bool:
    """True for a declined answer, or one the provider stopped for its content policy."""
    if finish_reason == "content_filter":
        return True
    head = text.strip().replace("\u2019", "'")[:_HEAD]
    return bool(head) and _REFUSAL.search(head) is not None
