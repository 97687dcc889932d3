"""Atomic facts: one checkable fact per claim, its subject restored (FActScore-style).

A claim that bundles facts has no right verdict: "The Team plan costs $12 per user per month and
adds shared workspaces and SSO" is neither found nor missing in an answer that gets the price
right and leaves SSO out. So, as in atomic-fact evaluation (Min et al. 2023, FActScore), a
sentence is split into facts that each repeat the subject ("The Team plan costs $12 per user per
month", "The Team plan adds shared workspaces", "The Team plan adds SSO").

A wrong split makes a wrong claim while a missed one only makes a coarser claim, so the rules are
lexical and cautious, splitting only where the structure shows without a parser:

- clauses: at a semicolon, and at ', and' / ', but' / ', while' / ', whereas' before a clause or
  a verb phrase (which takes the first clause's subject, as does a clause opening with 'it' /
  'they');
- coordinated verb phrases: 'costs X and adds Y' (the second verb from a small lexicon, in the
  first one's form), 'can enable X and export Y' (the second keeps the auxiliary or modal);
- a list after the verb: 'adds A, B and C', items of at most five words ending their clause, a
  shared preposition going with each item ('works offline on desktop and mobile');
- never: a range ('between 5 and 10'), two capitalised words ('Procter and Gamble'), fixed pairs
  ('terms and conditions'), adjectives or gerunds sharing a noun, items that hold only together
  ('composed of A and B'), quotes, brackets, 'or', or a sentence whose subject is not found; an
  example list (', such as A, B and C,') is dropped as an aside.

A fact is subject + verb + one conjunct, in the sentence's own words and order; only the case of
the first letter changes.
"""

from __future__ import annotations

import re

_MAX_ITEM = 5  # words in one list item (and in the last one)
_MAX_SUBJECT = 8

_COPULA = {"is", "are", "was", "were"}
_AUX = _COPULA | {"be", "been", "has", "have", "had"}
_MODALS = {"can", "cannot", "could", "will", "would", "may", "might", "must", "should", "shall"}
_FORM_OF = {
    "is": "3sg",
    "has": "3sg",
    "does": "3sg",
    "are": "base",
    "have": "base",
    "do": "base",
    "was": "past",
    "were": "past",
    "had": "past",
    "did": "past",
}

# common verbs of fact sentences; their -s and past forms are derived (irregular pasts below)
_VERB_BASES = """accept access add allow appear apply archive attach become begin block bring build call
carry contain cost cover create date define delete deliver depend describe design develop display
download earn enable encrypt end ensure export extend feature find form generate give grant grow help
hold host import improve include keep last launch lead let lie link list make manage mark measure meet
need offer open operate own pay play power present prevent print produce protect provide reach receive
record reduce release remain remove replace represent require reset restore return run save scan sell
send serve share ship show sign sit start stay stand store supply support sync take track transfer
turn update upload use win work write""".split()
_IRREGULAR_PAST = {
    "become": "became",
    "begin": "began",
    "bring": "brought",
    "build": "built",
    "cost": "cost",
    "find": "found",
    "give": "gave",
    "grow": "grew",
    "hold": "held",
    "keep": "kept",
    "lead": "led",
    "let": "let",
    "lie": "lay",
    "make": "made",
    "meet": "met",
    "pay": "paid",
    "reset": "reset",
    "run": "ran",
    "scan": "scanned",
    "sell": "sold",
    "send": "sent",
    "ship": "shipped",
    "sit": "sat",
    "stand": "stood",
    "take": "took",
    "win": "won",
    "write": "wrote",
}
_PARTICIPLES = {
    "built",
    "made",
    "held",
    "kept",
    "led",
    "won",
    "sold",
    "found",
    "brought",
    "given",
    "taken",
    "written",
    "grown",
    "known",
    "shown",
    "seen",
    "done",
    "begun",
    "sent",
    "paid",
    "set",
    "put",
    "cut",
    "become",
    "run",
    "met",
    "lost",
    "born",
    "stood",
}


