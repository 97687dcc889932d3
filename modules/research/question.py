"""What a question asks, read from its words alone: its kind (yes/no, a choice between two
options, or a wh-question whose answer has a type), the things it names, the attribute it asks
about, the class a "which X" asks for, and the things it describes on the way to its answer (a
bridge question's "the novel that ..."). The answerer (:mod:`.answer`), the crawl Decision and the
calibrator read questions through it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text import STOPWORDS, comparison_order, content_terms, stem, words
from .measures import asks_measure
from .titles import plain_text

_AUX = r"(?:are|is|was|were|did|do|does|has|have|had|can|could|will|would)"
_YES_NO = re.compile(rf"^\s*{_AUX}\b", re.I)
NAME = re.compile(
    r"(?:[A-Z][\w'’.\-]*|\d+(?:st|nd|rd|th)?)(?:\s+(?:(?:of|the|de|del|da|di|von|van|and|for|du|la|le|&)\s+)*"
    r"(?:[A-Z][\w'’.\-]*|\d+(?:st|nd|rd|th)?))*"
)
QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
LEADING = {
    "The", "A", "An", "He", "She", "It", "They", "In", "On", "At", "His", "Her", "Its", "This", "That",
    "There", "These", "Those", "After", "Before", "During", "When", "While", "As", "For", "From", "With",
    "Which", "What", "Who", "Where", "How", "Why", "Is", "Are", "Was", "Were", "Both", "And", "But", "Or",
    "By", "Since", "Following", "According", "Although", "Today", "Currently", "Also",
}  # fmt: skip
#: head nouns of a "which X" phrase that ask for a person (stemmed: "writers" -> "writer")
PERSON_NOUNS = {
    stem(w)
    for w in "person people man woman actor actress singer songwriter writer author director producer player "
    "pilot driver composer president politician artist musician screenwriter industrialist businessman "
    "founder poet novelist painter philosopher scientist footballer athlete coach manager leader ruler "
    "king queen emperor rapper comedian dancer journalist architect lyricist prince princess duke pope "
    "shah sultan caliph tsar pharaoh khan chemist physicist mathematician astronomer father mother son "
    "daughter wife husband brother sister historian god goddess deity saint prophet chieftain general explorer "
    "inventor engineer sculptor playwright theologian monk priest bishop cardinal statesman soldier warrior "
    "mystic disciple student teacher geologist biologist botanist economist psychologist linguist geographer "
    "geometer physician surgeon naturalist".split()
}
#: attribute words that name the same thing ("genera" is the plural of "genus")
SAME = {"genera": "genus", "genu": "genus", "documentari": "documentary", "documentary": "documentary"}


@dataclass
class QuestionShape:
    """What a question asks: its kind, the named things (subjects or options) and the attribute."""

    kind: str  # yes_no | choice | person | date | year | number | place | entity
    subjects: list[str]
    attribute: set[str]  # stemmed content words the answer must speak of
    same: bool = False  # "the same nationality": compare values, not check membership
    order: str = ""  # choice by date or amount: older | younger | more | fewer


def names_in(text: str) -> list[str]:
    out = []
    for m in NAME.finditer(text):
        tokens = m.group().strip(" .,'’").split()
        while tokens and tokens[0] in LEADING:
            tokens = tokens[1:]
        while tokens and tokens[-1].lower() in {"of", "the", "and", "de", "for", "on", "in", "&"}:
            tokens = tokens[:-1]
        if tokens:
            out.append(" ".join(tokens))
    return out


def _split_options(text: str) -> list[str]:
    """ "Annie Morton or Terry Richardson" -> both; "the Manchester Terrier or the Scotch Collie" too."""
    parts = [p.strip(" ,.?:;\"'") for p in re.split(r"\s+or\s+", text.strip(" ?"), maxsplit=1)]
    return [re.sub(r"^(?:the|a|an)\s+", "", p, flags=re.I) for p in parts if p]


def read_question(question: str) -> QuestionShape:
    """The question's kind, its subjects or options, and the attribute it asks about."""
    q = " ".join(question.split()).strip()
    body = q.rstrip(" ?.")
    # a choice: "Who is older, A or B?", "Which band, A or B, had more members?", "..., A or B?"
    m = re.search(r"[,:]\s*([^,:]+?\s+or\s+[^,:?]+?)\s*(?:[,?]|$)", body + "?") or re.search(
        r"\b(?:older|younger|elder)\s+(.+?\s+or\s+.+?)\s*$", body
    )
    if m and not _YES_NO.match(q):
        options = _split_options(m.group(1))
        rest = (body[: m.start(1)] + " " + body[m.end(1) :]).strip()
        order = comparison_order(rest)
        if len(options) == 2:
            return QuestionShape("choice", options, _attribute(rest, options), order=order)
    if _YES_NO.match(q):
        subjects = _yes_no_subjects(body)
        joined = len(subjects) == 2 and re.search(
            rf"{re.escape(subjects[0])}\s+or\s+(?:the\s+)?{re.escape(subjects[1])}", body
        )
        if joined and (order := comparison_order(body[joined.end() :])):  # "Was A or B established first?"
            return QuestionShape("choice", subjects, _attribute(body, subjects), order=order)
        return QuestionShape(
            "yes_no",
            subjects,
            _attribute(body, subjects),
            same=bool(re.search(r"\b(same|similar|identical|share|both from the same)\b", body, re.I)),
        )
    low = q.lower()
    if re.search(r"\b(?:what|which|in what|since what)\s+(?:year|decade)\b", low):
        kind = "year"
    elif asks_measure(low):
        kind = "number"
    elif re.search(
        r"\bwhen\b|\bwhat (?:years|timeframe|time|period|era)\b|\bhow long\b"
        r"|\b(?:what|which) (?:date|month|day|century)\b",  # "in which month and year": no place
        low,
    ):
        kind = "date"
    elif re.search(r"\bhow (?:many|any|much|large|big|tall|long|far|old)\b|\bpopulation\b", low):
        kind = "number"
    elif re.search(
        r"\bwhere\b|\bwhat (?:\w+ )?(?:city|town|country|state|county|place|region|area|village|location)\b"
        r"|\bin what\b|\bwhich (?:\w+ )?(?:city|town|country|state|county|place)\b",
        low,
    ):
        kind = "place"
    elif (
        re.search(r"^(?:who|whom|whose)\b|\bwho (?:is|was|were)\b|\bby whom\b|\bby who\b", low)
        # a statement that asks with "who" alone: "... founded by an American industrialist who became ..."
        or (re.search(r"\bwho\b", low) and not re.search(r"\b(?:what|which|when|where|how)\b", low))
        # "Which other Mexican Formula One race car driver ...", "what other writers ...": the head noun
        or (bool(phrase := wh_phrase(q)) and stem(words(phrase[-1])[-1]) in PERSON_NOUNS)
    ) or re.search(
        r"\bwhich (?:\w+ )?(?:person|actor|actress|singer|writer|director|player|pilot|driver|author|"
        r"composer|president|vice president|politician|man|woman|artist|musician|screenwriter)\b"
        r"|\bwhat (?:\w+ )?(?:screenwriter|actor|actress|singer|writer|director|author|person)\b"
        r"|\bunder which\b.*\b(?:president|minister|king|queen)\b",
        low,
    ):
        kind = "person"
    else:
        kind = "entity"
    subjects = names_in(re.sub(r"^\s*\w+", "", q)) + QUOTED.findall(q)
    return QuestionShape(kind, list(dict.fromkeys(s for s in subjects if s)), _attribute(body, subjects))


