"""Competitors and share of voice: which tracked brands an answer names or cites, where, and
which it names first, beside the site's own brand.

A competitor is matched exactly as the site is (:func:`.attribution.find_mentions`: the same word
and host boundaries, so ``counterexample.com`` never counts for ``example.com``), on each of its
domains and on its brand names and name. It is *cited* when the answer holds a URL on one of its
domains, or when one of the assistant's own cited sources (``AIResponse.citations``) is on one
(:func:`.attribution.cited_on_site`); where its first mention stands is read as the site's is
(:func:`.attribution.place_of`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .attribution import cited_on_site, find_mentions, normalize_domain, place_of
from .schema import AttributionMention, BrandPresence, Citation, Competitor


def _mentions(response: str, domains: Sequence[str], brand_names: Sequence[str]) -> list[AttributionMention]:
    """Every mention of any of the domains or brand names, in text order, never overlapping."""
    out: list[AttributionMention] = []
    for i, domain in enumerate(domains or [""]):
        for m in find_mentions(response, domain, list(brand_names) if i == 0 else []):
            if not any(m.position.start < o.position.end and o.position.start < m.position.end for o in out):
                out.append(m)
    return sorted(out, key=lambda m: m.position.start)


def presence(
    response: str,
    name: str,
    domains: Sequence[str],
    brand_names: Sequence[str],
    citations: Sequence[Citation],
) -> BrandPresence:
    """One brand's presence in an answer (``named_first`` is set by :func:`presences`)."""
    domains = [d for d in (normalize_domain(d) for d in domains) if d]
    # the name is a brand name too, unless it is one of the domains (matched on host boundaries)
    names = [*brand_names, *([name] if normalize_domain(name) not in domains else [])]
    mentions = _mentions(response, domains, names)
    ranks = [c.rank for d in domains for c in cited_on_site(list(citations), d)]
    first = mentions[0].position if mentions else None
    return BrandPresence(
        name=name,
        domains=domains,
        brand_names=list(brand_names),
        mentioned=bool(mentions),
        cited=bool(ranks) or any(m.type == "url" for m in mentions),
        mentions=len(mentions),
        first_position=first,
        first_mention_in=place_of(response, first.start)[0] if first else None,
        cited_rank=min(ranks) if ranks else None,
    )


def presences(
    response: str,
    domain: str,
    brand_names: Sequence[str],
    competitors: Sequence[Competitor],
    citations: Sequence[Citation] = (),
) -> tuple[BrandPresence, list[BrandPresence]]:
    """The site's presence and each competitor's, with ``named_first`` on the brand (if any)
    whose first mention comes before every other tracked brand's."""
    site = presence(response, domain, [domain], brand_names, citations)
    rivals = [presence(response, c.name, c.domains, c.brand_names, citations) for c in competitors]
    named = [b for b in (site, *rivals) if b.first_position is not None]
    if named:
        min(named, key=lambda b: b.first_position.start).named_first = True
    return site, rivals
