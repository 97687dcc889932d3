"""Text primitives shared by the scorers: spans with character positions, chunking, terms.

Every span keeps its ``start``/``end`` offsets into the original string, so that feedback can
point at exact positions (``text[span.start:span.end] == span.text`` always holds).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

ChunkingStrategy = Literal["none", "sentences", "paragraphs"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(value):
    """``value`` (a string, or lists and dicts of them) with every lone surrogate replaced by
    U+FFFD. JSON may carry ``"\\ud800"`` and Python keeps it, but UTF-8 cannot encode it: one such
    character in one provider answer would make a whole table unwritable. (A valid pair arrives
    from JSON already joined into one character, so any surrogate left is lone.)"""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [valid_unicode(v) for v in value]
    if isinstance(value, dict):
        return {valid_unicode(k): valid_unicode(v) for k, v in value.items()}
    return value


# ~256 MiniLM word pieces; longer inputs are silently truncated by the encoder, so we split them.
MAX_CHUNK_CHARS = 1000

_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "vs",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "jr",
    "sr",
    "inc",
    "ltd",
    "co",
    "corp",
    "no",
    "fig",
    "approx",
    "u.s",
    "u.k",
    "a.m",
    "p.m",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
}
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]]*(?=\s+|$)|(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])|\n")
#: abbreviations that also end sentences: one ends there when a sentence's usual first word follows
#: ("... owned by Encyclopaedia Britannica, Inc. The 2010 version ...")
_ENDING_ABBREVIATIONS = {"inc", "ltd", "co", "corp", "etc"}
#: "c." and "ca." before a number read "circa" ("from c. 1046 BC")
_CIRCA = re.compile(r"\s*\d")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
_NEGATION = re.compile(
    r"\b(?:not|no|never|nothing|none|nobody|nowhere|cannot|neither|nor|without)\b|n['’]t\b",
    re.IGNORECASE,
)
STOPWORDS = frozenset(
    """a an the of to in on for and or is are was were be been being it its this that these those
    with as at by from you your yours i we us they he she do does did can will would should could
    have has had what which who whom whose how why when where there their them our ours my me his
    her hers about into than then so if but also just very more most some any such only own same
    other each few both all may might must shall up down out over under again further once here
    too s t""".split()
)


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a text with its character offsets into that text."""

    start: int
    end: int
    text: str


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end, text[start:end]) if end > start else None


def split_sentences(text: str) -> list[Span]:
    """Sentence spans; tolerant of abbreviations, decimals and newline-separated lists (memoised:
    an answer's sentences are asked for by its chunks, windows, claims and fact checks)."""
    return list(_split_sentences(text))


@lru_cache(maxsize=16384)
def _split_sentences(text: str) -> tuple[Span, ...]:
    spans: list[Span] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        end = m.end()
        if m.group() != "\n":
            word = re.search(r"([A-Za-z.]+)$", text[start : m.start()])
            abbreviation = word.group(1).lower().rstrip(".") if word else ""
            if abbreviation in _ABBREVIATIONS and not (
                abbreviation in _ENDING_ABBREVIATIONS and _sentence_start(text, end)
            ):
                continue
            if m.group() == "." and abbreviation in ("c", "ca") and _CIRCA.match(text, end):
                continue
            if m.group() == "." and _initial(text, m.start(), end):
                continue
        span = _trimmed(text, start, end)
        if span:
            spans.append(span)
        start = end
    tail = _trimmed(text, start, len(text))
    if tail:
        spans.append(tail)
    return tuple(spans)


_NAME_NEXT = re.compile(r"\s+([A-Z][a-z]+|[A-Z]\.)")


def _sentence_start(text: str, at: int) -> bool:
    """Whether the text after ``at`` opens with a sentence's usual first word ("The", "It")."""
    nxt = re.match(r"\s+([A-Z][a-z]*)\b", text[at:])
    return bool(nxt) and nxt.group(1).lower() in STOPWORDS


def _initial(text: str, at: int, end: int) -> bool:
    """Whether the period at ``at`` ends a name's initial ("and C. Robert Cargill", "J. R. R.
    Tolkien"): one capital letter, a word of its own, followed by another initial ("financier J.
    P. Morgan"), or after a name, a function word or nothing with a name going on after it (a
    capitalised word that is not a sentence's usual first word)."""
    if at < 1 or not text[at - 1].isupper() or (at >= 2 and text[at - 2].isalnum()):
        return False
    if re.match(r"\s+[A-Z]\.\s", text[end:]):
        return True
    before = re.search(r"(\S+)\s+$", text[max(0, at - 40) : at - 1])
    if before and not (before.group(1)[0].isupper() or before.group(1).lower() in STOPWORDS):
        return False  # "plan B.", "vitamin C.": a letter naming a thing, at a sentence's end
    after = _NAME_NEXT.match(text, end)
    return bool(after) and after.group(1).lower().rstrip(".") not in STOPWORDS


def split_paragraphs(text: str) -> list[Span]:
    spans, start = [], 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        span = _trimmed(text, start, m.start())
        if span:
            spans.append(span)
        start = m.end()
    tail = _trimmed(text, start, len(text))
    if tail:
        spans.append(tail)
    return spans