def _third_person(base: str) -> str:
    if base.endswith(("ch", "sh", "s", "x", "z")):
        return base + "es"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def _past(base: str) -> str:
    if base in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[base]
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


for _b in _VERB_BASES:
    _FORM_OF.setdefault(_b, "base")
    _FORM_OF.setdefault(_third_person(_b), "3sg")
    _FORM_OF.setdefault(_past(_b), "past")
for _m in _MODALS:
    _FORM_OF[_m] = "modal"

_PREPS = {
    "on",
    "in",
    "at",
    "for",
    "with",
    "across",
    "to",
    "into",
    "onto",
    "from",
    "via",
    "by",
    "under",
    "over",
    "through",
    "within",
    "without",
    "between",
    "among",
    "during",
    "after",
    "before",
    "as",
    "per",
    "of",
    "against",
    "around",
    "near",
    "beyond",
    "inside",
    "outside",
    "throughout",
    "toward",
    "towards",
    "up",
}
_EXAMPLE_MARKERS = {"like", "including", "e.g.", "especially", "notably"}  # and 'such as'
DETERMINERS = {  # words that open a noun phrase: 'the', 'its', 'every'; shared with generate.py
    "the",
    "a",
    "an",
    "all",
    "our",
    "your",
    "this",
    "these",
    "those",
    "its",
    "their",
    "his",
    "her",
    "each",
    "every",
    "some",
    "most",
    "many",
    "any",
    "no",
    "both",
}
_RELATIVES = {
    "which",
    "who",
    "whom",
    "whose",
    "where",
    "wherein",
    "whereby",
    "that",
    "when",
    "whenever",
    "while",
    "whereas",
    "although",
    "though",
    "because",
    "if",
    "unless",
    "until",
    "since",
    "so",
}
_SUBORDINATORS = (
    _RELATIVES
    | _PREPS
    | {
        "as",
        "once",
        "whether",
        "unlike",
        "like",
        "despite",
        "besides",
        "except",
        "according",
        "due",
        "similar",
        "following",
        "upon",
        "along",
        "beside",
        "behind",
        "below",
        "above",
        "beneath",
        "amid",
        "regarding",
        "considering",
        "including",
        "given",
        "versus",
        "namely",
        "however",
        "also",
        "then",
        "thus",
        "not",
        "therefore",
        "hence",
        "or",
        "and",
        "but",
        "nor",
        "yet",
    }
)
_FUNCTION = (
    DETERMINERS | _PREPS | _SUBORDINATORS | {"and", "or", "but", "not", "than", "that", "which", "who"}
)
_NUMBER_WORDS = {
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "hundred",
    "thousand",
    "million",
    "billion",
    "dozen",
}
_FIXED_PAIRS = {
    tuple(p.split())
    for p in (
        "research development",
        "terms conditions",
        "pros cons",
        "black white",
        "salt pepper",
        "rock roll",
        "trial error",
        "supply demand",
        "profit loss",
        "mergers acquisitions",
        "health safety",
        "questions answers",
        "question answer",
        "q a",
        "r d",
        "bread butter",
        "arts crafts",
        "oil gas",
        "food drink",
        "food beverage",
        "law order",
        "wear tear",
        "back forth",
        "up down",
        "more more",
        "search rescue",
        "drag drop",
        "copy paste",
        "cut paste",
        "plug play",
        "rules regulations",
        "bed breakfast",
        "fish chips",
        "nuts bolts",
        "odds ends",
        "read write",
        "sales marketing",
        "science technology",
        "arts sciences",
        "hit miss",
        "give take",
        "peace quiet",
        "safe sound",
        "sick tired",
        "by large",
        "again again",
        "here there",
        "now then",
    )
}
_CLAUSE_CONJ = {"and", "but", "while", "whereas"}
_TOGETHER = {
    "between",
    "among",
    "amongst",
    "composed",
    "consists",
    "consist",
    "consisting",
    "comprises",
    "comprise",
    "comprising",
    "divided",
    "split",
    "combination",
    "combines",
    "combine",
    "combining",
    "mixture",
    "mix",
    "blend",
    "ratio",
    "relationship",
    "difference",
    "versus",
}
_NOT_ITEMS = {
    "others",
    "more",
    "so on",
    "many more",
    "much more",
    "the like",
    "etc",
    "many others",
    "similar",
}
_ITEM = r"[^,;()\"“”\s]+(?:\s[^,;()\"“”\s]+){0,3}"  # up to four words
_ASIDE = re.compile(
    rf",\s+(?:such as|including|like|e\.g\.)\s+(?:{_ITEM},\s+)*{_ITEM}\s+(?:and|or)\s+{_ITEM},\s+"
)
_ADJECTIVE = re.compile(r"\w(?:al|ic|ive|ous|ful|less|able|ible|ary|ed)$")


