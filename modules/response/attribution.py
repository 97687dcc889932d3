"""Attribution: does the response credit the site, by URL, by domain or by brand name?

Matching respects word and host boundaries: "example.com" is found in "www.example.com",
"docs.example.com/x" and "info@example.com", never in "counterexample.com" or "example.com.au".
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .config import AttributionConfig, TierConfig
from .schema import AttributionMention, AttributionResult, TextPosition
from .tiers import tier_for

_URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"'`\[\]{}|\\^]+"
    r"|(?<![\w@.-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}/[^\s<>\"'`\[\]{}|\\^]*",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?)]}'\""


def normalize_domain(value: str) -> str:
    """'https://WWW.Example.com:443/a?b' -> 'example.com'."""
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

    if domain:
        for m in _URL.finditer(response):
            raw = m.group().rstrip(_TRAILING)
            host = urlsplit(raw if "://" in raw else "//" + raw).hostname or ""
            if host_matches(host, domain):
                # A scheme or a path makes it a URL citation; a bare "www.host" is a domain mention.
                if "://" in raw or "/" in raw:
                    add("url", m.start(), m.start() + len(raw))
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


def score_attribution(
    response: str, domain: str, brand_names: list[str], config: AttributionConfig, tiers: TierConfig
) -> AttributionResult:
    """Strongest mention type's weight, plus a bonus per additional mention, capped."""
    mentions = find_mentions(response, domain, brand_names, config.context_chars)
    kinds = {m.type for m in mentions}
    weights = {"url": config.url_weight, "domain": config.domain_weight, "brand": config.brand_weight}
    score = 0.0
    if mentions:
        base = max(weights[k] for k in kinds)
        score = min(config.max_score, base + config.multi_mention_bonus * (len(mentions) - 1))
    return AttributionResult(
        score=score,
        tier=tier_for(score, tiers),
        mentions=mentions,
        has_url_citation="url" in kinds,
        has_domain_mention="domain" in kinds,
        has_brand_mention="brand" in kinds,
    )
