"""Attribution: does the response credit the site, by URL, by domain or by brand name, and how
prominently?

Matching respects word and host boundaries: "example.com" is found in "www.example.com",
"docs.example.com/x" and "info@example.com", never in "counterexample.com" or "example.com.au".
Prominence is where the first mention stands (first sentence, first paragraph, which list item)
and the site's best rank among the sources the assistant itself cited; an earlier place never
scores less.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache
from urllib.parse import urlsplit

from ..text import split_sentences
from .config import AttributionConfig, TierConfig
from .schema import (
    AttributionComponents,
    AttributionMention,
    AttributionResult,
    Citation,
    MentionPlace,
    TextPosition,
)
from .tiers import tier_for

_URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"'`\[\]{}|\\^]+"
    r"|(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}/[^\s<>\"'`\[\]{}|\\^]*",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?)]}'\""


@lru_cache(maxsize=65536)
def normalize_domain(value: str) -> str:
    """'https://WWW.Example.com:443/a?b' -> 'example.com' (memoised: a batch asks for the same
    few domains for every answer)."""
    value = value.strip().lower()
    if "://" not in value:
        value = "//" + value
    host = urlsplit(value).hostname or ""
    host = host.rstrip(".")
    return host[4:] if host.startswith("www.") else host


def host_matches(host: str, domain: str) -> bool:
    host = normalize_domain(host)
    return host == domain or host.endswith("." + domain)


def _context(text: str, start: int, end: int, width: int) -> str:
    return text[max(0, start - width) : min(len(text), end + width)].strip()


def find_mentions(
    response: str, domain: str, brand_names: list[str], context_chars: int = 60
) -> list[AttributionMention]:
    """All URL, domain and brand mentions, in text order, never overlapping."""
    domain = normalize_domain(domain)
    mentions: list[AttributionMention] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, start: int, end: int) -> None:
        if any(start < e and s < end for s, e in taken):
            return
        taken.append((start, end))
        mentions.append(
            AttributionMention(
                type=kind,
                matched_text=response[start:end],
                position=TextPosition(start=start, end=end),
                context=_context(response, start, end, context_chars),
            )
        )

    # a URL citation has a "/", a domain mention the domain: most answers have neither (for
    # ASCII text and domain, lower-casing is exactly the pattern's case-insensitivity)
    if domain and "/" in response:
        for m in _URL.finditer(response):
            raw = m.group().rstrip(_TRAILING)
            host = urlsplit(raw if "://" in raw else "//" + raw).hostname or ""
            if host_matches(host, domain):
                # A scheme or a path makes it a URL citation; a bare "www.host" is a domain mention.
                if "://" in raw or "/" in raw:
                    add("url", m.start(), m.start() + len(raw))
    if domain and (not (response.isascii() and domain.isascii()) or domain in response.lower()):
        bare = re.compile(
            r"(?<![\w./-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*"
            + re.escape(domain)
            + r"(?![\w-]|\.[a-z0-9])",
            re.IGNORECASE,
        )
        for m in bare.finditer(response):
            add("domain", m.start(), m.end())
    for brand in sorted({b.strip() for b in brand_names if b and b.strip()}, key=len, reverse=True):
        pattern = r"\s+".join(re.escape(part) for part in brand.split())
        for m in re.finditer(r"(?<!\w)" + pattern + r"(?!\w)", response, re.IGNORECASE):
            add("brand", m.start(), m.end())
    mentions.sort(key=lambda m: m.position.start)
    return mentions


#: Hosts whose links are a search engine's redirects: the source's domain is in the title
#: (Gemini's grounding chunks: ``{uri: https://vertexaisearch.cloud.google.com/grounding-api-redirect/..., title: example.com}``).
_REDIRECT_HOSTS = frozenset({"vertexaisearch.cloud.google.com"})
_HOSTNAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}\.?", re.IGNORECASE)
# A markdown list item: "1. ", "2) ", "- ", "* ", "+ ", "• " at the start of a line.
_LIST_ITEM = re.compile(r"^[ \t]*(?:\d{1,3}[.)]|[-*+•])[ \t]+(?=\S)", re.MULTILINE)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def cited_on_site(citations: list[Citation], domain: str) -> list[Citation]:
    """The cited sources on ``domain`` (its subdomains included), in rank order."""
    domain = normalize_domain(domain)
    if not domain:
        return []
    out = []
    for c in sorted(citations, key=lambda c: c.rank):
        host = urlsplit(c.url if "://" in c.url else "//" + c.url).hostname or ""
        title = (c.title or "").strip()
        if host_matches(host, domain) or (
            host in _REDIRECT_HOSTS and _HOSTNAME.fullmatch(title) and host_matches(title, domain)
        ):
            out.append(c)
    return out


def place_of(response: str, at: int) -> tuple[MentionPlace, int | None, int]:
    """Where offset ``at`` stands: first_sentence, first_paragraph or later; the list item holding
    it (1 = the answer's first item); and its rank for the list points, 1 + the list items before
    it, so that text after a list ranks below every item of it.

    The first paragraph ends at a blank line or where a list starts; a list item ends at the next
    item or a blank line. The first sentence of an answer that starts with a list is its first
    item's (without the marker).
    """
    items = [(m.start(), m.end()) for m in _LIST_ITEM.finditer(response)]
    starts = [s for s, _ in items]
    breaks = [b.start() for b in _PARAGRAPH_BREAK.finditer(response)] + [len(response)]

    def next_break(after: int) -> int:
        return breaks[bisect_left(breaks, after)]

    begin = len(response) - len(response.lstrip())
    block_end = min([next_break(begin), *starts[bisect_right(starts, begin) :][:1]])
    lead = next((e for s, e in items if s <= begin < e), begin)  # past a list marker
    sentences = split_sentences(response[lead:block_end])
    sentence_end = lead + sentences[0].end if sentences else block_end
    before = bisect_right(starts, at)  # list items starting at or before the mention
    list_rank = None
    if before:
        _, marker_end = items[before - 1]
        if at < min([next_break(marker_end), *starts[before : before + 1]]):
            list_rank = before
    rank = list_rank if list_rank is not None else before + 1
    place: MentionPlace = (
        "first_sentence" if at < sentence_end else "first_paragraph" if at < block_end else "later"
    )
    return place, list_rank, rank


def _mention_score(parts: AttributionComponents, config: AttributionConfig) -> float:
    """0-100: named in the text (URL, domain or brand) earns 50, where it first stands the rest,
    in the proportions of the prominence weights (first sentence 1, first paragraph 10/15, later
    list item k 8/15/k by default)."""
    if parts.first_mention_in == "none":
        return 0.0
    top = config.first_sentence_weight
    earned = parts.position_points + parts.list_points
    return round(50 + 50 * (earned / top if top else 1.0), 2)


def _citation_score(linked_in_text: bool, cited_rank: int | None) -> float:
    """0-100: a link to the site in the answer's text is 100; a place in its source list earns
    50 + 50 / rank (rank 1: 100, rank 2: 75, rank 4: 62.5); neither is 0."""
    ranked = 50 + 50 / cited_rank if cited_rank else 0.0
    return round(max(100.0 if linked_in_text else 0.0, ranked), 2)


def score_attribution(
    response: str,
    domain: str,
    brand_names: list[str],
    config: AttributionConfig,
    tiers: TierConfig,
    citations: list[Citation] | None = None,
) -> AttributionResult:
    """The headline: the strongest mention's weight, a bonus per additional mention, and
    prominence points (where the first mention stands, the site's best cited rank), capped;
    ``components`` says how much each part gave. A cited source of a site named in the text
    counts as a URL citation; a site only in the source list gets ``cited_source_weight``.
    Beside it, ``mention_score`` (named, and where) and ``citation_score`` (linked or cited, and
    at what rank) keep the two kinds of credit apart."""
    mentions = find_mentions(response, domain, brand_names, config.context_chars)
    cited = cited_on_site(citations or [], domain)
    in_text = {m.type for m in mentions}
    kinds = in_text | ({"url"} if cited and in_text else set())
    weights = {"url": config.url_weight, "domain": config.domain_weight, "brand": config.brand_weight}
    strongest = max(kinds, key=lambda k: weights[k], default=None)
    parts = AttributionComponents(
        presence_from=strongest or ("cited_source" if cited else "none"),
        presence_points=weights[strongest] if strongest else config.cited_source_weight if cited else 0,
        extra_mention_points=config.multi_mention_bonus * max(0, len(mentions) - 1),
    )
    if mentions:
        first = mentions[0].position
        place, list_rank, rank = place_of(response, first.start)
        parts.first_mention_position, parts.first_mention_in, parts.list_rank = first, place, list_rank
        parts.position_points = {
            "first_sentence": config.first_sentence_weight,
            "first_paragraph": config.first_paragraph_weight,
        }.get(place, 0)
        parts.list_points = round(config.list_weight / rank, 2) if place == "later" else 0
    if cited:
        parts.cited_rank = cited[0].rank
        parts.cited_points = round(config.cited_weight / cited[0].rank, 2)
    total = (
        parts.presence_points
        + parts.extra_mention_points
        + parts.position_points
        + parts.list_points
        + parts.cited_points
    )
    score = min(config.max_score, total)
    parts.capped_points = round(total - score, 2)
    return AttributionResult(
        score=score,
        tier=tier_for(score, tiers),
        mentions=mentions,
        has_url_citation="url" in in_text or bool(cited),
        has_domain_mention="domain" in kinds,
        has_brand_mention="brand" in kinds,
        cited_sources=cited,
        components=parts,
        mention_score=_mention_score(parts, config),
        citation_score=_citation_score("url" in in_text, parts.cited_rank),
    )