PREPOSITIONS = r"(?:for|to|in|of|on|at|by|with|from|against|over)"


#: lower-case words inside a person's name ("Antonie van Leeuwenhoek", "Ibn Battuta")
_PARTICLES = "van|von|de|der|den|del|della|da|di|du|la|le|bin|ibn|al|y"


#: lower-case words before a name, which say what kind of thing it is ("composers", "tennis
#: players"); not a relation to it ("the authors of Dracula" is a person, not Dracula)
_LEADING_CLASS = re.compile(rf"^(?:(?!{PREPOSITIONS}\b)[a-z][\w-]*\s+)+(?=[A-Z])")


def _yes_no_subjects(body: str) -> list[str]:
    """The two things a yes/no question names: "Are A and B both ..." / "Were A and B of the same ..."."""
    rest = re.sub(rf"^\s*{_AUX}\s+(?:both\s+)?", "", body, flags=re.I)
    # the second name ends at a lower-case word, not at "for" or "on" before a capital ("the
    # Organization for Security and Co-operation in Europe")
    m = re.match(
        r"(.+?)\s+and\s+(?:(?:the|a|an)\s+)?(.+?),?\s+(?:both|of the same|the same|located|from|in the same|described|used|types?|"
        r"genera|considered|part|members?|based|(?!(?:the|of|a|an|and|"
        + _PARTICLES
        + r")\b|(?:for|on|upon)\s+[A-Z])[a-z]+)\b",
        rest,
    )
    if m:
        pair = [m.group(1), m.group(2)]
        # "the composers Anton Bruckner": the name, not the class words before it
        return [
            _LEADING_CLASS.sub("", re.sub(r"^(?:the|a|an)\s+", "", p.strip(" ,"), flags=re.I)) for p in pair
        ]
    return names_in(rest)[:2]