_CLAUSE_BREAK = re.compile(
    r"[,;:\u2013\u2014]\s+(?:(?:and|but)\s+)?|\s+(?:and|but|while|whereas|which)\s+", re.IGNORECASE
)
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def split_clauses(sentence: Span, min_words: int = 3) -> list[Span]:
    """Clauses of a sentence (at commas, semicolons, 'and', 'but', ...), each >= ``min_words``.

    A claim is often one clause of a longer sentence; matching it against the clause avoids
    the dilution of comparing a short claim with a whole sentence. Memoised: the judge asks it of
    the same sentence for windows, polarity and fact checks.
    """
    return list(_split_clauses(sentence, min_words))


@lru_cache(maxsize=65536)
def _split_clauses(sentence: Span, min_words: int) -> tuple[Span, ...]:
    out, start = [], 0
    for m in list(_CLAUSE_BREAK.finditer(sentence.text)) + [None]:
        end = m.start() if m else len(sentence.text)
        piece = _trimmed(sentence.text, start, end)
        if piece and len(piece.text.split()) >= min_words and piece.text != sentence.text:
            out.append(Span(sentence.start + piece.start, sentence.start + piece.end, piece.text))
        start = m.end() if m else start
    return tuple(out)


def split_long(span: Span, max_chars: int = MAX_CHUNK_CHARS) -> list[Span]:
    """Split a span longer than ``max_chars`` at whitespace into windows of at most that size."""
    if len(span.text) <= max_chars:
        return [span]
    out, s, text = [], 0, span.text
    while s < len(text):
        e = min(len(text), s + max_chars)
        if e < len(text):
            cut = text.rfind(" ", s + max_chars // 2, e)
            e = cut if cut > s else e
        piece = _trimmed(text, s, e)
        if piece:
            out.append(Span(span.start + piece.start, span.start + piece.end, piece.text))
        s = e
    return out


def chunk(text: str, strategy: ChunkingStrategy, max_chars: int | None = MAX_CHUNK_CHARS) -> list[Span]:
    """Chunk ``text`` by strategy; any chunk over ``max_chars`` (unless None) is split further."""
    if strategy == "none":
        base = [s for s in [_trimmed(text, 0, len(text))] if s]
    elif strategy == "sentences":
        base = split_sentences(text)
    elif strategy == "paragraphs":
        base = split_paragraphs(text)
    else:
        raise ValueError(f"unknown chunking strategy {strategy!r}: use none, sentences or paragraphs")
    if max_chars is None:
        return base
    return [piece for span in base for piece in split_long(span, max_chars)]


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


#: a possessive ending, straight or curly apostrophe ("mobile's", "customers'")
POSSESSIVE = re.compile(r"(?<=[a-z0-9])['’]s$|(?<=s)['’]$")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'digests'/'digested'/'digesting', and a
    possessive its name ("mobile's", "customers'": a question's "Tallow Mobile's plan" names
    what an answer's "Tallow Mobile" does)."""
    word = POSSESSIVE.sub("", word)
    for suffix in ("ing", "edly", "ed", "es", "s", "ly"):
        if len(word) > 4 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_terms(text: str, exclude: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Stemmed content words of ``text``, minus stopwords and ``exclude`` (already stemmed)."""
    return set(_content_terms(text)) - exclude if exclude else set(_content_terms(text))


@lru_cache(maxsize=16384)
def _content_terms(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text) if w not in STOPWORDS)


def overlap_f1(a: set[str], b: set[str]) -> float:
    common = len(a & b)
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


_NEGATION_WORDS = frozenset("not no never nothing none nobody nowhere cannot neither nor without".split())
_WORD_RUN = re.compile(r"\w+")
_NT = re.compile(r"n't\b")


@lru_cache(maxsize=65536)
def has_negation(text: str) -> bool:
    """Whether ``text`` has a negation word or an "n't" (``_NEGATION``). Memoised, and for ASCII
    text (lower-cased, where the pattern's case-insensitivity has no special cases) a set lookup
    of its words: the alternation tried at every position cost ~20 us a sentence."""
    if text.isascii():
        low = text.lower()
        return ("n't" in low and _NT.search(low) is not None) or not _NEGATION_WORDS.isdisjoint(
            _WORD_RUN.findall(low)
        )
    return _NEGATION.search(text) is not None


def numbers(text: str) -> set[str]:
    """Numbers as written, normalised: '$1,200.50' -> '1200.50', '8,848 m' -> '8848'."""
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}


#: the words that order a comparison: by time (older / younger) or by amount (more / fewer), in
#: the order they are tried ("more recent" is younger, not more)
_COMPARISON_ORDERS = (
    ("older", re.compile(r"\b(older|elder|earlier|first|oldest|earliest|longer ago)\b", re.I)),
    ("younger", re.compile(r"\b(younger|later|newer|youngest|latest|more recent(?:ly)?|last)\b", re.I)),
    ("more", re.compile(r"\b(more|most|larger|largest|higher|highest|bigger|greater|taller|longer)\b", re.I)),
    ("fewer", re.compile(r"\b(fewer|less|least|smaller|smallest|lower|lowest|shorter)\b", re.I)),
)


def comparison_order(text: str) -> str:
    """How the words of a comparison order its options: "older" or "younger" (by date: "which came
    first", "finished earlier"), "more" or "fewer" (by amount: "larger population", "longer"), or
    "" where they order by neither."""
    return next((order for order, pattern in _COMPARISON_ORDERS if pattern.search(text)), "")
