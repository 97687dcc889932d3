"""The baseline Decision on a web whose search returns snippets only: which page to crawl next.

There the Analyzer reads only the pages crawled, so the choice of page is the decision. As in the
Decision node, candidates are judged by title and origin, never page text, and a promising page
is crawled before any new search: first one titled with a name sought (the question's or a
lead's), then the hop that the anchor's relation sentence names (:func:`unread_hop`, with a
search for name and place after a namesake), a page about something the question names, a link
the Analyzer proposed, and last the best results of the latest search (:data:`FIRST_SEARCH_CRAWLS`
of the question's own, :data:`LATER_SEARCH_CRAWLS` of a later one, which is after one lead).

An answer settled from the first page or two often rests on one of two compared things or on the
first hop alone, so a hand-over waits while a named thing's page, the hop, the page a wh-question
describes (under :data:`DESCRIBED_BUDGET` pages read) or, for an answer from the question's own
pages only, that search's best results are unread; an unanswered one waits for a page that a
named thing's page names (under :data:`LINKED_BUDGET`). One-word links naming nothing sought are
never crawled, and a word of a quoted name is searched as the whole quote.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..text import content_terms
from .answer import answer, answer_terms, rejected_answers
from .baseline import (
    ENTITY,
    GENERIC_WORDS,
    BaselineDecision,
    evidence,
    is_anchor,
    question_entities,
)
from .memory import Memory
from .question import QUOTED, read_question
from .schema import Decision, Fact
from .thread import Thread
from .titles import is_qualified, plain_text, title_name

FIRST_SEARCH_CRAWLS = 4  # the question's own search casts the widest net
LATER_SEARCH_CRAWLS = 1  # a later search is after one lead: its best result
_NAMESAKE = 'The page that the hop\'s name links to is a namesake: searching "{}".'
DESCRIBED_BUDGET = 8  # pages read after which a described page is not sought (median <= 10)


def next_crawl(thread: Thread) -> tuple[int, str, str] | None:
    """(tier, url, why) of the unread candidate to crawl next, or None when none is promising:
    tier 0 is titled with a name sought (the question's or a lead's), 1 with a longer name the
    question holds, 2 is among the best results of the latest search (in the relevance order)."""
    leads = _leads(thread)
    names = {n.lower() for n in _question_names(thread.question, leads) if n}
    crawled = [title_name(t) for t in thread.titles.values()]
    unread_of = _names_without_page(thread)
    best: tuple[tuple, str, str] | None = None
    for i, url in enumerate(thread.candidate_urls):
        of = None
        if url in thread.read_urls:
            continue
        title, origin = thread.origins.get(url, ("", ""))
        name = title_name(title)
        if not name or crawled.count(name) >= 2:  # "Ed Wood (film)", then "Ed Wood": enough
            continue
        if name in names or any(name.startswith(n + ",") for n in names):  # "Brown County, Kansas"
            tier, why = 0, f'its title "{title}" names what the research is after'
        elif len(name.split()) > 1 and is_anchor(title, thread.question):
            tier, why = 1, f'its title "{title}" is named in the question'
        elif (of := _of_named(title, unread_of)) is not None:
            tier, why = 1, f'its title "{title}" is about something of "{of[1]}", named in the question'
        else:
            continue
        of_rank = of[0] if tier == 1 and of is not None else -1
        key = (tier, name in crawled, of_rank, title.lower() != name, not origin.startswith("search"), i)
        if best is None or key < best[0]:
            best = (key, url, why)
    if best is not None:
        return best[0][0], best[1], best[2]
    return _best_of_latest_search(thread)


def _leads(thread: Thread) -> list[str]:
    """The searches the Analyzer suggested last ("search: Brown County")."""
    a = thread.last_analysis
    return [
        s[len("search: ") :].strip()
        for s in (a.suggestions_for_next_step if a else [])
        if s.startswith("search: ")
    ]


def _question_names(question: str, leads: list[str] = ()) -> list[str]:
    """:func:`question_entities` (and ``leads``), a word of a name the question quotes read as the
    whole quote: "Prince" of "the 'Prince of tenors'" is no name of its own (its page is the
    musician's)."""
    quotes = [q.strip(" ,.") for q in QUOTED.findall(plain_text(question))]
    out = []
    for name in question_entities(question) + list(leads):
        whole = [q for q in quotes if q != name and _holds(_tokens(q), _tokens(name))]
        out += whole or [name]
    return list(dict.fromkeys(out))


def _tokens(text: str) -> tuple[str, ...]:
    """Words as names are compared, punctuation aside: "Guns N' Roses" is "Guns N Roses"."""
    return tuple(re.findall(r"[^\W_]+", plain_text(text).lower().replace("'", "").replace("’", "")))


def _holds(words: tuple[str, ...], name: tuple[str, ...]) -> bool:
    return any(words[i : i + len(name)] == name for i in range(len(words) - len(name) + 1))


def _names_without_page(thread: Thread) -> list[tuple[str, ...]]:
    """The question's names of two words or more that no page read holds in its title."""
    read = [_tokens(t) for u, t in thread.titles.items() if u in thread.read_urls]
    names = [_tokens(n) for n in question_entities(plain_text(thread.question))]
    return [n for n in dict.fromkeys(names) if len(n) >= 2 and not any(_holds(t, n) for t in read)]


def _of_named(title: str, names: list[tuple[str, ...]]) -> tuple[int, str] | None:
    """(0 when its qualifier names it, else 1; the name) when a title holds a name of the question
    with more words around it: a page about something of that thing ("Oh My God (Guns N' Roses
    song)", "1995–96 Manchester United F.C. season"). With no page titled with the name itself,
    such a page is where the question's thing is read about; a qualifier ("song") says what the
    page is, so it comes before a title merely holding the name. A name after a comma says where
    the page's subject is, not what it is of."""
    plain = plain_text(title)
    head, qualifier = re.match(r"^(.*?)(?:\s*\(([^)]*)\))?\s*$", plain).groups()
    head = head.split(",")[0]  # "Haddington, East Lothian" is a town, located in the thing named
    for rank, part in ((0, qualifier or ""), (1, head)):
        words = _tokens(part)
        for name in names:
            if _holds(words, name) and (rank == 0 or len(words) > len(name)):
                return rank, " ".join(name)
    return None


def unread_named(thread: Thread) -> tuple[int, str, str] | None:
    """(0, url, why) of an unread candidate titled with a thing the question names when no page
    read is about that thing ("Ed Wood" with only "Scott Derrickson" read), else None."""
    read = [title_name(t) for t in thread.titles.values()]
    shape = read_question(thread.question)
    compared = shape.subjects if shape.kind in ("yes_no", "choice") else []  # "Cypress", "Ajuga"
    open_names = [
        n.lower()
        for n in dict.fromkeys(_question_names(thread.question) + compared)
        if not any(t and (_within(n.lower(), t) or _within(t, n.lower())) for t in read)
    ]
    for url in thread.candidate_urls:
        if url in thread.read_urls:
            continue
        title = thread.origins.get(url, ("", ""))[0]
        name = title_name(title)
        if name and any(name == n or name.startswith(n + ",") for n in open_names):
            return 0, url, f'its title "{title}" is named in the question and no page about it was read'
    return None


def unread_hop(thread: Thread, memory: Memory | None) -> tuple[int, str, str] | None:
    """(0, url, why) of the hop's unread candidate: see :func:`_hop`."""
    hop = _hop(thread, memory)
    return None if hop is None else (0, hop[0], hop[1])


def namesake_search(thread: Thread, memory: Memory | None) -> str | None:
    """The search for the hop when the anchor's relation sentence qualifies a name by a larger
    place ("the Boston district of Lincolnshire", "Boston, Lincolnshire") whose page read was a
    namesake (it gave no fact to keep: the site links "Boston" to the US city) and no candidate
    is titled with the name and a qualifier: only a search for both ("Boston Lincolnshire")
    finds the page meant. It comes in the name's turn among the sentence's names (a full name
    linked before it is crawled first), and once."""
    hop = _hop(thread, memory, seek=True)
    return hop[2] if hop is not None and hop[0] is None else None


def _qualifier(name: str, text: str) -> str | None:
    """The larger place ``text`` qualifies ``name`` (lower case) by: "Lincolnshire" in "the Boston
    district of Lincolnshire" or "Boston, Lincolnshire"; None where it names none."""
    m = re.search(
        rf"(?<!\w)(?i:{re.escape(name)})(?:,\s+|\s+[a-z]+\s+(?:of|in)\s+(?:the\s+)?)([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)*)",
        text,
    )
    return m.group(1) if m else None


def _hop(thread: Thread, memory: Memory | None, seek: bool = False) -> tuple | None:
    """(url, why, name) of the unread candidate that an anchor page's relation sentence names, when
    a wh-question has its anchor read but no hop: no page read is titled with a name the anchor
    pages' kept facts mention, and the question does not name two things whose pages were read.

    A bridge question's answer is on the second page ("the program Apple Remote was designed to
    interact with": the Front Row page); on the web that page is read only once crawled, and the
    anchor's sentence that states the question's relation (the fact sharing the most question
    words beyond the page's own name) names it, as a link on the anchor or a search result."""
    if memory is None or not memory.facts or read_question(thread.question).kind in ("yes_no", "choice"):
        return None
    read = {u: title_name(t) for u, t in thread.titles.items() if u in thread.read_urls and title_name(t)}
    anchors = {u: n for u, n in read.items() if is_anchor(thread.titles[u], thread.question)}
    things = {n for n in anchors.values() if not any(n != m and n in m for m in anchors.values())}
    if not anchors or len(things) >= 2:
        return None
    q_terms = content_terms(thread.question)
    asked = {n.lower() for n in question_entities(thread.question)}

    def relation(fact) -> int:
        return len(
            _related(content_terms(fact.text), q_terms) - content_terms(thread.titles[fact.source_url])
        )

    facts = _anchor_sentences(thread, memory, anchors)
    # an opening sentence memory did not keep counts only where it speaks of the relation, and
    # after the kept facts that state it as well
    facts = sorted(
        (f for f in facts if isinstance(f, Fact) or relation(f) > 0),
        key=lambda f: (-relation(f), not isinstance(f, Fact)),
    )
    # the hop is a page the relation sentence names: a page another sentence of the anchor names
    # ("Malayalam" beside "worked ... in Tata Consultancy Services") is read on the way
    top = relation(facts[0]) if facts else 0
    relational = [f for f in facts if relation(f) == top] if top > 0 else facts
    unread = [
        (i, u, thread.origins.get(u, ("", ""))[0])
        for i, u in enumerate(thread.candidate_urls)
        if u not in thread.read_urls
    ]
    # a page read that gave no fact to keep ("Paris" for the pilot who flew L'Oiseau Blanc) was
    # a wrong turn, not the hop: the next name of the relation sentence is crawled
    kept = {f.source_url for f in memory.facts}
    searched = {title_name(q) for q in thread.queries}
    titles = [t for t, _ in thread.origins.values()] + list(thread.titles.values())
    for f in relational:
        spans = _spans(f.text)
        for u, n in read.items():
            if u not in kept:
                continue
            namesake = any(  # "Boston" read where the sentence names "Boston, Lincolnshire"
                title_name(t).startswith(n + ",") and (_named(title_name(t), f.text, spans) or (1,))[0] == 0
                for _, _, t in unread
            )
            if u not in anchors and (_named(n, f.text, spans) or (1,))[0] == 0 and not namesake:
                return None  # the hop is read
    for fact in (f for f in facts if anchors[f.source_url] in things):
        spans = _spans(fact.text)
        named = []
        for i, url, title in unread:
            name = title_name(title)
            if not name or name in read.values() or name in anchors[fact.source_url]:
                continue
            at = _named(name, fact.text, spans)
            if at is not None:  # a full name before a single word ("Henry J. Kaiser", "California")
                named.append((name not in asked, at[0], len(name.split()) == 1, *at[1:], i, url, title))
        for u, n in read.items() if seek else ():
            if u in kept or u in anchors or any(is_qualified(t, n) for t in titles):
                continue
            at, where = _named(n, fact.text, spans), _qualifier(n, fact.text)
            query = f"{plain_text(thread.titles[u])} {where}"
            if at is not None and at[0] == 0 and where and title_name(query) not in searched:
                named.append((n not in asked, 0, len(n.split()) == 1, *at[1:], -1, None, query))
        if named:
            *_, url, title = min(named)
            why = f'the sentence of an anchor page that states the question\'s relation names "{title}"'
            return url, why, plain_text(title)
    return None


LINKED_BUDGET = 10  # pages read after which an unanswered hand-over is not held back


def unread_named_by_a_named_page(thread: Thread, memory: Memory | None) -> tuple[int, str, str] | None:
    """(1, url, why) of an unread candidate that a kept fact of a page about (or about something
    of) a thing the question names writes by its title, when the question is about to be handed
    over unanswered, while fewer than :data:`LINKED_BUDGET` pages were read.

    The song's page "Oh My God (Guns N' Roses song)" says it was released "on the soundtrack to
    the film End of Days": the film the question describes is the page that fact names. A
    search that found nothing new is no reason to stop while such a page is one link away."""
    if memory is None or len(thread.read_urls) >= LINKED_BUDGET:
        return None
    names = [_tokens(n) for n in _question_names(thread.question)]
    names = [n for n in names if len(n) >= 2]
    # a page about the thing itself or a work of it ("... (Guns N' Roses song)") before a page
    # merely holding its name ("Guns N' Roses discography": a band's list, not the question's path)
    named_pages = {}
    for u, t in thread.titles.items():
        of = _of_named(t, names)
        if u in thread.read_urls and (is_anchor(t, thread.question) or of is not None):
            named_pages[u] = 0 if is_anchor(t, thread.question) else of[0]
    read = {title_name(t) for t in thread.titles.values()}
    asked = {n.lower() for n in _question_names(thread.question)}
    unread = [
        (u, title_name(thread.origins.get(u, ("", ""))[0]))
        for u in thread.candidate_urls
        if u not in thread.read_urls
    ]
    facts = sorted(
        (f for f in memory.facts if f.source_url in named_pages), key=lambda f: named_pages[f.source_url]
    )
    for fact in facts:
        spans = _spans(fact.text)
        for url, name in unread:
            if name and name not in read and name not in asked and len(name.split()) >= 2 and name in spans:
                title = thread.origins[url][0]
                return 1, url, f'a fact of a page about a thing the question names names "{title}"'
    return None


class _Sentence(NamedTuple):
    """A sentence of a page read, as memory's facts give it (``text``, ``source_url``)."""

    text: str
    source_url: str


def _anchor_sentences(thread: Thread, memory: Memory, anchors: dict[str, str]) -> list:
    """The anchor pages' kept facts, then their opening sentences that memory did not keep.

    The Analyzer keeps at most a few facts per page, and the sentence stating the question's
    relation may not be one of them ("The first track, "To Know Him Is to Love Him," ..." on
    "Back to Mono"); the answerer reads a page's opening sentences too, and so does the hop."""
    kept = [f for f in memory.facts if f.source_url in anchors]
    seen = {(f.source_url, f.text) for f in kept}
    leads = [
        _Sentence(text, url)
        for url in anchors
        for text in thread.leads.get(url, [])
        if (url, text) not in seen
    ]
    return kept + leads


#: the past forms of strong verbs whose agent noun names a person ("singer" of a song "sung by")
_STRONG_VERBS = {"sing": {"sang", "sung"}, "writ": {"wrote", "written"}, "draw": {"drew", "drawn"}}


def _related(terms: set[str], q_terms: set[str]) -> set[str]:
    """The question's terms that ``terms`` holds, an agent noun of the question counting as its
    verb ("singer" in "sung by Jim Cummings", "director" in "directed by"): the sentence that
    states who did what the question's person did names the person's page."""
    out = terms & q_terms
    for q in q_terms - out:
        root = q[:-2] if len(q) > 5 and q.endswith(("er", "or")) else ""
        if root and (root in terms or terms & _STRONG_VERBS.get(root, set())):
            out.add(q)
    return out


def unread_described(thread: Thread, memory: Memory | None) -> tuple[int, str, str] | None:
    """(1, url, why) of the unread candidate whose title holds most of the words by which a
    wh-question describes what it does not name ("the battle in which Giuseppe Arimondi lost his
    life": "Battle of Adwa"), found as a link on a page that gave facts or as a search result,
    while fewer than :data:`DESCRIBED_BUDGET` pages were read.

    A settled answer may rest on the first page's opening sentences; the page the question
    describes is then often one link away, and reading it is cheap on the web. A title of one
    word ("City") is a common noun linked from anywhere, and words of titles already read
    ("War Memorial") or of the names the question gives describe nothing new, and the page of
    the answer already found ("New York City" when it is "City of New York") adds nothing to it."""
    if memory is None or read_question(thread.question).kind in ("yes_no", "choice"):
        return None
    if len(thread.read_urls) >= DESCRIBED_BUDGET:
        return None
    question = plain_text(thread.question)
    given = content_terms(" ".join(question_entities(question)))
    seen = set().union(*(content_terms(plain_text(t)) for t in thread.titles.values()))
    wanted = content_terms(question) - given - seen
    kept = {f.source_url for f in memory.facts}
    found = answer(
        thread.question, evidence(thread, memory.facts), excluded=rejected_answers(thread.constraints)
    )
    given_answer = answer_terms(plain_text(found.text))
    best = None
    for i, url in enumerate(thread.candidate_urls):
        if url in thread.read_urls:
            continue
        title, origin = thread.origins.get(url, ("", ""))
        link = origin.startswith("link on ")
        if link and origin[len("link on ") :] not in kept:
            continue
        plain = plain_text(title)
        shared = answer_terms(plain) & wanted  # a country names its people: "South Australia", "Australian"
        if len(plain.split()) < 2 or not shared:
            continue
        if given_answer and answer_terms(plain) <= given_answer:  # "New York City" for "City of New York"
            continue
        key = (-len(shared), not link, i)
        if best is None or key < best[0]:
            best = (key, url, title, shared)
    if best is None:
        return None
    _, url, title, shared = best
    return 1, url, f'its title "{title}" holds what the question describes ({", ".join(sorted(shared))})'


def _named(name: str, text: str, spans: dict[str, int]) -> tuple[int, int, bool] | None:
    """(0 for a name the sentence writes capitalised else 1, where, not qualified) when ``text``
    names ``name``: as written ("Front Row"), with its qualifier ("Boston, Lincolnshire" in "the
    Boston district of Lincolnshire"), or in lower case ("a car drifting series": "Drifting")."""
    if name in spans:
        return 0, spans[name], True
    tokens = name.split()
    if len(tokens) == 3 and re.fullmatch(r"\w\.", tokens[1]) and f"{tokens[0]} {tokens[2]}" in spans:
        return 0, spans[f"{tokens[0]} {tokens[2]}"], True  # "Henry Kaiser" for "Henry J. Kaiser"
    head, _, qualifier = name.partition(", ")
    if qualifier and head in spans and _within(qualifier, text.lower()):
        return 0, spans[head], False
    m = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text.lower()) if len(name) >= 4 else None
    return (1, m.start(), True) if m else None