def _attribute(text: str, subjects: Sequence[str]) -> set[str]:
    """The question's own words less its subjects, wh-words and auxiliaries, stemmed."""
    rest = text
    for s in sorted(subjects, key=len, reverse=True):
        rest = rest.replace(s, " ")
    drop = {"same", "both", "older", "younger", "which", "who", "what", "more", "fewer", "higher", "lower"}
    drop |= {"typ", "type", "kind", "sort", "describ", "described", "locat", "located", "name", "consider"}
    return {SAME.get(t, t) for t in content_terms(rest) if t not in drop}


#: "What gas do plants release during ...": a fronted object, then the auxiliary, a short subject
#: (no preposition in it) and the verb, at the end or before a preposition other than "of" (a noun's)
_FRONTED_OBJECT = re.compile(
    r"^\s*(?:what|which)\s+[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:do|does|did)\s+(?:(?:the|a|an|his|her|its|their)\s+)?"
    r"[\w'’-]+(?:\s+[\w'’-]+)?\s+([a-z]{3,})(?=\s+(?:for|to|in|on|at|by|with|from|against|over|during|after|before|when|while)\b|\s*[?.]?\s*$)"
)


def asked_object_verb(question: str) -> str:
    """The verb whose object a question asks for: with a bare "what" ("... secured what for
    Ethiopia?" -> "secured"; "" for "what hedgehog", "in what year": a typed "what"), or fronted
    ("What gas do plants release during photosynthesis?" -> "release")."""
    low = question.lower()
    m = re.search(
        rf"\b([a-z]{{4,}})\s+what(?=\s+{PREPOSITIONS}\b|\s*[?.]?\s*$)", low
    ) or _FRONTED_OBJECT.match(low)
    return m.group(1) if m and m.group(1) not in _WH_STOP else ""


def plural_head(question: str) -> bool:
    """ "what other writers ...": the question asks for several people, not one."""
    phrase = wh_phrase(question)
    head = phrase[-1] if phrase else ""
    return len(head) > 3 and head.endswith("s") and not head.endswith("ss") and stem(head) != head


_WH_STOP = {
    "is", "was", "are", "were", "did", "does", "do", "has", "had", "have", "can", "could", "will", "would",
    "that", "who", "which", "whose", "whom", "in", "of", "from", "by", "for", "with", "on", "at", "to", "and",
    "as", "the", "a", "an", "also", "this", "these", "its", "his", "her", "their", "not",
}  # fmt: skip