def _bare(token: str) -> str:
    return token.strip(".,;:!?\"'“”‘’").lower()


def _is_number(word: str) -> bool:
    w = _bare(word)
    return bool(re.fullmatch(r"[$€£¥]?\d[\d,.]*%?", w)) or w in _NUMBER_WORDS


def _has_number(tokens: list[str]) -> bool:
    return any(_is_number(t) or re.search(r"\d", t) for t in tokens)


def _top_level(tokens: list[str]) -> list[bool]:
    """Per token: True when it is outside quotes and brackets ('(SSO)' itself is outside)."""
    out, depth, quoted = [], 0, False
    for t in tokens:
        inside_before = depth > 0 or quoted
        depth = max(0, depth + t.count("(") + t.count("[") - t.count(")") - t.count("]"))
        if t.count('"') % 2:
            quoted = not quoted
        if "“" in t and "”" not in t:
            quoted = True
        elif "”" in t and "“" not in t:
            quoted = False
        out.append(not inside_before and (t[:1] not in '([“"' or (depth == 0 and not quoted)))
    return out


def _finite(word: str) -> str | None:
    """'3sg' | 'past' | 'base' | 'modal' for a known verb form, else None."""
    return _FORM_OF.get(_bare(word))


def _participle(word: str) -> bool:
    w = _bare(word)
    return (w.endswith("ed") and len(w) > 4) or w in _PARTICIPLES


def _strong_verb(word: str) -> bool:
    """A verb form that is hardly anything else: not a bare '-ed' (a participle as often) and
    not a base form (a noun as often)."""
    w, form = _bare(word), _finite(word)
    return w in _PLAIN_VERBS or form in ("3sg", "modal") or (form == "past" and not w.endswith("ed"))


def _adverb(word: str) -> bool:
    w = _bare(word)
    return w in {"also", "then", "now", "still", "often", "usually", "not"} or (
        w.endswith("ly") and len(w) > 4
    )


_PLAIN_VERBS = {"is", "are", "was", "were", "has", "have", "had", "does", "do", "did"}


def _subject(tokens: list[str]) -> tuple[int, int] | None:
    """(end of the subject, index of the main verb) when the tokens before the verb are a plain
    subject: no comma, not a subordinate clause or a prepositional phrase, at most eight words,
    not ending in a function word. Adverbs between the two ('Interferometry typically uses')
    belong to the verb."""
    if not tokens:
        return None
    first = _bare(tokens[0])
    if (
        first in _SUBORDINATORS
        or first in _PLAIN_VERBS
        or first in _MODALS
        or (tokens[0][:1].islower() and _finite(tokens[0]))
    ):
        return None
    top = _top_level(tokens)
    for i, tok in enumerate(tokens[: _MAX_SUBJECT + 1]):
        if not top[i] or (i and tokens[i - 1].endswith((",", ";", ":"))):
            return None
        form, word = _finite(tok), _bare(tok)
        if i == 0 or form is None or i + 1 >= len(tokens):
            continue
        if (
            word not in _PLAIN_VERBS
            and form in ("base", "3sg")
            and _finite(tokens[i + 1]) in ("3sg", "base", "modal")
        ):
            continue  # 'sync features include ...': a noun that looks like a verb (unsure: skipped)
        if (
            form == "past"
            and word.endswith("ed")
            and any(
                _strong_verb(t) or _bare(t) in _COPULA
                for t in tokens[i + 1 : i + 1 + _MAX_SUBJECT]
                if not t.endswith(",")
            )
        ):
            continue  # 'A computer system used for this purpose is called ...': a participle
        if form == "base" and word not in _PLAIN_VERBS:
            prev = _bare(tokens[i - 1])
            if prev != "they" and not (prev.endswith("s") and len(prev) > 3 and _finite(prev) is None):
                continue  # a base form is a verb only after a plural subject: 'organisms store'
        end = i
        while end > 1 and _adverb(tokens[end - 1]):
            end -= 1
        if _bare(tokens[end - 1]) in _FUNCTION:
            return None  # 'the most used ...'
        return end, i
    return None