def _within(name: str, text: str) -> bool:
    """``text`` holds ``name`` as whole words: "ajuga" is not in "ajugeae"."""
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def _spans(text: str) -> dict[str, int]:
    """The names a sentence writes (lower case) and where: capitalised runs, each part of one
    joined by "and" / "or" too ("Charles Nungesser and François Coli"), none a lone first word."""
    out: dict[str, int] = {}
    for m in ENTITY.finditer(text):
        run = m.group().strip(" .,'’")
        parts, at = [(run, 0)], 0
        for sep in re.finditer(r"\s+(?:and|or|&)\s+", run):
            parts.append((run[at : sep.start()], at))
            at = sep.end()
        parts += [(run[at:], at)] if at else []
        for part, at in parts:
            tokens = part.split()
            while tokens and tokens[0] in GENERIC_WORDS:
                tokens = tokens[1:]
            if tokens and not (m.start() + at == 0 and len(tokens) == 1 and part == run):
                out.setdefault(" ".join(tokens).lower(), m.start() + at)
    return out


def _no_lead_link(thread: Thread, url: str | None) -> bool:
    """A page link titled with one word that is not itself a name sought (of the question or a
    lead) leads nowhere: a common word the question writes ("University" for "... the University
    of Colorado", "Division") or one word of a longer name ("Festival" of "Festival Puccini"),
    linked from any page; reading it costs a step and gives no fact."""
    title, origin = thread.origins.get(url or "", ("", ""))
    if not origin.startswith("link on "):
        return False
    words = title_name(title).split()
    leads = _leads(thread)
    return len(words) == 1 and words[0] not in {n.lower() for n in _question_names(thread.question, leads)}


