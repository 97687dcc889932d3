"""The query-set file format (JSONL or Parquet), validated on load.

One row per query: ``query_set_id, query_id, query, domain, expected_answer, claims [{id, text,
importance}], brand_names``, plus ``review`` (``draft`` | ``approved``, default approved),
``source_urls`` (the pages a drafted query came from) and ``competitors`` ([{name, domains,
brand_names}]: the set's tracked competitors, on any row; rows that name them name the same list,
and every query of the set gets it). A file holds one query set; its
``version`` is a hash of the queries' content (review status aside), recorded with every
response collected from it, so trends can tell a changed set from changed answers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..response.attribution import host_matches, normalize_domain
from ..response.schema import AIResponse, Competitor, ExpectedClaim
from ..tables_io import atomic_path, numbered_lines, read_parquet, write_jsonl

Review = Literal["draft", "approved"]

QUERY_SET_SCHEMA = {
    "query_set_id": pl.String,
    "query_id": pl.String,
    "query": pl.String,
    "domain": pl.String,
    "expected_answer": pl.String,
    "claims": pl.List(pl.Struct({"id": pl.String, "text": pl.String, "importance": pl.String})),
    "brand_names": pl.List(pl.String),
    "review": pl.String,
    "source_urls": pl.List(pl.String),
    "competitors": pl.List(
        pl.Struct({"name": pl.String, "domains": pl.List(pl.String), "brand_names": pl.List(pl.String)})
    ),
}
_HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}", re.IGNORECASE)


class QuerySetError(ValueError):
    """A query set that cannot be used as it is; the message lists every problem by line."""


class Query(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query_set_id: str = Field(min_length=1)
    query_id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    expected_answer: str | None = None
    claims: list[ExpectedClaim] = []
    brand_names: list[str] = []
    review: Review = "approved"
    source_urls: list[str] = []
    competitors: list[Competitor] = []

    # the same leniency as `sleuth analyze` input: claims as strings, ids numbered when absent
    _claims = field_validator("claims", mode="before")(AIResponse._claims_from_strings.__func__)

    @field_validator("brand_names", "source_urls", "competitors", mode="before")
    @classmethod
    def _none_is_empty(cls, value):
        return [] if value is None else value

    @field_validator("query", "query_id", "query_set_id", "domain")
    @classmethod
    def _stripped(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    def content(self) -> dict:
        """What the set's version hashes: everything but the review status (and no competitors
        key when there are none, so a set from before competitors keeps its version)."""
        return self.model_dump(
            mode="json", exclude={"review"} | (set() if self.competitors else {"competitors"})
        )


@dataclass(frozen=True)
class QuerySet:
    query_set_id: str
    queries: list[Query]
    version: str
    path: str | None = None

    @property
    def drafts(self) -> list[Query]:
        return [q for q in self.queries if q.review == "draft"]

    @property
    def competitors(self) -> list[Competitor]:
        """The set's tracked competitors (every query carries the same list once loaded)."""
        return self.queries[0].competitors if self.queries else []

    @property
    def domains(self) -> list[str]:
        return sorted({q.domain for q in self.queries})


def version_of(queries: list[Query]) -> str:
    canonical = json.dumps(
        sorted((q.content() for q in queries), key=lambda c: c["query_id"]),
        sort_keys=True,
        ensure_ascii=False,
    )
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _rows(path: Path) -> tuple[list[tuple[int, object]], list[str]]:
    if path.suffix == ".parquet":
        return list(enumerate(read_parquet(path).to_dicts(), 1)), []
    rows, bad = numbered_lines(path)
    return rows, [f"line {n}: {why}" for n, why in bad]


