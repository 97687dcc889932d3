"""The sources a web-searching assistant returns beside its text, from a LiteLLM ModelResponse.

Where each provider's list lands (LiteLLM 1.106):

- Perplexity: ``response.citations`` (URLs, in the provider's order) and
  ``response.search_results`` (``{title, url, date}``: their titles, and any result not among
  them after them), set by ``PerplexityChatConfig._add_citations_as_annotations``;
- Gemini: ``response.vertex_ai_grounding_metadata``, one ``groundingMetadata`` per candidate,
  whose ``groundingChunks[].web`` are ``{uri, title}`` (the URI is Google's redirect, the title
  the source's domain);
- Anthropic web search: ``message.provider_specific_fields["citations"]``, one list per text
  block of ``web_search_result_location`` ``{url, title, cited_text}``;
- OpenAI web search (and the annotations LiteLLM derives for the others):
  ``message.annotations`` of type ``url_citation`` ``{url, title, start_index, end_index}``.

Sources are read in that order, deduplicated by URL (the first rank and the first title kept),
and ranked from 1.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def provider_citations(response: Any) -> list[dict]:
    """``[{url, title, rank}]``: the response's cited sources, whatever provider gave them."""
    seen: dict[str, dict] = {}
    for url, title in _sources(response):
        if not isinstance(url, str) or not url.strip():
            continue
        url, title = url.strip(), title.strip() if isinstance(title, str) and title.strip() else None
        if url not in seen:
            seen[url] = {"url": url, "title": title, "rank": len(seen) + 1}
        elif seen[url]["title"] is None:
            seen[url]["title"] = title
    return list(seen.values())


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def _sources(response: Any) -> Iterator[tuple[Any, Any]]:
    results = [r for r in _get(response, "search_results") or [] if isinstance(r, dict)]
    titles: dict[str, str] = {}
    for r in results:
        titles.setdefault(r.get("url"), r.get("title"))
    for url in _get(response, "citations") or []:
        if isinstance(url, str):
            yield url, titles.get(url)
    for r in results:
        yield r.get("url"), r.get("title")
    for metadata in _get(response, "vertex_ai_grounding_metadata") or []:
        for chunk in _get(metadata, "groundingChunks") or []:
            web = _get(chunk, "web") or {}
            yield _get(web, "uri"), _get(web, "title")
    choices = _get(response, "choices") or []
    message = _get(choices[0], "message") if choices else None
    if message is None:
        return
    for block in (_get(message, "provider_specific_fields") or {}).get("citations") or []:
        for citation in block if isinstance(block, list) else [block]:
            yield _get(citation, "url"), _get(citation, "title")
    for annotation in _get(message, "annotations") or []:
        if _get(annotation, "type") == "url_citation":
            cited = _get(annotation, "url_citation") or {}
            yield _get(cited, "url"), _get(cited, "title")
