"""Placing a sentence in a text from its first and last few words (the seed's anchors).

An LM quotes anchors imperfectly: other quote marks or dashes, changed case or spacing, a
word slightly off. Matching runs on a normalised copy of the text that maps back to the
original offsets, first exactly, then fuzzily (difflib ratio >= ``FUZZY_MIN`` over windows
of the anchor's word count); when no placement is found, the caller's best sentence is used
and the result says so.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..text import Span, split_sentences

FUZZY_MIN = 0.8
MAX_SENTENCE_CHARS = 2000
_QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "«": '"',
        "»": '"',
        "″": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "′": "'",
        "`": "'",
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "‒": "-",
        "−": "-",
        "\u00a0": " ",
    }
)

Method = Literal["exact", "fuzzy", "start_only", "end_only", "best_sentence"]


@dataclass(frozen=True)
class Anchored:
    span: Span
    method: Method

    @property
    def placed(self) -> bool:
        """True when the anchors themselves located the sentence."""
        return self.method != "best_sentence"


class NormalisedText:
    """Lower-cased text with unified quotes/dashes and single spaces, mapped back to offsets."""

    def __init__(self, text: str):
        chars, pos = [], []
        prev_space = True
        for i, ch in enumerate(text.translate(_QUOTES)):
            if ch.isspace():
                if prev_space:
                    continue
                ch, prev_space = " ", True
            else:
                prev_space = False
            for low in ch.lower():  # some letters lower-case to two characters ("İ" -> "i̇")
                chars.append(low)
                pos.append(i)
        self.text, self.pos = "".join(chars), pos

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``text[start:end]`` came from."""
        return self.pos[start], self.pos[end - 1] + 1


def normalise(s: str) -> str:
    return NormalisedText(s.strip()).text.strip()


def locate(
    text: str,
    start_anchor: str,
    end_anchor: str,
    *,
    best_sentence: Callable[[list[Span]], Span | None] | None = None,
) -> Anchored | None:
    """The sentence of ``text`` that begins with ``start_anchor`` and ends with ``end_anchor``."""
    norm = NormalisedText(text)
    a, b = normalise(start_anchor), normalise(end_anchor)
    sentences = split_sentences(text)
    bounds = ({x.start for x in sentences}, {x.end for x in sentences})
    if a and b:
        span = _exact(norm, a, b, bounds)
        if span:
            return Anchored(_span(text, *norm.original(*span)), "exact")
        starts = _find(norm.text, a) or _fuzzy(norm.text, a)
        ends = _find(norm.text, b) or _fuzzy(norm.text, b)
        pairs = [(s, e) for s, _ in starts for _, e in ends if s < e and e - s <= MAX_SENTENCE_CHARS]
        if pairs:
            s, e = min(pairs, key=lambda p: _fit(norm, p[0], p[1], bounds))
            return Anchored(_span(text, *norm.original(s, e)), "fuzzy")
        if starts:
            o = norm.original(*starts[0])[0]
            hit = next((x for x in sentences if x.start <= o < x.end), None)
            if hit:
                return Anchored(hit, "start_only")
        if ends:
            o = norm.original(*ends[0])[1] - 1
            hit = next((x for x in sentences if x.start <= o < x.end), None)
            if hit:
                return Anchored(hit, "end_only")
    if best_sentence is not None:
        hit = best_sentence(sentences)
        if hit:
            return Anchored(hit, "best_sentence")
    return None


def _span(text: str, start: int, end: int) -> Span:
    return Span(start, end, text[start:end])


def _find(haystack: str, needle: str) -> list[tuple[int, int]]:
    return [(m.start(), m.start() + len(needle)) for m in re.finditer(re.escape(needle), haystack)]


def _exact(norm: NormalisedText, a: str, b: str, bounds: tuple[set[int], set[int]]) -> tuple[int, int] | None:
    """The span from a start anchor to an end anchor that best matches a whole sentence: one that
    begins and ends where a sentence does, then the shortest (a first word repeated inside the
    sentence, or an end anchor that also occurs earlier in it, does not cut it short)."""
    best, best_key = None, None
    for s, _ in _find(norm.text, a):
        e = norm.text.find(b, s + max(len(a) - len(b), 0))
        while e != -1 and e + len(b) - s <= MAX_SENTENCE_CHARS:
            if e + len(b) > s + len(a):  # the end anchor must end after the start anchor
                key = _fit(norm, s, e + len(b), bounds)
                if best_key is None or key < best_key:
                    best, best_key = (s, e + len(b)), key
            e = norm.text.find(b, e + 1)
    return best


def _fit(
    norm: NormalisedText, start: int, end: int, bounds: tuple[set[int], set[int]]
) -> tuple[bool, bool, int]:
    o_start, o_end = norm.original(start, end)
    return o_start not in bounds[0], o_end not in bounds[1], end - start


def _fuzzy(haystack: str, needle: str) -> list[tuple[int, int]]:
    """Windows of about the anchor's word count whose similarity is at least FUZZY_MIN, best first."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", haystack)]
    n = len(needle.split())
    scored = []
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(needle)
    for size in {max(1, n - 1), n, n + 1}:
        for i in range(len(words) - size + 1):
            s, e = words[i][0], words[i + size - 1][1]
            matcher.set_seq1(haystack[s:e])
            if matcher.real_quick_ratio() >= FUZZY_MIN and matcher.quick_ratio() >= FUZZY_MIN:
                r = matcher.ratio()
                if r >= FUZZY_MIN:
                    scored.append((r, s, e))
    scored.sort(key=lambda x: -x[0])
    return [(s, e) for _, s, e in scored]


def anchors_of(sentence: str, n_words: int = 4) -> tuple[str, str]:
    """The first and last ``n_words`` words of a sentence, verbatim (punctuation kept)."""
    words = sentence.split()
    k = min(n_words, max(1, len(words) // 2)) if len(words) > 1 else 1
    return " ".join(words[:k]), " ".join(words[-k:])


_STRIP = " \t\r\n\"'“”‘’`«»"


def locate_quote(text: str, quote: str | None) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``text``: exactly, else ignoring case, spacing and quote/dash
    variants; None when the answer does not hold it."""
    q = html.unescape(quote or "").strip(_STRIP)  # the LM read the answer escaped
    for tail in ("...", "…"):
        q = q.removesuffix(tail).strip(_STRIP)
    if not q:
        return None
    i = text.find(q)
    if i >= 0:
        return i, i + len(q)
    norm, nq = NormalisedText(text), normalise(q)
    j = norm.text.find(nq) if nq else -1
    if j < 0:
        return None
    return norm.original(j, j + len(nq))