def load_query_set(path: str | os.PathLike, *, allow_drafts: bool = True) -> QuerySet:
    """Read and validate a query set; every problem is reported at once, by line (row).

    With ``allow_drafts=False`` a set that still has unreviewed drafts is refused: drafted
    queries are written for a person to review and are never used silently.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"query set not found: {path}")
    rows, problems = _rows(path)
    queries: list[Query] = []
    first_line: dict[str, int] = {}
    set_line: tuple[str, int] | None = None
    rivals_line: tuple[list[Competitor], int] | None = None
    for n, row in rows:
        if not isinstance(row, dict):
            problems.append(f"line {n}: expected a JSON object, got {type(row).__name__}")
            continue
        try:
            q = Query.model_validate(row)
        except ValidationError as exc:
            for e in exc.errors():
                where = ".".join(map(str, e["loc"])) or "row"
                msg = (
                    "unknown field (allowed: " + ", ".join(Query.model_fields) + ")"
                    if e["type"] == "extra_forbidden"
                    else e["msg"]
                )
                problems.append(f"line {n}: {where}: {msg}")
            continue
        if q.query_id in first_line:
            problems.append(
                f"line {n}: duplicate query_id {q.query_id!r} (first on line {first_line[q.query_id]})"
            )
            continue
        first_line[q.query_id] = n
        if set_line is None:
            set_line = (q.query_set_id, n)
        elif q.query_set_id != set_line[0]:
            problems.append(
                f"line {n}: query_set_id {q.query_set_id!r} differs from {set_line[0]!r} "
                f"(line {set_line[1]}): one query set per file"
            )
            continue
        if bad := _competitor_problems(q):
            problems += [f"line {n}: {why}" for why in bad]
            continue
        if q.competitors:
            if rivals_line is None:
                rivals_line = (q.competitors, n)
            elif q.competitors != rivals_line[0]:
                problems.append(
                    f"line {n}: competitors differ from line {rivals_line[1]}'s: one list per query set "
                    "(name them on one row, or the same on every row)"
                )
                continue
        claim_ids = [c.id for c in q.claims]
        if len(set(claim_ids)) != len(claim_ids):
            problems.append(f"line {n}: claim ids repeat within query {q.query_id!r}: {claim_ids}")
            continue
        queries.append(q)
    if not problems and not queries:
        problems.append("no queries")
    if problems:
        more = f" (and {len(problems) - 20} more)" if len(problems) > 20 else ""
        raise QuerySetError(f"{path}: invalid query set: " + "; ".join(problems[:20]) + more)
    if rivals_line:  # the set's competitors, on every query (and so on every answer collected)
        queries = [q.model_copy(update={"competitors": rivals_line[0]}) for q in queries]
    qs = QuerySet(queries[0].query_set_id, queries, version_of(queries), str(path))
    if not allow_drafts and qs.drafts:
        raise QuerySetError(
            f"{path}: {len(qs.drafts)} of {len(queries)} queries are unreviewed drafts (review: draft), e.g. "
            f"{qs.drafts[0].query_id!r}. Review them, then mark them approved (`sleuth queries approve "
            f"{path}`), or pass --allow-drafts to use them as they are."
        )
    return qs


def _competitor_problems(q: Query) -> list[str]:
    """What is wrong with a query's competitors: a blank or repeated name, a domain that is not a
    host name, or one of the site's own."""
    problems, names = [], set()
    site = normalize_domain(q.domain)
    for i, c in enumerate(q.competitors):
        where = f"competitors.{i}"
        name = c.name.strip()
        if not name:
            problems.append(f"{where}.name: must not be blank")
        elif name.casefold() in names:
            problems.append(f"{where}.name: duplicate competitor {name!r}")
        names.add(name.casefold())
        for d in c.domains:
            if not _HOST.fullmatch(d.strip()):
                problems.append(f"{where}.domains: {d!r} is not a host name (like example.com)")
            elif host_matches(d, site):
                problems.append(f"{where}.domains: {d!r} is the site's own domain ({site})")
    return problems


def write_query_set(path: str | os.PathLike, queries: list[Query]) -> str:
    """Write a query set as JSONL or Parquet (by suffix), atomically; returns the path."""
    path = Path(path)
    rows = [q.model_dump(mode="json") for q in queries]
    if path.suffix == ".parquet":
        with atomic_path(path) as tmp:
            pl.DataFrame(rows, schema=QUERY_SET_SCHEMA).write_parquet(tmp)
    else:
        write_jsonl(path, rows)
    return str(path)