def _verb_group(tokens: list[str], i: int) -> int:
    """End of the verb group that starts at ``tokens[i]``: 'can enable', 'cannot be reset',
    'are encrypted', 'can also export'; always leaves a token after it."""

    def skip(j: int) -> int:
        while j < len(tokens) - 1 and _adverb(tokens[j]):
            j += 1
        return j

    j, word = i + 1, _bare(tokens[i])
    if word in _MODALS:
        k = skip(j)
        if k < len(tokens) - 1:
            j, word = k + 1, _bare(tokens[k])
    if word in _COPULA | {"be", "been", "being"}:
        k = skip(j)
        if k < len(tokens) - 1 and _participle(tokens[k]):
            j = k + 1
    return j


def _open_list(tokens: list[str]) -> bool:
    """Whether ``tokens`` (ending in a comma) end inside a list: 'ships, boats,' (before ', and
    barges ...'), unlike '$6 per month, billed annually,' (before ', and includes ...')."""
    top = _top_level(tokens)
    commas = [i for i, t in enumerate(tokens) if top[i] and t.endswith(",")]
    if len(commas) < 2 or commas[-1] != len(tokens) - 1:
        return False
    seg = tokens[commas[-2] + 1 :]
    head = _bare(seg[0])
    return (
        len(seg) <= 4
        and not _participle(seg[0])
        and not _adverb(seg[0])
        and head not in _SUBORDINATORS | _EXAMPLE_MARKERS | {"such"}
        and not any(_bare(t) in _COPULA or _finite(t) == "modal" for t in seg)
    )


def _subordinate_after_comma(tokens: list[str]) -> bool:
    """', which ...', ', whereas ...': what follows such a clause may belong to it."""
    top = _top_level(tokens)
    return any(
        top[i] and tokens[i - 1].endswith(",") and _bare(t) in _RELATIVES for i, t in enumerate(tokens) if i
    )


def _joined(*parts: list[str]) -> str:
    return " ".join(w for p in parts for w in p if w).strip().rstrip(",;: ")


def _capitalised(text: str) -> str:
    return text[0].upper() + text[1:] if text[:1].isascii() and text[:1].islower() else text