def _quoted_whole(thread: Thread, decision: Decision) -> Decision:
    """A search for a word of a name the question quotes searches the whole quote: "Prince" alone
    finds the musician, "Prince of tenors" the tenor the question calls so."""
    query = (decision.query_or_url or "").strip()
    if not decision.next_action.startswith("search_") or not query:
        return decision
    for quote in QUOTED.findall(plain_text(thread.question)):
        quote = quote.strip(" ,.")
        if query != quote and _holds(_tokens(quote), _tokens(query)) and quote not in thread.queries:
            return decision.model_copy(
                update={
                    "query_or_url": quote,
                    "reasoning": f'{decision.reasoning} The question quotes "{quote}" whole.',
                }
            )
    return decision


def unread_ranked(thread: Thread, memory: Memory | None) -> tuple[int, str, str] | None:
    """(2, url, why) of the best unread result of the question's own search (within its share of
    :data:`FIRST_SEARCH_CRAWLS`) when a wh-answer rests on pages the question names alone.

    An answer read from the question's own pages ("Flying Buffalo" from "Tunnels & Trolls" for
    "the adventure in Tunnels and Trolls") crossed no hop, and the page it asks for may name them
    without being named by them: only the search finds it ("Arena of Khazan"), and the question's
    own search ranks it among its best. An answer read past the hop is left alone."""
    if memory is None or not memory.facts or len(thread.queries) != 1:
        return None
    if read_question(thread.question).kind in ("yes_no", "choice"):
        return None
    found = answer(
        thread.question, evidence(thread, memory.facts), excluded=rejected_answers(thread.constraints)
    )
    pages = {e.url for e in found.support}
    if (
        not found.text
        or not pages
        or not all(is_anchor(thread.titles.get(u, ""), thread.question) for u in pages)
    ):
        return None
    return _best_of_latest_search(thread)


