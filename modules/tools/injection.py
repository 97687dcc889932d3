"""Prompt-injection markers in a fetched page or a search result.

A page is data, never instructions. A page that addresses the model reading it (tells it to
ignore its instructions, forges the delimiters of the prompt it will be pasted into, or a chat
template's role tokens) is not a source whose sentences may set an answer: the research loop
withholds its text from every node (the offline programs and an LM alike) and records why.

The markers are structural, not topical: what no honest page about any subject needs to
write. A page quoting such text to discuss it (an article about prompt injection) is withheld
too; that is the cost of never letting one set an answer.
"""

from __future__ import annotations

import re

_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "an instruction to ignore instructions",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+|of\s+your\s+)?"
            r"(?:previous|prior|above|earlier|preceding|system|original)\s+(?:instructions?|prompts?|directions?|rules)",
            re.I,
        ),
    ),
    ("a forged prompt field ([[ ## ... ## ]])", re.compile(r"\[\[\s*##\s*\w[^\]]*##\s*\]\]")),
    (
        "a chat template's role token",
        re.compile(r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>", re.I),
    ),
    (
        "a forged end of the document",
        re.compile(r"</\s*(?:document|documents|context|source|page)\s*>", re.I),
    ),
    (
        "words addressed to the model reading it",
        re.compile(
            r"\b(?:you are now (?:in|a|an)\b|as an ai (?:language )?model,? you must"
            r"|(?:note|message) to (?:the )?(?:ai|llm|language model|assistant)s?\b)",
            re.I,
        ),
    ),
)


def injection_markers(text: str) -> list[str]:
    """What in ``text`` addresses the model reading it instead of informing (empty: none)."""
    if not text:
        return []
    return [name for name, pattern in _MARKERS if pattern.search(text)]


__all__ = ["injection_markers"]