def _verb_phrases(verb: list[str], rest: list[str]) -> list[tuple[list[str], list[str]]]:
    """'costs X and adds Y' -> [(['costs'], X), (['adds'], Y)]: an 'and' followed by a verb in the
    first verb's form; after a modal or a passive, the coordinated verb keeps the auxiliary
    ('can enable X and export Y', 'are stored on the device and synced ...'). Nothing is split
    after a subordinate or relative clause begins ('that', 'which', 'when', ...)."""
    top = _top_level(rest)
    aux = [t for t in verb[:-1] if not _adverb(t)]
    head = _bare(verb[-1])
    head_form = _finite(head) if not aux else None
    modal = bool(aux) and _bare(aux[0]) in _MODALS and not _participle(verb[-1])
    passive = bool(aux) and _participle(verb[-1])
    perfect = head in _AUX and bool(rest) and _participle(rest[0])  # 'has added X and removed Y'
    out, start, cur_verb = [], 0, verb
    for k, tok in enumerate(rest):
        infinitive = _bare(tok) == "to" and k + 1 < len(rest) and _finite(rest[k + 1]) == "base"
        if top[k] and (_bare(tok) in _RELATIVES or infinitive):
            break  # 'that ...', 'to provide labor and produce ...': not the subject's verbs
        if _bare(tok) != "and" or not top[k] or k == start or k + 1 >= len(rest):
            continue
        if (rest[k - 1].endswith(",") and _open_list(rest[start:k])) or _bare(rest[k - 1]) in _FUNCTION:
            continue  # 'ships, boats, and ...'; 'contrasted with and defined by ...'
        j = k + 1
        if _adverb(rest[j]) and j + 1 < len(rest):
            j += 1
        cand, form = rest[j], _finite(rest[j])
        after = _bare(rest[j + 1]) if j + 1 < len(rest) else ""
        if not after and not (passive or perfect):
            continue  # a verb with nothing after it is more likely a noun: 'tags and shares'
        if passive and _participle(cand) and (not after or after in _PREPS or _adverb(rest[j + 1])):
            new_verb, nxt = [*aux, *rest[k + 1 : j + 1]], j + 1  # 'are stored ... and synced automatically'
        elif passive and _bare(aux[0]) in ("was", "were") and (form == "past" or _participle(cand)):
            new_verb, nxt = rest[k + 1 : j + 1], j + 1  # 'was invented ... and revolutionized marine ...'
        elif modal and form == "base":
            new_verb, nxt = [*aux, *rest[k + 1 : j + 1]], j + 1  # 'can enable X and export Y'
        elif perfect and _participle(cand) and form != "3sg":
            new_verb, nxt = [verb[-1], *rest[k + 1 : j + 1]], j + 1  # 'has added X and removed Y'
        elif (
            form is not None
            and not aux
            and (form == head_form or form == "modal")
            and not (form == "past" and _bare(cand).endswith("ed") and after in _PREPS)
        ):
            nxt = _verb_group(rest, j)
            new_verb = rest[k + 1 : nxt]
        else:
            continue
        out.append((cur_verb, rest[start:k]))
        cur_verb, start = new_verb, nxt
    out.append((cur_verb, rest[start:]))
    return [(v, r) for v, r in out if r]


def _shape(a: list[str], b: list[str]) -> bool:
    return _has_number(a) == _has_number(b) and a[0][:1].isupper() == b[0][:1].isupper()