def _best_of_latest_search(thread: Thread) -> tuple[int, str, str] | None:
    """The best unread result of the latest search, while fewer than its share were crawled."""
    if not thread.queries:
        return None
    query = thread.queries[-1]
    tag = f'for "{query}"'
    results = thread.ranked.get(query) or [
        u for u in thread.candidate_urls if thread.origins.get(u, ("", ""))[1].endswith(tag)
    ]  # a state recorded without each search's results: those it found first
    share = FIRST_SEARCH_CRAWLS if len(thread.queries) == 1 else LATER_SEARCH_CRAWLS
    if sum(u in thread.read_urls for u in results) >= share:
        return None
    unread = [u for u in results if u not in thread.read_urls]
    if not unread:
        return None
    return 2, unread[0], f'a best result for "{query}" ("{thread.origins[unread[0]][0]}")'


class CrawlingDecision(BaselineDecision):
    """BaselineDecision that crawls a promising candidate page where it would search again, or
    hand over with the question still unanswered."""

    def __call__(self, thread: Thread, memory: Memory | None = None) -> Decision:
        decision = super().__call__(thread, memory)
        a = thread.last_analysis
        if not thread.queries:
            return decision
        if decision.next_action == "send_to_hitl" and a is not None and a.answered:
            named = unread_named(thread) or (None if self._anchored(thread, memory) else next_crawl(thread))
            if named is None and (name := namesake_search(thread, memory)):
                return self._search(thread, name, _NAMESAKE.format(name))
            named = named or unread_hop(thread, memory) or unread_described(thread, memory)
            named = named or unread_ranked(thread, memory)
            if named is None:
                return decision
            _, url, why = named
            return Decision(
                next_action="crawl_url", query_or_url=url, reasoning=f"Crawling this page: {why}."
            )
        # a page titled with a thing the question names and no page read about it comes first
        # (the answerer may ask to search it: "Ajuga" with only "Ajugeae" read)
        choice = unread_named(thread) or next_crawl(thread)
        if choice is None or choice[0] > 0:  # the hop an anchor names before results picked by rank
            if name := namesake_search(thread, memory):
                return self._search(thread, name, _NAMESAKE.format(name))
            choice = unread_hop(thread, memory) or choice
        if choice is None and decision.next_action == "send_to_hitl":
            choice = unread_named_by_a_named_page(thread, memory)
        if choice is None or (decision.next_action == "crawl_url" and choice[0] > 1):
            return _quoted_whole(
                thread, decision
            )  # a link the Analyzer proposed beats a result picked by rank
        _, url, why = choice
        return Decision(next_action="crawl_url", query_or_url=url, reasoning=f"Crawling this page: {why}.")

    def _follows(self, thread: Thread, url: str) -> bool:
        return not _no_lead_link(thread, url)

    @staticmethod
    def _anchored(thread: Thread, memory: Memory | None) -> bool:
        """The answer rests on a page about a thing the question names: with none crawled yet,
        the page it came from may be a namesake or the first hop, and the research goes on."""
        if memory is None or not memory.facts:
            return True
        found = answer(
            thread.question, evidence(thread, memory.facts), excluded=rejected_answers(thread.constraints)
        )
        return found.anchored
