"""The offline answerer: a short, typed answer to a question from cited facts, or what is missing.

:func:`~.question.read_question` reads what is asked: a yes/no question about one or two named things and an
attribute ("Were A and B of the same nationality?"), a choice between two options ("Who is older,
A or B?"), or a wh-question whose answer has a type (a person, a date, a number, a place, a named
thing). The answer comes only from the facts (sentences with their source URLs): yes/no compares
each thing's attribute as its facts state it, a choice compares the options' dates or support,
and a wh-question takes the candidates of the asked type that the question does not name, ranked
by how much of the question their sentence states around them, from the question's path first
(its own pages, then the pages they name: a bridge question's answer is on the second). Every
answer carries its supporting facts; a part of the question without one leaves the answer empty,
and ``missing`` says which part.

The Report baseline opens its answer with it, and the Decision baseline hands over once it is
:attr:`Answer.settled` (every part supported and, for a bridge question, past the bridge).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from ..text import STOPWORDS, content_terms, stem, words
from .dates import MONTH_WORDS, asked_year, date_candidates
from .measures import ANY_NUMBER, Asked, asked, asks_size, counts, measured_pair, number_candidates
from .question import (
    LEADING,
    NAME,
    PERSON_NOUNS,
    PREPOSITIONS,
    QUOTED,
    SAME,
    WH,
    QuestionShape,
    asked_object_verb,
    clause_start,
    described,
    focus_terms,
    names_in,
    plural_head,
    read_question,
    wh_phrase,
)
from .titles import plain_text, title_base, title_name, title_qualifier

_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)?")  # "11th" of "the mid-11th century" is no name
#: last words of a name that make it an organisation, not a place ("in Tata Consultancy Services")
_ORGANISATIONS = {
    "university", "college", "school", "academy", "institute", "company", "corporation", "services",
    "inc", "inc.", "ltd", "ltd.", "group", "records", "band", "team", "club", "party", "council",
    "fund", "committee", "foundation", "society", "association", "century", "church",
}  # fmt: skip
#: a country's people as its facts name them: "from the United States" is "American"
DEMONYMS = {
    "united states": "american", "america": "american", "usa": "american", "u.s.": "american",
    "england": "english", "britain": "british", "united kingdom": "british", "uk": "british",
    "canada": "canadian", "australia": "australian", "france": "french", "germany": "german",
    "italy": "italian", "spain": "spanish", "japan": "japanese", "china": "chinese", "india": "indian",
    "mexico": "mexican", "russia": "russian", "ireland": "irish", "scotland": "scottish",
    "wales": "welsh", "netherlands": "dutch", "sweden": "swedish", "norway": "norwegian",
    "denmark": "danish", "brazil": "brazilian", "turkey": "turkish", "korea": "korean",
    "south korea": "south korean", "new zealand": "new zealander", "poland": "polish",
    "greece": "greek", "israel": "israeli", "egypt": "egyptian", "argentina": "argentine",
    "austria": "austrian", "belgium": "belgian", "switzerland": "swiss", "portugal": "portuguese",
    "finland": "finnish", "hungary": "hungarian", "ethiopia": "ethiopian", "nigeria": "nigerian",
}  # fmt: skip
_NATIONALITY = re.compile(
    r"\b(" + "|".join(sorted({d.title() for d in DEMONYMS.values()}, key=len, reverse=True)) + r")\b"
)
#: peoples one word of a question may name together: "from England" and "a British writer"
_KIN = {"english": {"british"}, "british": {"english", "scottish", "welsh"}, "scottish": {"british"}}


#: an extracted answer this strong (question words shared by its sentence, more for those next
#: to it) ends the research; below it the answer is reported but the research goes on
SETTLED = 4.0
HOP_BONUS = 2.5
NAMED = 1.0  # per word of a name of the question a sentence states (see _extract)
OFF_PATH = 3.0  # a candidate's penalty on a page off a bridge question's path (see _path)
#: a candidate that says it is of the asked class ("Bass Strait" for "which strait") or counts
#: the asked thing ("742 performances" for "how many performances")
CLASS = 2.0
#: a candidate that is one of the things the question describes on the way to its answer ("the
#: novel in verse that ..." -> "Eugene Onegin", for "Who wrote ...?"): the bridge, not the answer
BRIDGE = 3.0


@dataclass(frozen=True)
class Evidence:
    """A fact the answerer may cite: its sentence, source URL and the title of its page."""

    text: str
    url: str
    title: str = ""


@dataclass
class Answer:
    text: str  # the short answer, "" when the facts do not give one
    answer_type: str
    support: list[Evidence] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # parts of the question no fact supports
    targets: list[str] = field(default_factory=list)  # searches for the missing parts
    strength: float = SETTLED  # an extracted answer's: how much of the question its sentence states
    bridged: bool = True  # an extracted answer's: its page is on the question's path past the bridge
    anchored: bool = True  # a page about a thing the question names was read (else the path is a guess)
    contested: str = ""  # a rejected answer that the facts still give, none other (``support`` holds them)

    @property
    def complete(self) -> bool:
        """Every part of the question is supported by a cited fact."""
        return bool(self.text) and bool(self.support) and not self.missing

    @property
    def settled(self) -> bool:
        """Complete, and an extracted answer's sentence states the question's relation around it
        on a page past the bridge: research can stop here."""
        return self.complete and self.strength >= SETTLED and self.bridged


# ----- evidence -----------------------------------------------------------------------------
def _on_its_page(subject: str, fact: Evidence) -> bool:
    """Whether ``fact`` comes from a page titled with ``subject`` (lower-cased): "Ed Wood", "Ed Wood (film)"."""
    name = title_name(fact.title)
    return name == subject or bool(subject) and subject in name


def _about(subject: str, facts: Sequence[Evidence]) -> list[Evidence]:
    """Facts about a named thing: from a page titled with it, or naming it (its last word for a person)."""
    s = subject.lower()
    titled = [f for f in facts if _on_its_page(s, f)]
    titled.sort(key=lambda f: f.title.strip().lower() != s)  # "Ed Wood" before "Ed Wood (film)"
    named = [f for f in facts if s in f.text.lower() and f not in titled]
    if titled or named:
        return titled + named
    tokens = [t for t in words(subject) if t not in STOPWORDS]
    if len(tokens) >= 2:  # "Edward Davis Wood Jr." for "Ed Wood": the page's title or its surname
        last = tokens[-1]
        return [f for f in facts if last in words(title_name(f.title))]
    return []


def answer_terms(text: str) -> set[str]:
    terms = {SAME.get(t, t) for t in content_terms(text)}
    low = text.lower()
    for country, people in DEMONYMS.items():  # a country and its people are one attribute
        if re.search(rf"\b{re.escape(country)}\b", low):
            terms |= content_terms(people)
        if re.search(rf"\b{re.escape(people)}\b", low):
            terms |= content_terms(country)
            for kin in _KIN.get(people, ()):
                terms |= content_terms(kin) | {
                    stem(c) for c, p in DEMONYMS.items() if p == kin and " " not in c
                }
    return terms


def _nationalities(facts: Sequence[Evidence]) -> list[tuple[str, Evidence]]:
    out = []
    for f in facts:
        for m in _NATIONALITY.finditer(f.text):
            out.append((m.group(1).lower(), f))
        for country, people in DEMONYMS.items():
            if re.search(rf"\b(?:from|in|of)\s+(?:the\s+)?{re.escape(country)}\b", f.text, re.I):
                out.append((people, f))
    return out


#: the people a defining sentence names its subject as one of: "Hergé ... was a Belgian comic strip
#: artist", "is a Kyrgyz author", "was an Irish-American actor" (a capitalised word before a
#: lower-case one, after "is a" / "was an" and at most two lower-case words)
_DEFINED_PEOPLE = re.compile(
    r"\b(?:is|was)\s+(?:an?|the)\s+(?:[a-z0-9][\w-]*\s+){0,2}?([A-Z][^\W\d_]+(?:-[A-Z][^\W\d_]+)*)\s+(?=[a-z])"
)


def _defined_people(subject: str, facts: Sequence[Evidence]) -> tuple[set[str], Evidence | None]:
    """The peoples the first defining sentence of ``subject``'s own page names it as one of ("was a
    Belgian comic strip artist" -> {"belgian"}), with that sentence; none where its page defines it
    otherwise. A person's nationality is what the page says the person is, not every people its
    lead mentions ("from the French pronunciation of his initials", "writes in Russian")."""
    s = subject.lower()
    for f in facts:
        if _on_its_page(s, f) and (m := _DEFINED_PEOPLE.search(f.text)):
            return {p.lower() for p in m.group(1).split("-")}, f
    return set(), None


def _same_people(a: set[str], b: set[str]) -> bool:
    return bool(a & b) or any(_KIN.get(x, set()) & b for x in a)


_PLACE = re.compile(
    r"\b(?:in|at|located in|based in|from|of)\s+((?:the\s+)?[A-Z][\w'’.\-]*(?:[\s,]+[A-Z][\w'’.\-]*)*)"
)


#: attribute words that ask for a nationality
_NATIONAL = frozenset({"nationality", "national", "country", "citizen", "citizenship", "american", "origin"})


def _values(subject: str, attribute: set[str], facts: Sequence[Evidence]) -> list[tuple[str, Evidence]]:
    """The attribute values two things are compared on: nationalities; else the name the thing's
    own page writes after the asked word ("family Moraceae", "family (Arecaceae)" for "the same
    plant family"); else places ("in Laleli")."""
    if attribute & _NATIONAL:
        return _nationalities(facts)
    if attribute:
        asked = "|".join(re.escape(t) for t in sorted(attribute, key=len, reverse=True))
        named = re.compile(rf"\b(?:{asked})\w*\s*[,(]?\s*([A-Z][\w-]+)")
        out = [(m.group(1).lower(), f) for f in facts if _own(subject, f) for m in named.finditer(f.text)]
        if out:
            return out
    out = []
    for f in facts:
        for m in _PLACE.finditer(f.text):
            first = m.group(1).replace("the ", "").split(",")[0].strip()
            if first and first.split()[0] not in MONTH_WORDS:
                out.append((first.lower(), f))
    return out


# ----- answering ----------------------------------------------------------------------------
def answer(
    question: str,
    facts: Sequence[Evidence],
    shape: QuestionShape | None = None,
    excluded: Collection[str] = (),
) -> Answer:
    """The short answer to ``question`` from ``facts`` only, with the facts that support it;
    never one of ``excluded`` (answers a reviewer rejected, lower case)."""
    shape = shape or read_question(question)
    if not facts:
        return Answer("", shape.kind, missing=["any relevant fact"])
    if shape.kind == "yes_no":
        found = _yes_no(question, shape, facts)
    elif shape.kind == "choice":
        found = _choice(question, shape, facts)
        found.text = _as_its_page_titles_it(found.text, found.support)
    else:
        found = _extract(question, shape, facts, excluded)
    if found.text and found.text.lower() in excluded:
        # the facts still give what a reviewer rejected: other leads will not change them, so
        # check each named thing's attribute once more, then let a person judge
        what = " ".join(sorted(shape.attribute))
        return Answer(
            "",
            shape.kind,
            support=found.support,
            missing=[f'an answer other than the rejected "{found.text}"'],
            targets=[f"{s} {what}".strip() for s in shape.subjects],
            contested=found.text,
        )
    if shape.kind in ("yes_no", "choice") and found.complete:
        # a thing another page only mentions ("... toured with Local H") is not yet read about:
        # the answer stands, but the research goes on to its own page
        unread = [s for s in shape.subjects if not any(s.lower() in title_name(f.title) for f in facts)]
        if unread:
            found.bridged, found.targets = False, unread
    return found


def candidates(question: str, facts: Sequence[Evidence], limit: int = 8) -> list[str]:
    """Answers of the asked kind the facts could give, in the order they are stated: yes and no;
    a choice's two options; else the names, dates or numbers of the facts that the question does
    not itself name (the answerer picks one of them; a calibrator learns from the others)."""
    shape = read_question(question)
    if shape.kind == "yes_no":
        return ["yes", "no"]
    if shape.kind == "choice":
        return list(shape.subjects)
    named = {w.lower() for w in words(question)}
    out: dict[str, str] = {}  # lower case -> as first written
    want = asked(question) if shape.kind == "number" else ANY_NUMBER
    for f in facts:
        for cand, _, _ in _candidates(shape.kind, f, want):
            if not {w.lower() for w in words(cand)} <= named:
                out.setdefault(cand.lower(), cand)
    return list(out.values())[:limit]


#: how a rejection is recorded among a thread's constraints, with the short answer rejected
def rejection(short: str, why: str, previous_answer: str) -> str:
    quoted = f' "{short}"' if short and '"' not in short else ""
    return f"The previous answer{quoted} was rejected ({why}). Previous answer: {previous_answer}"


_REJECTED = re.compile(r'^The previous answer "([^"]+)" was rejected')


def rejected_answers(constraints: Sequence[str]) -> set[str]:
    """Short answers a reviewer rejected, from the thread's constraints (lower case)."""
    return {m.group(1).strip().lower() for c in constraints for m in [_REJECTED.match(c)] if m}


def _each_about(subjects: Sequence[str], facts: Sequence[Evidence]) -> dict[str, list[Evidence]]:
    """The facts about each compared thing, none from another's own page: what the Tevatron's page
    says in passing of the LHC is about the Tevatron (unless nothing else names it)."""
    per = {s: _about(s, facts) for s in subjects}
    return {
        s: [f for f in fs if not any(_own(o, f) for o in subjects if o != s)] or fs for s, fs in per.items()
    }


def _yes_no(question: str, shape: QuestionShape, facts: Sequence[Evidence]) -> Answer:
    subjects = shape.subjects or []
    per = _each_about(subjects, facts)
    missing = [s for s, fs in per.items() if not fs]
    if missing or not subjects:
        return Answer("", "yes_no", missing=missing or ["the things the question names"], targets=missing)
    if len(subjects) == 2 and (dated := _dated_verdict(question, shape, per)):
        return dated
    if shape.same and len(subjects) == 2:
        values = {s: _values(s, shape.attribute, per[s]) for s in subjects}
        if gaps := [s for s, v in values.items() if not v]:
            what = " ".join(sorted(shape.attribute)) or "the compared attribute"
            return Answer(
                "", "yes_no", missing=[f"{s}: {what}" for s in gaps], targets=[f"{s} {what}" for s in gaps]
            )
        defined = [_defined_people(s, per[s]) for s in subjects]
        if shape.attribute & _NATIONAL and all(fact for _, fact in defined):
            (a, fa), (b, fb) = defined
            return Answer("yes" if _same_people(a, b) else "no", "yes_no", support=_unique([fa, fb]))
        a, b = (values[s] for s in subjects)
        shared = [(x, fx, fy) for x, fx in a for y, fy in b if x == y]
        if shared:
            _, fx, fy = shared[0]
            return Answer("yes", "yes_no", support=_unique([fx, fy]))
        return Answer("no", "yes_no", support=_unique([a[0][1], b[0][1]]))
    # "Are A and B both X?": does each one's best fact state the attribute (and no other nationality)?
    want = shape.attribute
    if not want:
        return Answer("", "yes_no", missing=["the attribute the question asks about"])
    wanted_people = {p for p in set(DEMONYMS.values()) if p in want}
    # a yes needs each value the attribute names stated ("in California", "Japanese", "in the 1950s")
    body = question.split(None, 1)[-1]
    for s in subjects:
        body = body.replace(s, " ")
    named = want & content_terms(" ".join(re.findall(r"\b[A-Z][\w'’-]+", body)))
    decades = re.findall(r"\b(1[0-9]{2}|20[0-9])0s\b", body)

    def states(text: str) -> bool:
        terms = answer_terms(text)
        return named <= terms and all(re.search(rf"\b{d}[0-9]\b", text) for d in decades)

    support, verdicts, kinds, otherwise = [], [], [], []
    asked_kind = next((k for k in _KINDS if stem(k) in want), "")  # "Are A and B both films?"
    # "both landlocked countries": the class they are of may go unsaid, not what sets them apart
    head = re.search(r"\b([a-z]+s)\W*$", question)
    core = (want - answer_terms(head.group(1)) if head else set()) or want
    for s in subjects:
        fact = max(per[s], key=lambda f: (states(f.text), len(want & answer_terms(f.text))))
        match = len(core & answer_terms(fact.text)) + len(decades) * states(fact.text)
        stated = {m.lower() for m in _NATIONALITY.findall(fact.text)}
        other_nation = bool(wanted_people) and bool(stated) and not (stated & wanted_people)
        support.append(fact)
        kinds.append(m.group(1) if (m := _COPULA.search(fact.text)) else "")  # "Silene is a genus of ..."
        other_place = named and not states(fact.text) and want - named <= answer_terms(fact.text)
        other_kind = asked_kind and kinds[-1] and kinds[-1] != asked_kind
        otherwise.append(bool(other_nation or other_kind or (other_place and _PLACE.search(fact.text))))
        verdicts.append(
            not otherwise[-1]
            and states(fact.text)
            and (match == len(core) or (len(core) >= 3 and match >= (len(core) + 1) // 2))
        )
    if (
        not all(verdicts)
        and any(verdicts)
        and kinds[0]
        and len(set(kinds)) == 1
        and all(states(f.text) for f in support)
    ):
        verdicts = [True] * len(verdicts)  # "Silene is a genus of flowering plants", "Ferocactus is a genus"
    # a no needs one stated otherwise: another people, kind of thing, place of the relation ("based in Dunmore")
    if all(verdicts) or any(otherwise):
        return Answer("yes" if all(verdicts) else "no", "yes_no", support=_unique(support))
    # an attribute a fact leaves unsaid is not denied: "in Micronesia" unsaid of the Marshall Islands
    unsaid = [s for s, v in zip(subjects, verdicts, strict=True) if not v]
    return Answer("", "yes_no", missing=[f"{s}: {' '.join(sorted(want))}" for s in unsaid], targets=unsaid)


#: the kinds of thing a lead sentence says its subject is ("Silene is a genus of ..."; ``_COPULA``)
_KINDS = ("genus", "species", "family", "film", "band", "city", "town", "village", "airport", "building",
          "skyscraper", "company", "magazine", "newspaper", "novel", "album", "song", "school", "university")  # fmt: skip
_COPULA = re.compile(rf"\b(?:is|was|are|were)\s+(?:a|an|the)\s+(?:[\w-]+\s+){{0,3}}?({'|'.join(_KINDS)})\b")


#: how finely "the same year", "decade" or "century" compares two years
_GRAINS = {"year": 1, "decade": 10, "century": 100}


def _dated_verdict(question: str, shape: QuestionShape, per: dict[str, list[Evidence]]) -> Answer | None:
    """ "Were A and B formed in the same year (decade, century)?", "Was A published before B?":
    the years each thing's facts state of the asked event, compared (an answer that says which
    year is missing where one is not stated); None where the question compares no dates."""
    grain = next((g for w, g in _GRAINS.items() if w in shape.attribute), 0) if shape.same else 0
    # "... before (the) B": the word that orders the two stands before the second ("named after
    # Dutch seafarers", "both discovered before 1890" compare nothing)
    second = rf"\s+(?:the\s+)?{re.escape(shape.subjects[1])}"
    before = re.search(rf"\b(?:before|earlier than|older than){second}", question, re.I)
    after = re.search(rf"\b(?:after|later than|younger than|newer than){second}", question, re.I)
    period = None if grain or before or after else _period(question)
    if not (grain or before or after or period):
        return None
    dated = {s: _when(s, shape, fs) for s, fs in per.items()}
    if not all(dated.values()):
        return Answer("", "yes_no", missing=[f"{s}: the year" for s, d in dated.items() if not d])
    (a, fa), (b, fb) = dated.values()
    if period:  # "Were A and B both founded in the 19th century?"
        yes = all(period[0] <= y < period[1] for y in (a, b))
    else:
        yes = a // grain == b // grain if grain else (a < b if before else a > b)
    return Answer("yes" if yes else "no", "yes_no", support=_unique([fa, fb]))


def _period(question: str) -> tuple[float, float] | None:
    """The years a question's "in the 19th century" or "in the 1860s" spans, first year in, last
    out; None where it names none."""
    if m := re.search(r"\b(\d{1,2})(?:st|nd|rd|th) century\b", question):
        return (int(m.group(1)) - 1) * 100, int(m.group(1)) * 100
    if m := re.search(r"\b(1\d\d0|20\d0)s\b", question):
        return int(m.group(1)), int(m.group(1)) + 10
    return None


def _when(subject: str, shape: QuestionShape, facts: Sequence[Evidence]) -> tuple[float, Evidence] | None:
    """The year of what ``shape`` asks about ``subject`` ("founded", "published") in its facts."""
    found = asked_year(
        [f.text for f in facts], shape.attribute - _ORDER_WORDS, [_own(subject, f) for f in facts]
    )
    return (found[0], facts[found[1]]) if found else None


def _own(subject: str, fact: Evidence) -> bool:
    """Whether ``fact`` is on ``subject``'s own page: titled with it, or with its end ("The
    Nutcracker" for the question's "Tchaikovsky's ballet The Nutcracker")."""
    name, title = subject.lower(), title_name(fact.title)
    return (
        _on_its_page(name, fact)
        or bool(title)
        and name.endswith(title)
        and name[: -len(title)][-1:] in ("", " ")
    )


#: words that order or count a comparison, no event of its own
_ORDER_WORDS = frozenset(
    stem(w)
    for w in "earlier first older oldest later last newer same year decade century before after".split()
)


def _choice(question: str, shape: QuestionShape, facts: Sequence[Evidence]) -> Answer:
    options = shape.subjects
    per = _each_about(options, facts)
    missing = [o for o, fs in per.items() if not fs]
    if missing:
        return Answer("", "choice", missing=missing, targets=missing)
    if shape.order in ("older", "younger"):
        dated = {o: when for o, fs in per.items() if (when := _when(o, shape, fs))}
        if len(dated) == 2 and dated[options[0]][0] != dated[options[1]][0]:
            pick = (min if shape.order == "older" else max)(dated, key=lambda o: dated[o][0])
            return Answer(pick, "choice", support=_unique([dated[o][1] for o in options]))
        return Answer("", "choice", missing=[f"{o}: a date" for o in options if o not in dated])
    want = shape.attribute
    if shape.order in ("more", "fewer"):
        counted = {}
        # a size or a measure is no count of members ("comprising 17,000 islands, including Borneo")
        for o, fs in per.items() if not asks_size(question) else ():
            for f in fs:
                n = _count(f.text)
                if n:
                    counted[o] = (n, f)
                    break
        if len(counted) == 2 and counted[options[0]][0] != counted[options[1]][0]:
            pick = (max if shape.order == "more" else min)(counted, key=lambda o: counted[o][0])
            return Answer(pick, "choice", support=_unique([counted[o][1] for o in options]))
        own = {o: [f for f in fs if _own(o, f)] for o, fs in per.items()}  # a measure from its page
        measured = {
            o: (amount, own[o][i])
            for o, (amount, i) in measured_pair(
                question, shape.attribute, {o: [f.text for f in fs] for o, fs in own.items()}
            ).items()
        }
        if measured:
            pick = (max if shape.order == "more" else min)(measured, key=lambda o: measured[o][0])
            return Answer(pick, "choice", support=_unique([measured[o][1] for o in options]))
    scores = {}
    for o, fs in per.items():
        best = max(fs, key=lambda f: len(want & answer_terms(f.text)))
        scores[o] = (len(want & answer_terms(best.text)), best)
    if not want or scores[options[0]][0] == scores[options[1]][0]:
        return Answer(
            "", "choice", missing=[f"which of {options[0]} or {options[1]} " + " ".join(sorted(want))]
        )
    pick = max(options, key=lambda o: scores[o][0])
    return Answer(pick, "choice", support=_unique([scores[o][1] for o in options]))


_NUMBER_WORDS = {
    w: i for i, w in enumerate("two three four five six seven eight nine ten eleven twelve".split(), 2)
}


def _count(text: str) -> int:
    """How many members a sentence lists: a number word ("a five-piece") or the names it lists."""
    m = re.search(
        r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[-\s](?:piece|member)", text, re.I
    )
    if m:
        return _NUMBER_WORDS[m.group(1).lower()]
    listed = re.search(
        r"(?:consist(?:s|ed)? of|compris\w*|featur\w*|members?(?: are| were| include)?|line-?up|formed\b[^.]*?\bby)"
        r"([^.]*)",
        text,
        re.I,
    )
    return len(names_in(listed.group(1))) if listed else 0


def _extract(
    question: str, shape: QuestionShape, facts: Sequence[Evidence], excluded: Collection[str] = ()
) -> Answer:
    """A candidate of the asked type, not named by the question, from the facts that say most of it."""
    q_words = {w for w in words(question)}
    names = {t for s in shape.subjects for t in content_terms(s)}
    q_terms = content_terms(question) - names  # what the question says of its named things
    focus = focus_terms(question) - names
    titles = {title_name(f.title): f.url for f in facts if f.title}
    titles_of = {f.url: f.title for f in facts}
    anchors, hopped = _path(question, facts)
    # of two pages the question names, the wh-word asks about the one it names last
    plain = plain_text(question).lower()
    last_anchor = (
        max(anchors, key=lambda u: plain.rfind(title_name(titles_of[u]))) if len(anchors) >= 2 else ""
    )
    # "Hayden is ... from Canada, but where does Buck-Tick hail from?": a page the question names
    # before its wh-word, with another named after it, is what the question states, not asks
    wh = WH.search(plain)
    at = {u: plain.rfind(title_name(titles_of[u])) for u in anchors}
    given = (
        {u for u, p in at.items() if p < wh.start()}
        if wh and len(anchors) >= 2 and any(p > wh.start() for p in at.values())
        else set()
    )
    # "the emperor who commissioned the Red Fort": with a page past the bridge read, a page the
    # question names only inside its relative clause is the way there, not where the answer is
    clause = clause_start(plain)
    inside = {u for u in anchors if clause >= 0 and plain.find(title_name(titles_of[u])) > clause}
    if inside and hopped - inside:
        given |= inside
    verb = asked_object_verb(plain) if shape.kind == "entity" else ""
    want = asked(question) if shape.kind == "number" else ANY_NUMBER
    # the class a "which X" question asks for, which a name may state ("Bass Strait")
    asked_class = (
        {stem(w) for w in wh_phrase(question)} - names if shape.kind in ("entity", "place") else set()
    )
    # a person asked of a person described ("the father of the shah ...") may be one of a kind
    bridges = described(question) - asked_class - (PERSON_NOUNS if shape.kind == "person" else set())
    # the best candidate on the question's path, and off it (considered only when none is on it)
    best_of: dict[bool, tuple[float, str, Evidence]] = {}
    stated_by: set[tuple[str, str]] = set()
    for i, f in enumerate(facts):
        on_path = not anchors or (f.url in anchors and f.url not in given) or f.url in hopped
        sentence_terms = content_terms(f.text)
        shared = len(sentence_terms & q_terms) + 0.5 * len(answer_terms(f.title) & q_terms)
        # a sentence naming the question's named things (other than its own page's subject) is
        # on the way: "Oh My God is a song by Guns N' Roses ..."
        shared += NAMED * len(sentence_terms & (names - content_terms(title_name(f.title))))
        # a bridge question's answer is on the hop's page; with the question's own pages read, a
        # page off the path (neither about a named thing nor reached from one) is a distractor
        hop = HOP_BONUS if f.url in hopped else 0.0 if on_path else -OFF_PATH
        if f.url == last_anchor and not hopped:  # "... represented VCU, which was founded when?"
            hop += HOP_BONUS / 2
        objects = _objects(verb, f, shape.subjects) if verb else []
        for cand, start, end in _candidates(shape.kind, f, want) + objects:
            c_words = [w for w in words(cand) if w not in STOPWORDS]
            if (
                not c_words
                or sum(w in q_words for w in c_words) >= 0.75 * len(c_words)
                or cand.lower() in excluded
            ):
                continue  # the question's own names are not its answer
            if cand.lower() in titles and titles[cand.lower()] != f.url:
                continue  # another page's subject is a hop on the way, not the answer
            near = content_terms(f.text[max(0, start - 60) : start] + " " + f.text[end : end + 40])
            local = len(near & focus) + 0.5 * len(near & q_terms)
            title_bonus = 0.0
            if shape.kind in ("person", "entity") and title_name(f.title) == cand.lower():
                title_bonus = (
                    1.0  # the page's subject, named in its lead: "Eenasul Fateh ... known as Aladin"
                )
            # the object of the question's own verb ("secured Ethiopian sovereignty") states the
            # question's relation, on whichever page: that page is the bridge's far side
            stated = (cand, start, end) in objects
            if stated:
                title_bonus += HOP_BONUS - min(hop, 0.0)
            if asked_class & {stem(w) for w in words(cand)} or (
                want.counted and counts(f.text, end, want, start)
            ):
                title_bonus += CLASS
            elif bridges and _is_a(cand, f.text[:start], facts) & bridges:
                title_bonus -= BRIDGE
            score = shared + 1.5 * local + title_bonus + hop - 0.02 * i
            key = on_path or stated
            if key not in best_of or score > best_of[key][0]:
                best_of[key] = (score, cand, f)
                if stated:
                    stated_by.add((cand, f.url))
    # a page whose subject is of the asked type ("... is a British ... medium bomber") is the
    # answer to "which X" before any other name (a place, one that outscores the others)
    typed = _subjects(question, shape, facts, hopped, excluded)
    if typed and shape.kind != "place":
        best_of = {True: max(typed, key=lambda t: t[0])}
    for score, cand, f in typed:
        if score > best_of.get(True, (float("-inf"),))[0]:
            best_of[True] = (score, cand, f)
    best = best_of.get(True)
    if best is None or best[0] < 1.0:
        best = best_of.get(False)
    if best is None or best[0] < 1.0:
        return Answer("", shape.kind, missing=[f"a {shape.kind} that answers the question"])
    score, cand, fact = best
    if shape.kind == "person" and plural_head(question) and best not in typed:
        cand = _listed(cand, fact, q_words)
    # a bridge is crossed once the answer comes from a hop's page, or from the question's own
    # page with a page it names read too, or with another page the question names (no bridge
    # to cross: "Hayden is from Canada, but where does Buck-Tick hail from?"); or the question
    # names no page read
    # or the answer is a page of the asked type whose fact names a thing the question names (the
    # adventure's page names "Tunnels & Trolls")
    bridged = (
        not anchors
        or fact.url in hopped
        or (fact.url in anchors and (bool(hopped) or len(anchors) >= 2))
        or (best in typed and bool(names & content_terms(plain_text(fact.text))))
        or (fact.url not in anchors and _states_the_clause(question, fact))
        or (fact.url not in anchors and (cand, fact.url) in stated_by)
    )
    return Answer(
        _as_titled(cand, facts),
        shape.kind,
        support=[fact],
        strength=round(score, 3),
        bridged=bridged,
        anchored=bool(anchors),
    )


def _as_its_page_titles_it(option: str, support: Sequence[Evidence]) -> str:
    """An option as the page read about it titles it, where the title is the option less the words
    that describe it: "the island of Sakhalin" -> "Sakhalin", "the comedy troupe Monty Python" ->
    "Monty Python"; never longer ("Millikan" stays, not "Robert Millikan")."""
    said = {w for w in words(option) if w not in STOPWORDS}
    for f in support:
        title = title_name(f.title, case=True)
        titled = {w for w in words(title) if w not in STOPWORDS}
        if titled and titled <= said:
            return title
    return option


def _as_titled(cand: str, facts: Sequence[Evidence]) -> str:
    """A name as a page read titles the same words in another order: "City of New York" ->
    "New York City" (the name it is known by)."""
    key = sorted(w for w in words(cand) if w not in STOPWORDS)
    for f in facts:
        title = title_name(f.title, case=True)
        if title and len(key) >= 2 and sorted(w for w in words(title) if w not in STOPWORDS) == key:
            return title
    return cand


def _objects(verb: str, fact: Evidence, subjects: Sequence[str]) -> list[tuple[str, int, int]]:
    """What a sentence says the question's verb acted on, less the question's named things:
    "... and secured Ethiopian sovereignty." -> "sovereignty" for "secured what for Ethiopia?"."""
    named = {t for s in subjects for t in answer_terms(s)}
    out = []
    for m in re.finditer(
        rf"\b{re.escape(stem(verb))}\w*\s+((?:[\w'’-]+\s+){{0,3}}?[\w'’-]+)(?=\s*[,.;:]|\s+{PREPOSITIONS}\b|\s+(?:and|as)\b|$)",
        fact.text,
        re.I,
    ):
        kept = m.group(1).split()
        while kept and (kept[0].lower() in STOPWORDS or stem(kept[0].lower()) in named):
            kept = kept[1:]  # "Ethiopian sovereignty" for Ethiopia: "sovereignty"
        if kept and not any(w.lower() in STOPWORDS for w in kept):
            name = " ".join(kept)
            at = fact.text.index(kept[0], m.start(1))
            out.append((name, at, at + len(name)))
    return out


def _states_the_clause(question: str, fact: Evidence) -> bool:
    """The answer's sentence states what the question says of the thing past its bridge (the
    clause after its last "that" / "which": "a chain that operated how many hypermarkets at the
    end of 2016" and "... with 1,462 hypermarkets at the end of 2016"): that sentence's page, not
    one the question names, is the bridge's far side, though no fact read names it."""
    clauses = re.split(r"\b(?:that|which)\b", plain_text(question), flags=re.I)
    if len(clauses) < 2:
        return False
    clause = content_terms(clauses[-1]) - {"year", "name", "many", "much"}
    return len(clause) >= 3 and len(clause & content_terms(fact.text)) >= 0.75 * len(clause)


def _listed(cand: str, fact: Evidence, q_words: set[str]) -> str:
    """The people a sentence lists with ``cand`` ("written by Goulding, Max Martin, Savan Kotecha
    and Ilya Salmanzadeh" -> the three the question does not name), as "A, B and C"."""
    people = []
    for name, _, _ in _candidates("person", fact):
        c_words = [w for w in words(name) if w not in STOPWORDS]
        if c_words and sum(w in q_words for w in c_words) < 0.75 * len(c_words) and name not in people:
            people.append(name)
    if cand not in people or len(people) < 2:
        return cand
    return ", ".join(people[:-1]) + " and " + people[-1]


def _is_a(cand: str, before: str, facts: Sequence[Evidence]) -> set[str]:
    """What a name is said to be, stemmed: its own words ("Songhai Empire" is an empire), the head
    of its page's "is a ..." ("Eugene Onegin is a novel in verse"), or the noun just before it
    ("the pamphlet The Communist Manifesto", "his debut novel, Things Fall Apart")."""
    kinds = {stem(w) for w in words(cand)}
    defined = re.split(rf"\s{PREPOSITIONS}\s", what_it_is(cand, facts).lower(), maxsplit=1)[0].split()
    if defined:
        kinds.add(stem(defined[-1]))
    m = re.search(r"\b([a-z][a-z-]{2,}),?\s+(?:the\s+)?$", before)
    if m:
        kinds.add(stem(m.group(1)))
    return kinds


#: a sentence that says what its subject is: "... is a British ... bomber", "was one of the ..."
_DEFINES = re.compile(r"\b(?:is|was|are|were)\s+(?:a|an|the|one of the|one of)\s", re.I)
#: where the complement of "is a ..." ends: "a suburb | in the City of Marion"
_COMPLEMENT_END = re.compile(r"[,;.(]|\s(?:in|at|based|located|from|by|that|which|who|near|on)\s")


def what_it_is(name: str, facts: Sequence[Evidence]) -> str:
    """What the facts say ``name`` is: the complement of "is a ..." in the lead of its own page
    ("French Academy of Sciences is a learned society ..." -> "learned society"), else ""."""
    key = name.lower()
    for f in facts:
        if title_name(f.title) == key or f.text.lower().startswith(key):
            m = _DEFINES.search(f.text)
            if m and m.start() < 200:
                return _COMPLEMENT_END.split(f.text[m.end() :], maxsplit=1)[0].strip()
    return ""


def _subjects(
    question: str,
    shape: QuestionShape,
    facts: Sequence[Evidence],
    hopped: set[str],
    excluded: Collection[str],
) -> list[tuple[float, str, Evidence]]:
    """Pages whose own subject is what a "which X" question asks for: a fact of the page calls
    it the X ("The English Electric Canberra is a British first-generation jet-powered medium
    bomber"); scored by the X's words it states, then by the rest of the question on the page."""
    phrase = wh_phrase(question)
    if shape.kind not in ("entity", "place", "person") or not phrase:
        return []
    head = stem(words(phrase[-1])[-1])
    typed = content_terms(" ".join(phrase)) - {t for n in shape.subjects for t in content_terms(n)}
    q_terms = content_terms(question)
    names = {t for n in shape.subjects for t in content_terms(n)}
    by_page: dict[str, list[Evidence]] = {}
    for f in facts:
        if f.title:
            by_page.setdefault(f.url, []).append(f)
    out = []
    for url, page in by_page.items():
        subject = title_name(page[0].title, case=True)
        if not subject or subject.lower() in excluded or subject.lower() in plain_text(question).lower():
            continue
        stating = [
            (len(typed & content_terms(f.text)), f)
            for f in page
            for m in [_DEFINES.search(f.text)]
            if m and head in content_terms(_COMPLEMENT_END.split(f.text[m.end() :], maxsplit=1)[0])
        ]
        if not stating or head not in typed:
            continue
        matched, fact = max(stating, key=lambda x: x[0])
        if matched < min(2, len(typed)):
            continue
        rest = len(q_terms & set().union(*(content_terms(f.text) for f in page)) - typed)
        named = len(names & content_terms(fact.text))
        # the subject as its fact writes it: "Yellowcraig, less commonly known as ..." (page "Yellowcraigs")
        stated = next(
            (n for n in names_in(fact.text)[:1] if n != subject and n.lower()[:5] == subject.lower()[:5]),
            subject,
        )
        out.append((2.0 * matched + 0.5 * rest + named + (HOP_BONUS if url in hopped else 0.0), stated, fact))
    return out


def _path(question: str, facts: Sequence[Evidence]) -> tuple[set[str], set[str]]:
    """The pages on a bridge question's path: anchors (about a thing the question names: the
    first hop) and hops (about a thing another anchor's facts name: the second). With no anchor,
    hops are the pages another page's facts name, the question not.

    An anchor's title is in the question as the question writes it ("Kiss" is no anchor of
    "what hedgehog", nor "World War II" beside "South West Pacific theatre of World War II"); a
    hop named by its whole title comes before one named by a short title's last name only, and
    of namesakes ("Boston", "Boston, Lincolnshire") the one whose qualifier is named too."""

    def named(name: str, text: str, case: bool = False) -> bool:
        return (
            len(name) >= 3
            and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text, 0 if case else re.I) is not None
        )

    def whole_name(name: str, text: str) -> bool:
        """Named as a whole name, not as part of a longer one ("Shaka" in "Shaka Smart")."""

        def before(start: int) -> str:
            m = re.search(r"([A-Z][\w'’.-]*)\s$", text[:start])
            return m.group(1) if m and m.group(1) not in LEADING else ""

        return len(name) >= 3 and any(
            not before(m.start()) and not re.match(r"\s[A-Z]", text[m.end() :])
            for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text)
        )

    def last_name(title: str, text: str) -> bool:
        """A short title's last name on its own: "the Nixon administration" for "Richard Nixon"
        (not "Corliss Archer" for "Meet Corliss Archer")."""
        tokens = title_name(title, case=True).split()
        return (
            2 <= len(tokens) <= 3
            and len(tokens[-1]) >= 4
            and tokens[-1][0].isupper()
            and whole_name(tokens[-1], text)
        )

    pages = {f.url: f.title for f in facts if f.title}
    q = plain_text(question)
    anchors = {u for u, t in pages.items() if whole_name(title_name(t, case=True), q)}
    names = {u: title_name(pages[u]) for u in anchors}
    anchors = {u for u in anchors if not any(names[u] != n and names[u] in n for n in names.values())}
    # a fact names another page, not the words of its own page's name ("Kiss" in "Kiss and Tell")
    said = [
        (f.url, plain_text(f.text).replace(title_name(f.title, case=True), " "))
        for f in facts
        if f.url in anchors or not anchors
    ]
    # namesakes: the page whose qualifier the facts name too ("Boston, Lincolnshire" for "the
    # Boston district of Lincolnshire") is the hop, not "Boston"
    qualified = {
        u
        for u, t in pages.items()
        if title_qualifier(t)
        and any(v != u and named(title_base(t), x) and named(title_qualifier(t), x) for v, x in said)
    }
    relation = {t[:4] for t in content_terms(q) - content_terms(" ".join(names_in(q))) if len(t) >= 4}

    def related(start: int, text: str) -> int:
        """How many of the question's words (by their first four letters: "writer", "written")
        the words just before a mention state: "written by Lee Hazlewood"."""
        return len({t[:4] for t in content_terms(text[max(0, start - 40) : start])} & relation)

    def hop_in(title: str, text: str) -> bool:
        """The sentence names the page, and no other name in it is closer to the question's
        relation ("written by Lee Hazlewood and recorded by Nancy Sinatra": not Nancy Sinatra)."""
        name = title_name(title, case=True)
        if not whole_name(name, text):
            return False
        at = max(related(m.start(), text) for m in re.finditer(re.escape(name), text))
        best = max(
            (
                related(m.start(), text)
                for m in NAME.finditer(text)
                if m.group()[0].isupper() and not named(m.group(), q)  # the question's own: no rival
            ),
            default=0,
        )
        return at >= best

    whole = {u for u, t in pages.items() if any(v != u and hop_in(t, x) for v, x in said)}
    whole = qualified | {
        u for u in whole if title_base(pages[u]) not in {title_base(pages[v]) for v in qualified}
    }
    hopped = whole or {u for u, t in pages.items() if any(v != u and last_name(t, x) for v, x in said)}
    return anchors, hopped


def _candidates(kind: str, fact: Evidence, want: Asked = ANY_NUMBER) -> list[tuple[str, int, int]]:
    text = fact.text
    out: list[tuple[str, int, int]] = []
    if kind in ("year", "date"):
        return date_candidates(text, year_only=kind == "year")
    if kind == "number":
        return number_candidates(text, want)
    quoted = [(q.start(1), q.end(1)) for q in QUOTED.finditer(text)]
    for m in NAME.finditer(text):
        raw = m.group()
        tokens = raw.strip(" .,'’").split()
        lead = 0
        while tokens and tokens[0] in LEADING:
            lead += len(tokens[0]) + 1
            tokens = tokens[1:]
        while tokens and tokens[-1].lower() in {"of", "the", "and", "de", "for", "on", "in", "&"}:
            tokens = tokens[:-1]
        if tokens and tokens[-1].endswith(("'s", "’s")):  # "Mao Zedong's": the name, not its possessive
            tokens[-1] = tokens[-1][:-2]
        # "1988 and the North Atlantic Conference": a number joined to the name is no part of it
        while len(tokens) > 1 and tokens[0].isdigit() and tokens[1] in ("and", "the", "of", "&"):
            skip = 1
            while skip < len(tokens) and tokens[skip] in ("and", "the", "of", "&"):
                skip += 1
            lead += sum(len(t) + 1 for t in tokens[:skip])
            tokens = tokens[skip:]
        # no name: a number ("1988 and the ..."), a month, or a date ("October 16")
        if (
            not tokens
            or tokens[0].isdigit()
            or all(t in MONTH_WORDS or _ORDINAL.fullmatch(t) for t in tokens)
        ):
            continue
        if kind == "person":
            tokens, lead = _person(tokens, lead)
            if (
                not tokens
                or _NATIONALITY.fullmatch(tokens[0])
                or (len(tokens) < 2 and not _called(text[: m.start() + lead]))
            ):
                continue
        if (
            kind == "place"
            and (
                _NATIONALITY.fullmatch(" ".join(tokens))
                or tokens[-1].lower() in _ORGANISATIONS
                or any(t[0].isdigit() for t in tokens)  # "to Year 12" is no place
                or not re.search(r"\b(?:in|at|near|from|of|to)\s+(?:the\s+)?$", text[: m.start() + lead])
            )
        ):
            continue
        cand = " ".join(tokens)
        start = m.start() + lead
        if any(a <= start and start + len(cand) <= b and b - a > len(cand) for a, b in quoted):
            continue  # a part of a quoted title is no name of its own: "My Mind" in "On My Mind"
        parts = re.split(r" (?:and|&) ", cand)
        # "Frank Sinatra and Nancy Sinatra", "World War I and World War II": two names (a title
        # with a lower-case word after "and" is one: "Winnie the Pooh and the Blustery Day")
        if len(parts) > 1 and (kind == "person" or (kind == "entity" and all(p[0].isupper() for p in parts))):
            at = 0
            for name in re.split(r" (?:and|&) ", cand):
                at = cand.index(name, at)
                if len(name.split()) >= 2:
                    out.append((name, start + at, start + at + len(name)))
                at += len(name)
            continue
        out.append((cand, start, start + len(cand)))
    if kind == "entity":
        out += [(m.group(1), m.start(1), m.end(1)) for m in QUOTED.finditer(text)]
    return out


#: words that title a person in a sentence, not part of the name: "New York Governor Nelson Rockefeller"
_ROLES = {
    "Governor", "President", "Vice", "Senator", "Prime", "Minister", "King", "Queen", "Prince", "Princess",
    "General", "Sir", "Dame", "Dr", "Dr.", "Judge", "Mayor", "Secretary", "Lord", "Lady", "Pope", "Saint",
    "Captain", "Colonel", "Admiral", "Professor", "Chancellor", "Emperor", "Bishop", "Representative",
}  # fmt: skip


def _called(before: str) -> bool:
    """A one-word name is a person's where the sentence calls it one just before: "the
    2nd-century astronomer Ptolemy", "the philosopher Aristotle" (most one-word names are not)."""
    word = re.search(r"([A-Za-z-]+)\s+$", before)
    return bool(word) and stem(word.group(1).lower()) in PERSON_NOUNS


def _person(tokens: list[str], lead: int) -> tuple[list[str], int]:
    """A person's name among a name's tokens: after any title ("Governor"), up to a possessive
    ("Nelson Rockefeller's Committee"); none with a digit or a month ("May 23" is no person)."""
    for i, t in enumerate(tokens):
        if t.endswith(("'s", "’s")):
            tokens = tokens[:i] + [t[:-2]]
            break
    roles = [i for i, t in enumerate(tokens) if t in _ROLES]
    if roles and len(tokens) - roles[-1] - 1 >= 2 and tokens[roles[-1] + 1][0].isupper():
        lead += sum(len(t) + 1 for t in tokens[: roles[-1] + 1])
        tokens = tokens[roles[-1] + 1 :]
    if (
        not tokens
        or not tokens[0][0].isupper()
        or any(
            any(c.isdigit() for c in t)
            or t in MONTH_WORDS
            or t.lower() in _ORGANISATIONS | {"of", "the", "for"}
            for t in tokens
        )
    ):
        return [], lead
    return tokens, lead


def _unique(facts: Sequence[Evidence]) -> list[Evidence]:
    return list({(f.url, f.text): f for f in facts}.values())