def _list_items(verb: list[str], rest: list[str]) -> tuple[list[str], list[list[str]]] | None:
    """'shared workspaces, admin controls and single sign-on (SSO)' -> (prefix [], the three items),
    or None when ``rest`` is not a plain list at the end of the clause (see the module docstring)."""
    top = _top_level(rest)
    ands = [k for k, t in enumerate(rest) if top[k] and _bare(t) == "and"]
    if len(ands) != 1 or any(top[k] and _bare(t) == "or" for k, t in enumerate(rest)):
        return None
    k = ands[0]
    left, last = rest[:k], rest[k + 1 :]
    if not left or not last or len(last) > _MAX_ITEM or any(t.endswith((",", ";", ":")) for t in last[:-1]):
        return None
    before, after = _bare(left[-1]), _bare(last[0])
    if before in _FUNCTION or after in _FUNCTION - _PREPS - {"a", "an", "the"}:
        return None
    if any(_bare(t) == "between" for t in left[-3:]) or (_is_number(before) and _is_number(after)):
        return None  # a range: 'between 5 and 10'
    if any(_bare(t) in _TOGETHER for t in (*verb, *left)):
        return None  # 'divided among A, B and C', 'composed of A and B': the items hold only together
    if (before, after) in _FIXED_PAIRS or (before.endswith("ly") and after.endswith("ly")):
        return None
    if len(last) > 1 and _ADJECTIVE.search(before):
        return None  # 'toothed and abrasive saws', 'commercial, hotel, and residential space'
    if any(_bare(t) in _EXAMPLE_MARKERS or _bare(t) == "such" for t in last):
        return None
    if any(_finite(t) in ("3sg", "past", "modal") or _bare(t) in _COPULA for t in last):
        return None  # a clause of its own: 'staff cannot read the notes and a key cannot be reset'
    # the comma-separated items before the 'and', from the end: short, no verb, no example marker
    parts: list[list[str]] = [[]]
    for n, t in enumerate(left):
        if top[n] and t.endswith(","):
            parts[-1].extend([t[:-1]] if t[:-1] else [])
            parts.append([])
        else:
            parts[-1].append(t)
    parts = [p for p in parts if p]
    items: list[list[str]] = []
    i = len(parts) - 1
    while (
        i >= 1
        and len(parts[i]) <= _MAX_ITEM
        and not _adverb(parts[i][0])
        and not _participle(parts[i][0])
        and not any(_bare(t) in _EXAMPLE_MARKERS or _finite(t) for t in parts[i])
    ):
        items.insert(0, parts[i])
        i -= 1
    first, head = parts[i], [t for p in parts[:i] for t in (*p[:-1], p[-1] + ",")]
    low = [_bare(t) for t in first]
    marker = max(
        (n for n, w in enumerate(low) if w in _EXAMPLE_MARKERS or (w == "as" and n and low[n - 1] == "such")),
        default=None,
    )
    if _bare(last[0]) in _PREPS:  # 'in transit with TLS 1.3 and at rest with AES-256'
        p = next((n for n, w in enumerate(low) if w in _PREPS), None)
        if p is None or head or not all(_bare(x[0]) in _PREPS for x in items):
            return None
        prefix, item0 = first[:p], first[p:]
    elif marker is not None:  # '..., typically carbohydrates like sugars, starches and cellulose'
        prefix, item0 = head + first[: marker + 1], first[marker + 1 :]
    elif head:
        return None  # a comma before the list that is not one of its items: unclear
    else:
        preps = [n for n, w in enumerate(low) if w in _PREPS and w != "of"]
        if preps:  # 'offline on desktop and mobile'
            p = preps[-1]
            item0 = first[p + 1 :]
            if (
                not item0
                or len(item0) > 3
                or any(len(x) > 3 for x in (*items, last))
                or not _shape(item0, last)
                or (low[p] == "to" and _finite(item0[0]) == "base")
            ):
                return None
            prefix = first[: p + 1]
        else:
            prefix, item0 = [], first
    if item0 and _bare(item0[0]) == "both":  # 'on both desktop and mobile'
        prefix, item0 = [*prefix, item0[0]], item0[1:]
    if not item0 or len(item0) > _MAX_ITEM + 1:
        return None
    if not items:  # two items: more ways to be something else
        if item0[-1][:1].isupper() and last[0][:1].isupper():
            return None  # 'Procter and Gamble', 'Nepalese and Chinese authorities'
        if len(item0) == 1 and len(last) > 1:
            return None  # 'read and write access', 'producing and maintaining the content'
        if "of" in (_bare(t) for t in last) and "of" not in (_bare(t) for t in item0):
            return None  # 'the content and structure of web content'
    if _bare(verb[0]) in _COPULA and _bare(item0[0]) in ("a", "an") and _bare(last[0]) not in DETERMINERS:
        return None  # 'was a physicist and chemist': one thing
    if prefix and _bare(prefix[-1]) == "both":
        prefix = prefix[:-1]
    found = [x for x in (item0, *items, last) if " ".join(_bare(t) for t in x) not in _NOT_ITEMS]
    return (prefix, found) if len(found) >= 2 else None