def wh_phrase(question: str) -> list[str]:
    """The words that type a "which X" answer, head noun last: "Which British first-generation
    jet-powered medium bomber was used ..." -> [british, first-generation, jet-powered, medium,
    bomber]; "What is the name for the adventure in ..." -> [adventure]; [] for who / when."""
    low = plain_text(question).lower()
    m = re.search(
        r"\b(?:what|which)\s+(?:is|was)\s+the\s+name\s+(?:of|for)\s+(?:the|a|an)\s+(.*)", low
    ) or re.search(r"\b(?:what|which)\s+(?!is\b|was\b|are\b|were\b|did\b|does\b|do\b)(.*)", low)
    out: list[str] = []
    for w in re.findall(r"[\w'’-]+|[,?;:.]", m.group(1) if m else ""):
        if (
            w in _WH_STOP
            or not w[0].isalnum()
            or (len(w) > 4 and w.endswith("ed") and "-" not in w and out)
            or len(out) >= 7
        ):
            break
        out.append(w)
    return out


#: a described thing's head noun: after a determiner or a possessive, before a relative word, a
#: preposition, a verb or the end ("the imperial dynasty during whose ...", "Achebe's debut novel in")
_DESCRIBED = re.compile(
    r"(?:\b(?:the|a|an|its|his|her|their|whose)|[\w.-]['’]s)\s+(?:[\w'’.-]+\s+){0,4}?([a-z][a-z-]{2,})"
    rf"(?=\s*(?:[,?;:]|$|\s+(?:that|which|who|whom|whose|where|when|is|was|are|were|has|had|{PREPOSITIONS}|during|after|before|[a-z]+ed)\b))"
)


def described(question: str) -> set[str]:
    """The head nouns of the things a question describes rather than names, stemmed: "Who wrote
    the novel in verse that shares its title with the opera ...?" -> {novel, title, opera}. The
    answer to a question about "the X that ..." is something said of the X, not the X; what "What
    is the X of ..." asks is the X."""
    low = plain_text(question)
    m = re.search(
        r"\b(?:what|which)\s+(?:is|was|are|were)\s+(?:the|a|an)\s+(?:[\w-]+\s+)?([\w-]+)\s+of\b", low, re.I
    )
    heads = {stem(h.group(1)) for h in _DESCRIBED.finditer(low)} - {stem(m.group(1).lower()) if m else ""}
    return {h for h in heads if h not in STOPWORDS} - {"year", "name", "date", "number", "time"}


#: a relative word: what follows it describes a thing by its relation to another
_RELATIVE = re.compile(r"\b(?:who|whom|whose|which|that|where)\b")
#: a question's wh-word
WH = re.compile(r"\b(?:what|which|who|whom|whose|when|where|how)\b")


def clause_start(question: str) -> int:
    """Where the first relative clause after the wh-word starts in ``question`` ("In what year was
    the Mughal emperor who commissioned the Red Fort deposed?": at "who"); -1 for none. A thing
    named only inside it is how the question reaches what it asks about, not that thing: the
    answer is said of the emperor, on the emperor's page, not on the Red Fort's."""
    low = question.lower()
    wh = WH.search(low)
    rel = _RELATIVE.search(low, wh.end()) if wh else None
    return rel.start() if rel else -1


def focus_terms(question: str) -> set[str]:
    """The words next to the wh-word, which the answer's own sentence repeats around it:
    "founded in what year" -> {found}; "headquartered" in "Where is ... headquartered?"."""
    low = question.lower()
    m = re.search(r"\b(?:what|which|who|whom|when|where|how)\b", low)
    near = low[max(0, (m.start() if m else 0) - 30) : (m.end() if m else 0) + 40]
    tail = " ".join(words(low)[-3:])
    return content_terms(near + " " + tail) - {"year", "name", "type"}
