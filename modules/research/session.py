"""Building a Researcher from options: search engines, the page fetcher, the LM and the limits.

The flow and the CLI pass a ``ResearchOptions`` (serializable, so Prefect records it as the
flow's parameters); everything that turns those options into live objects lives here.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from .. import programs as program_store
from ..embeddings import LocalEmbedder
from ..lm import LMOption, LMSettings
from ..relevance.analyzer import RelevanceAnalyzer
from ..tools.crawl import CrawlConfig, fetch_all
from ..tools.engines import auto_order, make_backend
from ..tools.local_index import LocalSearch
from ..tools.site import SiteSearch, site_for
from .crawling import CrawlingDecision
from .loop import Limits, Researcher

SEARCH_CHOICES = ("local", "duckduckgo", "google", "searxng", "serper", "auto")


class ResearchOptions(BaseModel):
    """What a research run is configured with (the CLI's options, a deployment's parameters)."""

    search: str = Field(
        "local", description="local | duckduckgo | google | searxng | serper | auto (the configured order)"
    )
    corpus: str | None = Field(
        None,
        description="local corpus (JSONL/Parquet of url, title, text); default $SLEUTH_CORPUS or the sample",
    )
    lm: LMOption = Field(
        default_factory=LMSettings.from_env,
        description="the LM of every node (default from $SLEUTH_LM...; no model: the baseline programs)",
    )
    max_steps: int = Field(8, ge=1)
    max_seconds: float = Field(300.0, gt=0)
    max_tokens: int = Field(200_000, ge=0, description="LM token budget per question")
    read_first: int = Field(10, ge=1, description="results the Analyzer reads after the first search")
    read_per_search: int = Field(
        3, ge=1, description="unread results the Analyzer reads after each later search"
    )
    rerank: bool = Field(True, description="order search results with the relevance analyzer before reading")
    web: bool = Field(
        False,
        description="the offline web: the local corpus served as linked pages on 127.0.0.1, "
        "search gives snippets only, the Analyzer reads the pages the Decision node crawls",
    )
    programs: str | None = Field(
        None,
        description="compiled programs folder (default modules/compiled): the newest per node runs when an LM is configured",
    )

    def engines(self) -> list[str]:
        if self.search not in SEARCH_CHOICES:
            raise ValueError(f"unknown search engine {self.search!r}: use {' | '.join(SEARCH_CHOICES)}")
        return auto_order() if self.search == "auto" else [self.search]


def build_researcher(options: ResearchOptions, embedder=None) -> Researcher:
    """A Researcher for one thread: fresh token accounting, shared (cached) indexes and encoder."""
    backends = {}
    mirror = None
    for name in options.engines():
        backends[name] = LocalSearch(options.corpus) if name == "local" else make_backend(name)
        if name == "local":
            mirror = backends[name].index  # pages of the local corpus are read offline
    embedder = embedder or (mirror.embedder if mirror is not None else LocalEmbedder())
    config = CrawlConfig()
    site = None
    if options.web:  # search results are not read: pages are, once crawled from the loopback site
        if set(backends) != {"local"}:
            raise ValueError("the offline web serves the local corpus: use it with --search local")
        site = site_for(backends["local"])
        backends["local"], mirror = SiteSearch(backends["local"], site), None
        # the site is ours and on loopback: allowed by name, paced at a tenth of a second
        config = CrawlConfig(allow_networks=("127.0.0.0/8",), per_host_delay_s=0.1)
    settings = options.lm
    runner = settings.runner()
    limits = Limits(
        max_steps=options.max_steps,
        max_seconds=options.max_seconds,
        max_tokens=options.max_tokens,
        read_first=0 if site else options.read_first,
        read_per_search=0 if site else options.read_per_search,
    )

    def fetch(urls, snippets):
        return fetch_all(urls, config, mirror=mirror, snippets=snippets)

    if site is not None:  # crawled from the site, stored and cited under the documents' own URLs
        fetch = site.fetcher(fetch)

    compiled, versions = load_programs(options.programs) if runner.lm is not None else ({}, {})
    relevance = (
        RelevanceAnalyzer(embedder=embedder, runner=runner, program=compiled.get("relevance"))
        if options.rerank
        else None
    )
    programs = {
        node: compiled.get(node) or program_store.new_program(node)
        for node in ("decision", "analyzer", "report")
    }
    researcher = Researcher(backends, fetch, embedder, runner, limits, programs=programs, relevance=relevance)
    if site is not None:
        researcher.decide_baseline = CrawlingDecision(embedder)
    researcher.program_versions = {
        node: versions.get(node, "baseline" if runner.lm is None else "uncompiled")
        for node in ("decision", "analyzer", "report", "relevance")
    }
    return researcher


def load_programs(folder: str | None):
    """The newest compiled program per node under ``folder`` (default modules/compiled)."""
    return program_store.load_latest(folder)