def _clauses(tokens: list[str]) -> list[tuple[str, list[str]]]:
    """The sentence's clauses, each ('first' | 'verb phrase' | 'own' | 'bare', tokens): at '; ' and at
    ', and|but|while|whereas' when a clause (its own subject and a verb) or a verb phrase follows
    and the comma does not end a list item ('ships, boats, and barges can be moored')."""
    top = _top_level(tokens)
    pieces: list[tuple[str, list[str]]] = [("", [])]
    for i, tok in enumerate(tokens):
        if (
            i
            and top[i]
            and top[i - 1]
            and tokens[i - 1].endswith(",")
            and _bare(tok) in _CLAUSE_CONJ
            and pieces[-1][1]
            and i + 1 < len(tokens)
        ):
            pieces.append((tok, []))
            continue
        pieces[-1][1].append(tok)
        if top[i] and tok.endswith(";") and i + 1 < len(tokens):
            pieces.append((";", []))
    clauses: list[tuple[str, list[str]]] = []
    for joiner, piece in pieces:
        if not piece:
            continue
        if not clauses:
            clauses.append(("first" if _subject(piece) else "bare", piece))
            continue
        prev_kind, prev = clauses[-1]
        has_subject = prev_kind in ("first", "verb phrase", "own")
        own = _subject(piece)
        if (
            piece[0][:1].islower()
            and _finite(piece[0])
            and has_subject
            and not (joiner != ";" and (_open_list(prev) or _subordinate_after_comma(prev)))
        ):
            kind = "verb phrase"  # ', and includes 100 GB of storage'
        elif (
            own
            and (_strong_verb(piece[own[1]]) or joiner == ";")
            and not (joiner != ";" and _open_list(prev))
        ):
            kind = "own"  # ', and it supplies ...'; '; these were joined ...'
        elif joiner == ";" and any(
            top_ok and (_strong_verb(t) or _bare(t) in _COPULA) for t, top_ok in zip(piece, _top_level(piece))
        ):
            kind = "bare"  # '; when it is enabled, staff cannot read the notes'
        else:  # not a clause: the pieces were one ('A, B, and C'; '...; namely, the length, width')
            clauses[-1] = (prev_kind, [*prev, *([joiner] if joiner != ";" else []), *piece])
            continue
        clauses.append((kind, piece))
    return clauses


def atomic_facts(sentence: str) -> list[str]:
    """The checkable facts one sentence states, each a claim of its own with its subject
    restored (see the module docstring for the rules and why). A sentence that cannot be split
    safely comes back whole; every fact is the sentence's own words in its order."""
    text = _ASIDE.sub(" ", sentence.strip()).strip().rstrip(".!?;:, ").strip()
    tokens = text.split()
    if not tokens:
        return []
    facts: list[str] = []
    subject: list[str] | None = None
    for kind, clause in _clauses(tokens):
        clause = [t for t in (*clause[:-1], clause[-1].rstrip(",;")) if t]
        if not clause:
            continue
        parts = _subject(clause) if kind in ("first", "own") else None
        if kind == "verb phrase" and subject:
            end = _verb_group(clause, 0)
            subj, verb, rest = subject, clause[:end], clause[end:]  # '..., and includes 100 GB of storage'
        elif parts:
            s_end, v = parts
            end = _verb_group(clause, v)
            subj, verb, rest = clause[:s_end], clause[s_end:end], clause[end:]
            if subject and len(subj) == 1 and _bare(subj[0]) in ("it", "they"):
                subj = subject  # 'Photosynthesis plays ..., and it supplies ...'
        else:
            facts.append(_capitalised(_joined(clause)))
            subject = None
            continue
        subject = subj
        if not rest:
            facts.append(_capitalised(_joined(subj, verb)))
            continue
        for vb, r in _verb_phrases(verb, rest):
            listed = _list_items(vb, r)
            if listed is None:
                facts.append(_capitalised(_joined(subj, vb, r)))
            else:
                prefix, items = listed
                facts.extend(_capitalised(_joined(subj, vb, prefix, item)) for item in items)
    out: list[str] = []
    for f in facts:
        if f and f not in out:
            out.append(f)
    return out
