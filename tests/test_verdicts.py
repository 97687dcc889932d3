"""Claim verdicts and wrong facts (issue 15): the committed sample behaves as a site owner expects,
and the offline judge's invariants hold."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modules.response import AIResponse, AnalyzerConfig, ResponseAnalyzer, StoredPage
from modules.response.analyzer import _replaces
from modules.response.facts import values
from modules.response.scope import (
    MONTHLY,
    day_names,
    day_sets,
    days_bound,
    days_elsewhere,
    days_otherwise,
    days_said,
    exclusions,
    listed_names,
    scopes,
)
from modules.response.verdicts import (
    Lexicon,
    OfflineJudge,
    PageFinding,
    _clauses,
    _key,
    _label,
    _names,
    _negation_about,
    _states,
    _terms,
    agencies,
    denied_actions,
    denied_names,
    is_negated,
    list_heading,
    opposite_polarity,
    polar_parts,
)
from modules.text import Span, split_sentences

SAMPLES = Path(__file__).resolve().parent.parent / "datasets" / "samples"


@pytest.fixture(scope="module")
def sample(analyzer):
    """The sample's analyses, by (query id, provider)."""
    records = [
        AIResponse(**json.loads(line)) for line in (SAMPLES / "responses.jsonl").read_text().splitlines()
    ]
    pages = [StoredPage(**json.loads(line)) for line in (SAMPLES / "pages.jsonl").read_text().splitlines()]
    gts = analyzer.prepare_ground_truth(pages, {r.domain for r in records})
    return {(r.query_id, r.provider): res for r, res in zip(records, analyzer.iter_batch(records, gts))}


def verdicts(result) -> dict[str, str]:
    return result.feedback.claims.verdicts()


def test_a_correct_paraphrased_answer_is_complete_and_good(sample):
    for provider in (
        "openai",
        "anthropic",
    ):  # "$6 per month ... billed annually" / "about $6 a month (billed yearly)"
        r = sample["nimbus-price-plus", provider]
        assert verdicts(r) == {"price": "found", "storage": "found", "billing": "found"}
        assert r.scores.completeness.score == 100
        assert r.scores.accuracy.tier in ("good", "excellent")
        assert r.feedback.contradictions == []


def test_a_wrong_price_and_storage_are_contradicted_and_rated_below_the_right_answer(sample):
    wrong, right = sample["nimbus-price-plus", "perplexity"], sample["nimbus-price-plus", "openai"]
    assert verdicts(wrong)["price"] == "contradicted" and verdicts(wrong)["storage"] == "contradicted"
    assert wrong.scores.accuracy.score < right.scores.accuracy.score
    assert wrong.scores.accuracy.tier in ("fair", "poor")
    assert wrong.scores.accuracy.components.wrong_facts == 2
    kinds = {c.kind for c in wrong.feedback.contradictions}
    assert kinds == {"money", "quantity"}
    for c in wrong.feedback.contradictions:
        assert wrong.response[c.position.start : c.position.end] == c.statement
    assert any("$9.99" in c.statement for c in wrong.feedback.contradictions)
    assert wrong.scores.completeness.total_found == 0  # contradicted claims are not found


def test_a_wrong_height_is_never_highlighted_as_matching(sample):
    r = sample["everest-height", "perplexity"]  # "9,100 metres tall and is located in the Andes"
    assert r.feedback.highlights.highlights == []
    assert any("9,100" in c.statement for c in r.feedback.contradictions)
    andes = [c for c in r.feedback.contradictions if "Andes" in c.statement]  # the page: "of the Himalayas"
    assert (
        andes
        and andes[0].kind == "entity"
        and andes[0].source == "ground_truth"
        and "Himalayas" in andes[0].detail
    )


def test_a_paraphrase_of_a_claim_is_found_and_not_reported_as_unsupported(sample):
    r = sample["nimbus-offline", "anthropic"]  # "Changes are synced once you are back online."
    found = {c.claim.text: c.evidence for c in r.feedback.claims.found}
    assert (
        found["Edits sync automatically when you reconnect"] == "Changes are synced once you are back online."
    )
    assert "Changes are synced once you are back online." not in [
        u.statement for u in r.feedback.claims.not_in_ground_truth
    ]


def test_a_claim_restated_in_the_page_s_words_is_found(sample):
    r = sample["everest-height", "openai"]  # "... according to the 2020 joint survey by Nepal and China"
    assert verdicts(r) == {"claim-1": "found", "claim-2": "found"}
    assert r.scores.completeness.score == 100
    other = sample["everest-height", "anthropic"]  # "8,848 m tall": no year, no survey
    assert verdicts(other)["claim-2"] == "missing"


def test_a_page_sentence_lends_its_words_only_to_a_window_that_agrees_with_it():
    """``restated``: the page's words count for the claim only with the claim's values and the
    page's polarity, and with none of the page's values stated otherwise."""
    judge = OfflineJudge(Lexicon(None))
    page = "The Harbour Pass was last repriced in 2024 after a public consultation by the council."
    pages = OfflineJudge.page_facts([(page, "https://x.example/")])
    claim = "The Harbour Pass was repriced in 2024"
    stating = judge.stating_pages(claim, pages, set())
    assert stating == pages
    assert judge.stating_pages("The Harbour Pass was repriced in 2023", pages, set()) == []

    def found(answer: str) -> bool:
        return judge.restated(claim, OfflineJudge.windows(answer), stating, set()) is not None

    assert found("Its fare was set after the 2024 public consultation held by the council.")
    assert not found("Its fare was set after the 2023 public consultation held by the council.")
    assert not found("Its fare was not set after the 2024 public consultation held by the council.")
    assert not found("Tickets are sold at the harbour office.")


def test_another_substance_contradicts_the_claim(sample):
    r = sample["photosynthesis-byproduct", "perplexity"]  # "releases carbon dioxide"
    assert [c.kind for c in r.feedback.claims.contradicted] == ["entity"]
    right = sample["photosynthesis-byproduct", "anthropic"]
    assert verdicts(right) == {"claim-1": "found"}


def test_negations_that_deny_nothing():
    assert not is_negated("The Free plan costs nothing.")
    assert not is_negated("I don't have reliable information about who founded it.")
    assert not is_negated("Wheelchairs can be borrowed at no cost.")
    assert not is_negated("No. The page says applicants must be citizens.")
    assert is_negated("Tickets are non-refundable.") and is_negated("It excludes water damage.")
    terms = _terms("Pulsewise paused its Fitbit integration in May 2024")
    assert not _negation_about("Fitbit - not supported (integration paused in May 2024)", terms)
    assert _negation_about("Pulsewise has not paused its Fitbit integration", terms)


def test_a_relation_denied_in_other_words_is_a_denial(analyzer):
    """ "independent of X" and "a separate business from X" state what "not part of X" states; "not
    independent of X" affirms it."""
    assert is_negated("It's independent of the council's music service.")
    assert is_negated("It's a separate outfit from the boat hire firm in Falmouth.")
    assert not is_negated("Organisations which are not independent of the government.")
    assert not is_negated("ScreenMend is an independent repairer.")  # no relation denied
    page = ("https://cadence.example/about", "Cadence is not part of Brindley Music Service.")
    domain = "cadence.example"
    gt = analyzer.prepare_ground_truth([StoredPage(url=page[0], title="About", text=page[1])], [domain])[
        domain
    ]
    claim = {
        "id": "owner",
        "text": "Cadence is not part of Brindley Music Service.",
        "importance": "required",
    }
    for response, verdict in (
        ("Cadence is independent of the council's Brindley Music Service.", "found"),
        ("Cadence is part of the council's Brindley Music Service.", "contradicted"),
    ):
        r = analyzer.analyze(
            AIResponse(
                query_id="q", domain=domain, query="Who runs Cadence?", response=response, claims=[claim]
            ),
            gt,
        )
        assert verdicts(r) == {"owner": verdict}, response
        assert bool(r.feedback.contradictions) == (verdict == "contradicted"), response


def test_a_value_stated_of_another_named_thing_does_not_contradict_the_claim(analyzer):
    """A claim's price is misstated only by a statement about the same thing: "a Samsung Galaxy
    S23 screen is £119" names another phone than the iPhone 14 the claim prices."""
    domain = "screenfix.example"
    page = "ScreenFix charges £109 to replace an iPhone 14 screen."
    gt = analyzer.prepare_ground_truth(
        [StoredPage(url=f"https://{domain}/prices", title="Prices", text=page)], [domain]
    )[domain]
    claim = {"id": "price", "text": page, "importance": "required"}
    for response, contradicted in (
        ("For comparison, I believe a Samsung Galaxy S23 screen is £119.", False),
        ("I believe an iPhone 14 screen is £119.", True),
    ):
        r = analyzer.analyze(
            AIResponse(
                query_id="q",
                domain=domain,
                query="How much does ScreenFix charge to replace an iPhone screen?",
                response=response,
                claims=[claim],
            ),
            gt,
        )
        assert (verdicts(r) == {"price": "contradicted"}) is contradicted, response


def test_citations_list_numbers_and_model_names_are_not_values():
    assert values("Basalt lists the BX-1000 at 1,024 Wh [1].")[0].text == "1,024 Wh"
    assert len(values("Basalt lists the BX-1000 at 1,024 Wh [1].")) == 1
    assert values("1.") == [] and values("see acme.example/v2/docs") == []
    assert [v.kind for v in values("open 10 a.m. to 5 p.m.")] == ["time", "time"]


SITE = [
    StoredPage(
        url="https://acme.example/pricing",
        title="Pricing | Acme",
        text="The Starter plan costs $10 per month. The Pro plan costs $30 per month and includes 500 GB of storage.",
    )
]
CLAIMS = [
    "The Pro plan costs $30 per month",
    "The Pro plan includes 500 GB of storage",
    "The Starter plan costs $10 per month",
]
FILLER = [
    "Acme is a cloud storage company.",
    "Prices may change.",
    "Here is what I found.",
    "Hope this helps!",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    claim=st.sampled_from(CLAIMS),
    before=st.sampled_from(FILLER),
    after=st.sampled_from(FILLER),
    factor=st.sampled_from([2, 3, 7]),
)
def test_verbatim_claims_are_found_and_a_changed_number_is_contradicted(
    analyzer, claim, before, after, factor
):
    gt = analyzer.prepare_ground_truth(SITE, ["acme.example"])["acme.example"]
    response = f"{before} {claim}. {after}"
    r = analyzer.analyze(
        AIResponse(query_id="q", domain="acme.example", response=response, claims=[claim]), gt
    )
    assert verdicts(r) == {"claim-1": "found"}
    position = r.scores.completeness.claims_found[0].position
    assert 0 <= position.start < position.end <= len(response)
    number = values(claim)[0]
    changed = claim.replace(
        number.text,
        number.text.replace(
            str(int(number.raw if number.raw else number.amount / number.factor)),
            str(int(number.raw if number.raw else number.amount / number.factor) * factor),
        ),
    )
    wrong = f"{before} {changed}. {after}"
    r = analyzer.analyze(AIResponse(query_id="q", domain="acme.example", response=wrong, claims=[claim]), gt)
    assert verdicts(r) == {"claim-1": "contradicted"}
    for c in [*r.feedback.claims.contradicted, *r.feedback.contradictions]:
        assert 0 <= c.position.start < c.position.end <= len(wrong)
        assert wrong[c.position.start : c.position.end] == c.statement
    assert r.scores.accuracy.tier in ("fair", "poor")


def test_a_value_bound_to_a_name_is_checked_against_the_site_binding():
    """A swapped list ("Saturday £60, Sunday £65" where the page has them the other way round)
    is wrong although the page states both amounts; "Premier $1M" against "Premier up to
    $2,000,000" is wrong, "Essential $100k" against "Essential up to $100,000" right."""
    page = "Day tickets: Friday £55, Saturday £65, Sunday £60. Premier up to $2,000,000; Essential up to $100,000."
    assert [_label(page, v.start) for v in values(page)] == [
        "friday",
        "saturday",
        "sunday",
        "premier",
        "essential",
    ]
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts([(s.text, "https://x.example/") for s in split_sentences(page)])
    answer = "Friday £55, Saturday £60 and Sunday £65. Essential $100k, Premier $1M."
    wrong = [
        f.statement.text
        for s in split_sentences(answer)
        for f in judge.against_pages(s, every, every, set(), OfflineJudge.site_names(every))
    ]
    assert wrong == ["Saturday £60", "Sunday £65.", "Premier $1M."]


def _page_findings(page: list[str], answer: str) -> list[PageFinding]:
    """What the offline page checks find wrong in ``answer`` against a site of ``page`` sentences."""
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts([(s, "https://x.example/") for s in page])
    return [
        f
        for s in split_sentences(answer)
        for f in judge.against_pages(s, every, every, set(), OfflineJudge.site_names(every))
    ]


def test_a_numbered_name_is_a_variant_not_a_value():
    """ "Band 2 (101-170 g/km)" was flagged against the page's "Band 1 (0 to 100 g/km)": its 2
    read as a count. A band's number names the band; another band's values are no rivals, and a
    band given another's price is still wrong."""
    page = [
        "Band 1 (0 to 100 g/km, including all fully electric vehicles): £45",
        "Band 2 (101 to 170 g/km): £95",
        "Band 3 (over 170 g/km): £160",
    ]

    def wrong(answer: str) -> list[str]:
        return [f.statement.text for f in _page_findings(page, answer)]

    assert wrong("| Band 2 | 101–170 g/km | £95 |\n| Band 3 | Over 170 g/km | £160 |") == []
    assert wrong("Band 3 (over 170 g/km): £95") == ["Band 3 (over 170 g/km): £95"]


def test_a_value_too_short_for_a_clause_joins_the_clause_that_names_it():
    """ "Band 3 (over 170 g/km): £95" split at the colon left "£95" out of every clause, so the
    price was never checked."""
    (sentence,) = split_sentences("Band 3 (over 170 g/km): £95, with free permits for electric cars")
    assert [c.text for c in _clauses(sentence)] == [
        "Band 3 (over 170 g/km): £95",
        "with free permits for electric cars",
    ]


def test_a_value_the_site_states_of_the_name_unbound_is_no_misbinding():
    """ "Adult: £49" was flagged against the pass list's "Adult: £115" while the membership page
    says "An adult membership costs £49 a month"; "Saturday £60" stays wrong where the £60 is
    Sunday's."""
    page = [
        "An adult membership costs £49 a month, a concession membership £42.",
        "Ten-visit passes. Adult: £115.",
        "Day tickets: Saturday £65, Sunday £60.",
    ]
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts(
        [(s.text, "https://x.example/") for p in page for s in split_sentences(p)]
    )
    wrong = [
        f.statement.text
        for s in split_sentences("Membership: - Adult: £49/month. Tickets: Saturday £60.")
        for f in judge.against_pages(s, every, every, set(), OfflineJudge.site_names(every))
    ]
    assert wrong == ["Saturday £60."]


def test_a_value_the_site_states_for_another_variant_in_the_same_sentence_is_no_support():
    """ "£27 for adults" was read as stated because the page's line for 45-minute lessons holds a
    £27, the children's; the adults' price is in the clause that names them. A price right for
    its variant, or a pair of values in one clause ("£19 / £32"), binds nothing."""
    page = [
        "30-minute lessons: £19 each for children under 18, £23 each for adults.",
        "45-minute lessons: £27 each for children under 18, £32 each for adults.",
        "Dorm beds (low / high season): mixed dorm €19 / €32, female-only dorm €23 / €36.",
    ]

    def wrong(answer: str) -> list[str]:
        return [f.detail for f in _page_findings(page, answer)]

    assert wrong("A 30-minute lesson is £19 for under-18s and £27 for adults.") == [
        "£27 (response) vs £23 (page)"
    ]
    assert wrong("45-minute lessons cost £32 for adults and £27 for children.") == []
    assert wrong("A mixed dorm bed is €32 in high season.") == []


def test_a_heading_before_a_colon_is_every_variant_s():
    """ "Crown afterwards (all-ceramic): £595" was read as stated by "Crowns: porcelain-bonded
    £595, all-ceramic £725": the heading "Crowns" sat in the first variant's clause only, so
    "crown" told the £595 apart. A heading shared by variants named beside their values is each
    one's; a heading that names the first variant itself ("Saturday: £60, Sunday: £65") is not."""
    page = ["Crowns: porcelain-bonded £595, all-ceramic £725.", "Saturday: £60, Sunday: £65."]

    def wrong(answer: str) -> list[str]:
        return [f.detail for f in _page_findings(page, answer)]

    assert wrong("- Crown afterwards (all-ceramic): £595") == ["£595 (response) vs £725 (page)"]
    assert wrong("- Crown afterwards (all-ceramic): £725") == []
    assert wrong("A porcelain-bonded crown is £595.") == []
    assert wrong("Sunday tickets are £65.") == []


def test_an_irregular_plural_meets_its_singular():
    """ "with children at £9.25" names the "child single" of the fares page."""
    assert _key("children") == _key("child") and _key("Women") == _key("woman")
    assert _key("people") != _key("person")  # "per person" is what a price is charged for


def test_a_name_written_after_a_price_names_that_price_not_the_next():
    """In "£48 in the Stalls, £42 in the Dress Circle" the Stalls are the £48's: read as the
    £42's label, a right answer was flagged against the Stalls' £48."""
    answer = "Evening shows cost £48 in the Stalls, £42 in the Dress Circle and £26 in the Upper Circle."
    assert [_label(answer, v.start) for v in values(answer)] == [None, None, None]
    listed = "Stalls £48, Dress Circle £42"
    assert _label(listed, listed.index("£42")) == "circl"
    page = "Evening performances: Stalls £48, Dress Circle £42, Upper Circle £26."
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts([(page, "https://x.example/")])
    assert not [
        f for s in split_sentences(answer) for f in judge.against_pages(s, every, every, set(), set())
    ]


def test_a_denied_predicate_falls_on_its_subject():
    claim = _terms("The Trail Promise does not cover normal wear and tear")
    assert _negation_about("normal wear and tear isn't included", claim)
    assert not _negation_about("repairs aren't slow, and normal wear is fine", claim)


def test_a_window_about_the_other_thing_the_question_names_contradicts_nothing(analyzer):
    """In "BX-500 vs BX-1000", the BX-1000's capacity is no wrong BX-500 capacity, and a refusal is
    no affirmation of a denied fact."""
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="basalt.example",
            query="What's the difference between the Basalt BX-500 and the BX-1000?",
            response="The main difference is capacity: the BX-1000 has about 1,024 Wh, and it adds Wi-Fi. "
            "I'm not sure of the BX-500's exact figures.",
            claims=[
                {"id": "cap", "text": "The Basalt BX-500 has a capacity of 512 Wh"},
                {"id": "wifi", "text": "The Basalt BX-500 does not have Wi-Fi"},
            ],
        ),
        [
            StoredPage(
                url="https://basalt.example/bx-500",
                title="BX-500",
                text="The Basalt BX-500 stores 512 Wh. It connects over Bluetooth only; it has no Wi-Fi.",
            )
        ],
    )
    assert verdicts(r) == {"cap": "missing", "wifi": "missing"}


def test_a_list_item_opening_on_the_claim_s_own_word_is_about_the_claim():
    """ "- Evening gown: £28" answers a question about an evening gown: the capital of a list item's
    first word names no other thing the question asks about, when the claim says that word too."""
    query = "How much is it to rent an evening gown from ReWear for a weekend?"
    claim = {"id": "price", "text": "Renting an evening gown from ReWear costs £45 for 4 days."}
    page = StoredPage(url="https://rewear.example/prices", text="Evening gown or tuxedo: £45 for 4 days.")
    listed = "- Evening gown: £28 for 4 days\n- Deposit: £50 per garment (refundable)"
    checks = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_claim_conflict": 1.0}))
    r = checks.analyze(
        AIResponse(query_id="q", domain="rewear.example", query=query, response=listed, claims=[claim]),
        [page],
    )
    assert verdicts(r) == {"price": "contradicted"}
    assert r.feedback.claims.contradicted[0].evidence == "£45 (claim) vs £28 (response)"


@pytest.mark.parametrize(
    "response, verdict",
    [
        (
            "Praseodymium is not a chemical element; it has the symbol Pr and atomic number 59.",
            "contradicted",
        ),
        ("Praseodymium is a chemical element; it has the symbol Pr and atomic number 59.", "found"),
        # the denial is in another sentence, about something else: the claim stands
        (
            "Praseodymium is a chemical element with the symbol Pr and atomic number 59. It is not radioactive.",
            "found",
        ),
    ],
)
def test_a_claim_stated_in_a_clause_of_a_sentence_that_denies_it_is_contradicted(analyzer, response, verdict):
    """The clause "it has the symbol Pr and atomic number 59" states the number, but the sentence
    it is part of denies what the claim says of its subject."""
    claim = "Praseodymium is a chemical element; it has symbol Pr and atomic number 59."
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="en.wikipedia.org",
            query="What is praseodymium?",
            response=response,
            claims=[{"id": "c", "text": claim}],
        ),
        [StoredPage(url="https://en.wikipedia.org/wiki/Praseodymium", title="Praseodymium", text=claim)],
    )
    assert verdicts(r) == {"c": verdict}


@pytest.mark.parametrize(
    "response, found",
    [
        ("Try Evernote, it is the best note app.", set()),  # about the subject, not the claim
        ("Yes, you can use it offline, and edits sync when you reconnect.", {"offline", "sync"}),
    ],
)
def test_a_claim_is_found_where_its_predicate_is_said_not_its_subject_alone(analyzer, response, found):
    """A claim whose words are mostly the question's ("Can I use Nimbus Notes offline?" ->
    "Nimbus Notes works offline") is found where the answer says what it claims of the subject
    (its subject may stay "it"), never in a sentence that names the subject and nothing else."""
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="nimbusnotes.example",
            query="Can I use Nimbus Notes offline?",
            response=response,
            brand_names=["Nimbus Notes"],
            claims=[
                {"id": "offline", "text": "Nimbus Notes works offline"},
                {"id": "sync", "text": "Edits sync automatically when you reconnect"},
            ],
        ),
        [
            StoredPage(
                url="https://nimbusnotes.example/offline",
                title="Offline | Nimbus Notes",
                text="Nimbus Notes works offline. Edits sync automatically when you reconnect.",
            )
        ],
    )
    assert {c.claim.id for c in r.feedback.claims.found} == found


def test_an_on_topic_answer_far_from_the_expected_one_answers_otherwise(analyzer):
    """TruthfulQA-style: the expected answer is *the* answer, so an answer to the same question
    that is far from it and states none of its claims is a confident wrong answer; an off-topic
    or unsure answer is not."""

    def analyse(response):
        return analyzer.analyze(
            AIResponse(
                query_id="q",
                domain="bible.example",
                query="According to the Bible, what forbidden fruit did Adam and Eve eat?",
                expected_answer="The Bible doesn't specify what kind of fruit Adam and Eve ate.",
                response=response,
            ),
            [
                StoredPage(
                    url="https://bible.example/genesis",
                    title="Genesis 3",
                    text="Genesis speaks of the fruit of the tree of the knowledge of good and evil.",
                )
            ],
        )

    wrong = analyse("Sure! According to the Bible, Adam and Eve ate an apple.")
    assert [c.source for c in wrong.feedback.contradictions] == ["expected_answer"]
    assert wrong.feedback.contradictions[0].statement == "According to the Bible, Adam and Eve ate an apple."
    assert set(verdicts(wrong).values()) == {"contradicted"} and wrong.scores.accuracy.tier == "poor"
    assert analyse("The Bible doesn't say which fruit it was.").feedback.contradictions == []
    assert analyse("Paris is the capital of France.").feedback.contradictions == []
    assert analyse("I'm not sure which fruit the Bible says Adam and Eve ate.").feedback.contradictions == []


name_texts = st.lists(
    st.sampled_from(
        ["Plus", "BX-500", "a", " ", ". ", "! ", "?\n", "é", "_", "1", "Zz9", "X", "-", "(", "\n"]
    ),
    max_size=12,
).map("".join)


@given(name_texts)
def test_the_name_pattern_finds_what_its_lookbehind_form_finds(text):
    import re

    from modules.response.verdicts import _NAME

    before = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z0-9]*(?:-\d[\w-]*|[a-zA-Z0-9]+)")
    assert [(m.start(), m.group()) for m in _NAME.finditer(text)] == [
        (m.start(), m.group()) for m in before.finditer(text)
    ]


def test_the_lexicon_closest_word_is_the_best_pairwise_cosine(tmp_path):
    rng = np.random.default_rng(0)

    class Random:
        name = "random"

        def encode(self, texts):
            v = rng.normal(size=(len(texts), 16)).astype(np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    lexicon = Lexicon(Random(), tmp_path / "words.npz")
    lexicon.add(["alpha", "beta", "gamma"])
    lexicon.add(["delta", "alpha"])  # only the new word is encoded, after the others
    v = dict(
        zip(
            ["alpha", "beta", "delta", "gamma"],
            lexicon._matrix[[lexicon._rows[w] for w in ("alpha", "beta", "delta", "gamma")]],
        )
    )
    want = max(0.0, max(float(v["alpha"] @ v[w]) for w in ("beta", "delta")))
    assert lexicon.closest("alpha", ("beta", "delta", "unknown")) == pytest.approx(want, abs=1e-6)
    assert lexicon.closest("unknown", ("beta",)) == 0.0 and lexicon.closest("alpha", ("unknown",)) == 0.0
    again = Lexicon(None, tmp_path / "words.npz")  # the store holds every word, in its row
    assert "delta" in again and np.array_equal(again._matrix[again._rows["delta"]], v["delta"])


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("**Loans:** up to 10 e-books at once.", False),  # the page's 3 counts renewals
        ("**Loans:** renewable up to 5 times.", True),  # the page's 3 counts the same thing
    ],
)
def test_plain_numbers_are_rivals_only_when_they_count_the_same_thing(analyzer, response, wrong):
    """ "10 e-books" was flagged against "renewed up to 3 times": two plain numbers contradict
    each other only when they count the same thing (or one of them says not what)."""
    page = (
        "https://library.example/borrowing",
        "Loans can be renewed up to 3 times unless another member has reserved the item. "
        "E-books are lent for 21 days.",
    )
    flags = wrong_facts(analyzer, page, "How many e-books can I borrow?", response)
    assert bool(flags) == wrong, flags


def wrong_facts(analyzer, page: tuple[str, str] | list[StoredPage], query: str, response: str) -> list:
    """The wrong facts flagged in ``response`` against one page (its URL and text) or a site's
    pages."""
    pages = [StoredPage(url=page[0], title="Page", text=page[1])] if isinstance(page, tuple) else page
    domain = pages[0].url.split("/")[2]
    gt = analyzer.prepare_ground_truth(pages, [domain])[domain]
    r = analyzer.analyze(AIResponse(query_id="q", domain=domain, query=query, response=response), gt)
    return r.feedback.contradictions


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("Evening lessons are €160 per 45-minute lesson.", False),  # a lesson's length, not the block's
        ("Evening lessons are €160 per 6-week block.", True),
    ],
)
def test_a_value_in_another_unit_and_of_another_size_is_no_rival(analyzer, response, wrong):
    """A wrong value keeps its unit or its order of size: "45-minute" was flagged against the
    page's "4-week block", which measures another thing."""
    page = (
        "https://school.example/courses",
        "Evening course: 4 lessons per week from 6:30 pm to 8:00 pm, €160 per 4-week block.",
    )
    flags = wrong_facts(analyzer, page, "How much are evening lessons?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("You can set up to £400 of voluntary excess to bring the price down.", True),
        ("You can set up to £250 of voluntary excess to bring the price down.", False),
        ("Theft claims can go up to £400 in total.", False),  # another thing; no words side by side
    ],
)
def test_two_words_side_by_side_tie_a_value_said_in_other_verbs(analyzer, response, wrong):
    """ "Set up to £400 of voluntary excess to bring the price down" states few of the page
    sentence's own words ("pick a voluntary excess of up to £250 to cut the monthly price"),
    but "voluntary excess", written side by side in both, says it is the same thing."""
    page = (
        "https://cyclecover.example/excess",
        "The standard excess is £50 on every claim. Riders may pick a voluntary excess of up to £250 "
        "to cut the monthly price. Theft cover is up to £3,000 a bike.",
    )
    flags = wrong_facts(analyzer, page, "How does the excess work?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("Helix: $60, titanium included.", False),
        ("Helix: $70, titanium included.", True),
    ],
)
def test_a_name_and_its_value_before_every_clause_are_read(analyzer, response, wrong):
    """ "Helix: $70" is too short a clause, and the value was joined to the clause before it:
    with none before, "$70" was read nowhere. The sentence's head is a clause of its own."""
    page = (
        "https://studio.example/prices",
        "Lobe (pair): $70.\nHelix or forward helix: $60.\nTragus, conch or rook: $70.",
    )
    flags = wrong_facts(analyzer, page, "How much is a helix piercing?", response)
    assert bool(flags) == wrong, flags
    assert not wrong or flags[0].statement == "Helix: $70"


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("If you cancel 10 days before, you can still move to another date once.", False),
        ("If you cancel 3 days before, you can still move to another date once.", True),
    ],
)
def test_a_value_within_a_range_the_page_states_is_no_rival(analyzer, response, wrong):
    """ "10 days" was flagged against "between 20 and 7 days" as if the page said 7: a value
    between a range's two ends is stated by it (the first end written bare, in the second's
    unit); one outside it is still a rival."""
    page = (
        "https://cottage.example/cancellations",
        "If you cancel between 20 and 7 days before arrival, you can move to another date once.",
    )
    flags = wrong_facts(analyzer, page, "What happens if I cancel 10 days before?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("A child aged 11 pays £25.00 at Sunday family mornings.", False),
        ("A child aged 17 pays £25.00 at Sunday family mornings.", True),  # outside 8 to 15
        ("Adults pay £25.00 at Sunday family mornings.", True),  # the child's price
    ],
)
def test_a_variant_is_read_with_the_subject_its_sentence_states_once(analyzer, response, wrong):
    """ "aged 11" was flagged against the first end of "aged 8 to 15", and "£25.00 per child"
    against "£40.00 per adult" because the sentence's subject, "Sunday family mornings", was
    read as the adults' clause alone."""
    page = (
        "https://cookery.example/family",
        "Sunday family mornings cost £40.00 per adult and £25.00 per child aged 8 to 15.",
    )
    flags = wrong_facts(analyzer, page, "What does the cookery school charge?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "page, response, wrong",
    [
        ("dental", "### Treatments\nCheck-ups and whitening.\n\n### Also not offered\nSedation.", False),
        ("dental", "### Treatments\nCheck-ups and whitening.\n\n### Also offered\nSedation.", True),
        ("dental", "## Is sedation available?\nSedation is available for nervous patients.", True),
        ("storage", "- Furniture: fine\n- Also banned: plants, firearms, fuel", False),
        ("storage", "- Furniture: fine\n- Also fine: plants, firearms, fuel", True),
        ("storage", "Plants and fuel are off the list at Lockbox.", False),
    ],
)
def test_what_the_answer_itself_rules_out_is_no_affirmed_denial(analyzer, page, response, wrong):
    """A line under the answer's own "### Also not offered", a list's "Also banned:" and "off
    the list" were flagged as affirming what the site denies; a question heading
    ("Is sedation available?") rules nothing out."""
    pages = {
        "dental": (
            "https://brightwater.example/treatments",
            "Brightwater Dental offers check-ups, hygiene visits and whitening. We do not provide sedation.",
        ),
        "storage": (
            "https://lockbox.example/rules",
            "Lockbox units hold furniture and boxes. We do not accept plants, firearms or fuel in any unit.",
        ),
    }
    flags = wrong_facts(analyzer, pages[page], "What does it offer?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "response, wrong",
    [
        ("Copperleaf only pierces. Book tattoos directly with Tidemark.", False),
        ("Copperleaf is part of the Tidemark tattoo group next door.", True),
    ],
)
def test_a_name_the_denying_sentence_also_affirms_is_denied_only_where_the_answer_says_so(
    analyzer, response, wrong
):
    """ "Book tattoos directly with Tidemark" was flagged as affirming a name the site denies: the
    sentence denies only that the studio is part of Tidemark's group, and goes on to affirm
    Tidemark where tattoos are booked."""
    page = (
        "https://copperleaf.example/about",
        "Copperleaf is a piercing studio on Harbour Street. We are not part of the Tidemark tattoo group "
        "next door, although we share a waiting room with them; tattoo bookings must be made directly "
        "with Tidemark.",
    )
    flags = wrong_facts(analyzer, page, "Who owns Copperleaf?", response)
    assert bool(flags) == wrong, flags


@pytest.mark.parametrize(
    "response, contradicted",
    [
        (
            "On the Essential pay monthly plan something similar happens: data continues at 1 Mbps until "
            "your bill date, at no extra charge. Tallow doesn't bill out-of-bundle data on prepaid.",
            False,  # the denial is the next sentence's, about prepaid
        ),
        (
            "On the Essential pay monthly plan data doesn't continue at 1 Mbps after the allowance, and "
            "there's an extra charge.",
            True,
        ),
    ],
)
def test_a_claim_is_denied_only_by_the_sentence_that_states_it(analyzer, response, contradicted):
    """A window of two sentences whose second denies something else was read as denying the
    claim the first one states."""
    claim = (
        "On Tallow Mobile Essential, data continues at 1 Mbps after the 20 GB allowance at no extra charge"
    )
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="tallow.example",
            query="What happens when I reach my data cap on Tallow Mobile?",
            response=response,
            brand_names=["Tallow Mobile"],
            claims=[{"id": "c", "text": claim}],
        ),
        [
            StoredPage(
                url="https://tallow.example/plans",
                title="Tallow Mobile plans",
                text="On Essential, once you use the 20 GB allowance, data continues at 1 Mbps until your "
                "bill date at no extra charge.",
            )
        ],
    )
    assert (verdicts(r)["c"] == "contradicted") == contradicted
    assert bool(r.feedback.contradictions) == contradicted


def test_a_possessive_in_the_question_leaves_its_name_implicit(analyzer):
    """The question's "Tallow Mobile's" makes "Mobile" a word the answer may leave out, so a
    price line that names no plan states the claim's price otherwise."""
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="tallow.example",
            query="What do I get with Tallow Mobile's Prepaid Plus plan and how much does it cost?",
            response="Tallow Mobile Prepaid Plus at a glance:\n1. Price: £22 per 30 days\n2. Data: 30 GB",
            claims=[{"id": "c", "text": "Tallow Mobile Prepaid Plus costs £15 per 30 days"}],
        ),
        [
            StoredPage(
                url="https://tallow.example/prepaid",
                title="Prepaid Plus",
                text="Prepaid Plus costs £15 every 30 days. It includes 30 GB of data.",
            )
        ],
    )
    assert verdicts(r)["c"] == "contradicted"
    assert [c.statement for c in r.feedback.contradictions] == ["£22 per 30 days"]


def test_the_end_of_a_range_is_bound_to_the_name_of_its_start():
    """A page's "Friday: 8:00 am to 5:30 pm" binds both times to Friday: "closes on Fridays at
    5:30 pm" was checked against Friday's 8:00 am alone."""
    page = "Monday to Thursday: 8:00 am to 7:00 pm Friday: 8:00 am to 5:30 pm Saturday: 9:00 am to 1:00 pm"
    assert [_label(page, v.start) for v in values(page)] == [
        "thursday",
        "thursday",
        "friday",
        "friday",
        "saturday",
        "saturday",
    ]
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts([(page, "https://x.example/")])
    answer = "It is open until 7 pm, and closes a bit earlier on Fridays, at 5:30 pm."
    assert not [
        f for s in split_sentences(answer) for f in judge.against_pages(s, every, every, set(), set())
    ]
    wrong = "It closes a bit earlier on Fridays, at 4:30 pm."
    assert [
        f.statement.text for f in judge.against_pages(split_sentences(wrong)[0], every, every, set(), set())
    ]


def test_a_list_item_without_a_verb_affirms_nothing(analyzer):
    """A list item takes its polarity from its heading: under "Who can't stay", "- **Breed
    types:** wolfdog crosses" states the denial; it affirms neither what a claim nor what a page
    sentence denies."""
    page = StoredPage(
        url="https://barkwell.example/boarding",
        title="Boarding rules",
        text="Barkwell does not board unneutered males over 12 months old. Barkwell does not board wolfdog "
        "crosses. Every dog needs a kennel-cough vaccine given at least 14 days before arrival.",
    )
    claims = [
        {"id": "males", "text": "Barkwell does not board unneutered males over 12 months old"},
        {"id": "wolf", "text": "Barkwell does not board wolfdog crosses"},
    ]
    for response in (
        "## Who can't stay\n\n- **Neutering:** unneutered males older than 12 months\n"
        "- **Breed types:** wolfdog crosses\n\nAll dogs need a kennel-cough vaccine.",
        "Barkwell won't board these dogs:\n\n- Unneutered males older than 12 months\n- Wolfdog crosses\n\n"
        "Every other dog is welcome.",
    ):
        query = "Which dogs won't Barkwell board?"
        r = analyzer.analyze(
            AIResponse(
                query_id="q", domain="barkwell.example", query=query, response=response, claims=claims
            ),
            [page],
        )
        assert "contradicted" not in verdicts(r).values() and not r.feedback.contradictions
    said = "- Unneutered males are boarded at no extra cost"  # a verb of its own: it affirms
    assert _states(said) and not _states("- Unneutered males older than 12 months")


def test_a_word_with_a_capital_inside_is_a_name_where_a_sentence_starts(analyzer):
    """ "QuickBooks Online: yes, native integration." is about QuickBooks, which the question names
    beside NetSuite: it says nothing of the NetSuite claim."""
    assert "quickbook" in _names("QuickBooks Online: yes, native integration.")
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="ledger.example",
            query="Does Ledgerly integrate with QuickBooks or NetSuite?",
            response="QuickBooks Online: yes, native integration. NetSuite: no.",
            claims=[{"id": "netsuite", "text": "Ledgerly has no integration with NetSuite"}],
        ),
        [
            StoredPage(
                url="https://ledger.example/integrations",
                title="Integrations",
                text="Ledgerly integrates natively with QuickBooks Online and Xero. Ledgerly has no integration "
                "with NetSuite.",
            )
        ],
    )
    assert verdicts(r)["netsuite"] != "contradicted" and not r.feedback.contradictions


def page_findings(page: str, answer: str, implicit: set[str] | None = None) -> list[PageFinding]:
    """What the offline judge finds against ``page`` in each sentence of ``answer``, with every
    site-wide reading the analyzer gives it (the names and words the site denies, its owners)."""
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts([(s.text, "https://site.example/") for s in split_sentences(page)])
    denied, agents = denied_names(every), agencies(every)
    return [
        f
        for s in split_sentences(answer)
        for f in judge.against_pages(
            s,
            every,
            every,
            implicit or set(),
            OfflineJudge.site_names(every),
            denied,
            list_heading(answer, s.start),
            agents,
            actions=denied_actions(every),
        )
    ]


LIBRARY_PAGE = (
    "Wrenford lends e-books through Libby. We do not use BorrowBox, Hoopla or cloudLibrary, and "
    "titles on those platforms cannot be borrowed with a Wrenford card. There is no region in "
    "South America. The library is closed on Christmas Day and is not open on Sundays. Day passes "
    "are sold at the desk, and there is no Day pass for the archive."
)


def test_the_names_a_site_mentions_only_to_deny_them():
    """BorrowBox, Hoopla and cloudLibrary are only ever denied; Libby is affirmed; "Day" is
    written without a denial too; the calendar's names say when, not what the site has."""
    every = OfflineJudge.page_facts([(s.text, "https://lib.example/") for s in split_sentences(LIBRARY_PAGE)])
    denied = denied_names(every)
    assert {"borrowbox", "hoopla", "america", "south"} <= set(denied)
    assert not {"libby", "day", "christma", "sunday", "wrenford"} & set(denied)
    assert denied["borrowbox"].page.text.startswith("We do not use BorrowBox")


@pytest.mark.parametrize(
    "answer, flagged",
    [
        ("Also available: BorrowBox for audiobooks.", ["BorrowBox for audiobooks."]),
        (
            "You can borrow e-books with Libby, and audiobooks come through Hoopla.",
            ["audiobooks come through Hoopla."],
        ),
        ("- Libby\n- BorrowBox", ["- BorrowBox"]),
        # a denial, a word that disowns, a supposition, an unsure answer, a question: no statement
        ("BorrowBox isn't offered.", []),
        ("Wrenford uses Libby rather than BorrowBox.", []),
        ("If you already use BorrowBox, you will need Libby instead.", []),
        ("You could try BorrowBox elsewhere.", []),
        ("I'm not sure whether BorrowBox is available.", []),
        ("Does Wrenford use BorrowBox?", []),
        # items under a heading that denies them; a label; another name beside it
        ("Not available:\n- BorrowBox\n- Hoopla", []),
        ("**BorrowBox:** see Libby.", []),
        ("There is a region in North America.", []),
    ],
)
def test_an_answer_that_affirms_a_name_the_site_denies_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(LIBRARY_PAGE, answer) if f.detail.startswith("the page denies")]
    assert [f.statement.text for f in found] == flagged
    assert all(f.kind == "negation" and f.evidence.startswith("We do not use") for f in found)


WORKSHOP_PAGE = (
    "Gearbox Cycles services road, gravel and hybrid bikes, and sells tubeless tyres and hub gears "
    "in its shop. We do not fit tubeless tyres or hub "
    "gears, and we don't service e-bikes. We do not refund deposits because of bad weather. "
    "We do not build wheels. We build wheels for members of the Velo Club on Saturdays. "
    "Cards are accepted for repairs; we do not accept cards for hire deposits. "
    "For anything else, ask at the counter."
)


def test_what_a_site_says_it_does_not_do():
    """A denial in the site's own voice names a verb and its object, each alternative of an "or"
    its own; not one that holds only in a circumstance, nor one another sentence affirms (the
    shop sells the tyres it does not fit)."""
    every = OfflineJudge.page_facts(
        [(s.text, "https://gearbox.example/") for s in split_sentences(WORKSHOP_PAGE)]
    )
    actions = {(a.verb, a.objects) for a in denied_actions(every)}

    def keys(*words: str) -> frozenset[str]:
        return frozenset(_key(w) for w in words)

    fit, service = _key("fit"), _key("service")
    assert actions == {
        (fit, keys("tubeless", "tyres")),
        (fit, keys("hub", "gears")),
        (service, keys("e", "bikes")),
        (_key("accept"), keys("cards", "hire")),  # the cards of a hire, not those of a repair
    }


@pytest.mark.parametrize(
    "answer, flagged",
    [
        ("They can also fit tubeless tyres for you.", ["They can also fit tubeless tyres for you."]),
        (
            "Gearbox fits hub gears as well as derailleurs.",
            ["Gearbox fits hub gears as well as derailleurs."],
        ),
        ("Gravel bikes and e-bikes are serviced.", ["e-bikes are serviced."]),
        # a denial, a doubt, a question, a supposition, a circumstance, an action affirmed elsewhere
        ("They don't fit tubeless tyres.", []),
        ("I'm not sure whether they fit tubeless tyres.", []),
        ("Do they fit hub gears?", []),
        ("A specialist could fit tubeless tyres.", []),
        ("Deposits are refunded if the weather is bad.", []),
        ("Velo Club members can have wheels built on Saturdays.", []),
        ("Gearbox accepts cards.", []),
        ("Cards are accepted for hire deposits.", ["Cards are accepted for hire deposits."]),
        # an address is no words of the answer; a list under a heading that denies
        ("Ask about tubeless tyres by email to fit@gearbox.example.", []),
        ("Not offered:\n- Fitting tubeless tyres", []),
        ("- Fit tubeless tyres: not offered", []),
    ],
)
def test_an_answer_that_the_site_does_what_it_says_it_does_not_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(WORKSHOP_PAGE, answer) if f.detail.startswith("the page denies")]
    assert [f.statement.text for f in found] == flagged
    assert all(f.kind == "negation" and "we do not" in f.evidence.lower() for f in found)


SHOP_PAGE = (
    "We accept card and bank transfer; we do not take cash. There are no admin fees. We don't sell "
    "pesticides, weedkillers or slug pellets. A nail clip needs no appointment on weekday mornings. "
    "The Pearl workshop does not accept e-bikes. There is no train that goes to the island. "
    "Monthly plans are not refunded. Opening hours are 9 to 5, Monday to Saturday. If you are not a "
    "member, book a taster session. A block of 10 hours costs £380; there is no block price online. "
    "Fennick Trust is a not-for-profit charity."
)


def test_the_common_words_a_site_uses_only_as_what_it_denies():
    """What "no" or a negated verb denies is the thing after it, up to a preposition or a
    relative clause; the negated verb, the circumstance and the relative clause's words are not
    denied things, nor is a word the pages also use without denying it."""
    every = OfflineJudge.page_facts([(s.text, "https://shop.example/") for s in split_sentences(SHOP_PAGE)])
    words = {k for k, d in denied_names(every).items() if not d.name}
    assert {"cash", "admin", "pesticid", "weedkiller", "slug", "pellet", "train", "bik"} <= words
    assert not {"accept", "weekday", "morning", "sell", "goe", "island", "card"} & words
    assert "month" in words  # the subject of a denied predicate ("monthly")
    # a denial in a supposition, a word the sentence also affirms, "not-for-profit"
    assert not {"member", "book", "taster", "session", "block", "charity"} & words


@pytest.mark.parametrize(
    "answer, flagged",
    [
        ("You can pay by cash, card or bank transfer.", ["You can pay by cash"]),
        ("There's a £25 admin fee on top.", ["There's a £25 admin fee on top."]),
        ("- Slug pellets", ["- Slug pellets"]),
        # denied by the answer too; a heading; an introduction; advice; a unit; a word affirmed elsewhere
        ("Cash is not accepted.", []),
        ("### Cash and cards", []),
        ("Here is what the slug section covers:", []),
        ("You'd need cash for the bus.", []),
        ("It costs £5 per clip on weekday mornings.", []),
        ("Card payments are welcome.", []),
    ],
)
def test_an_answer_that_affirms_a_thing_the_site_denies_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(SHOP_PAGE, answer) if f.detail.startswith("the page denies")]
    assert [f.statement.text for f in found] == flagged


def test_a_table_row_value_the_site_states_is_no_wrong_fact():
    """A row is read without its column header: "£12.80" is the return fare, which the site
    states; a value the site never states is still checked."""
    page = "Adult single fare: £6.40. Adult return fare: £12.80. Child single fare: £3.20."

    def flagged(answer: str) -> list[str]:
        return [f.detail for f in page_findings(page, answer)]

    assert flagged("| Adult | £6.40 | £12.80 |") == []
    assert flagged("| Adult | £6.40 | £14.20 |") == ["£14.20 (response) vs £12.80 (page)"]  # the nearest
    # a later column worked out from the first (a return, a total) is no rival of the first
    assert flagged("| Child | £3.20 | £9.60 |") == []


FERRY_PAGE = (
    "Skerrylink Ferries is owned by the Dunmallow Harbour Trust and operated under contract by "
    "Calloway Marine Ltd. Our cover is underwritten by Bramcote General Insurance plc. Skerrylink "
    "is not part of the Gannet Group. Timetables run Monday to Saturday."
)


@pytest.mark.parametrize(
    "answer, flagged",
    [
        ("Skerrylink is owned by Calloway Marine.", ["Skerrylink is owned by Calloway Marine."]),
        (
            "Skerrylink's cover is underwritten by Harlow Bay Insurance.",
            ["Skerrylink's cover is underwritten by Harlow Bay Insurance."],
        ),
        # the site's own agent in that role, written with or without its company form
        ("Skerrylink is owned by the Dunmallow Harbour Trust.", []),
        ("Sailings are operated by Calloway Marine.", []),
        ("Skerrylink is run by Calloway Marine Ltd.", []),
        # another thing's owner; a question; a denial; the calendar written short
        ("The Isle Hotel is owned by Gannet Holdings.", []),
        ("Is Skerrylink owned by Calloway Marine?", []),
        ("Skerrylink is not owned by Calloway Marine.", []),
        ("Sailings run Mon to Sat.", []),
    ],
)
def test_an_answer_that_names_another_owner_operator_or_underwriter_is_a_wrong_fact(answer, flagged):
    found = page_findings(FERRY_PAGE, answer, {"skerrylink"})
    assert [f.statement.text for f in found] == flagged
    assert {(f.kind, f.detail) for f in found} <= {
        ("entity", "Calloway Marine (response) vs Dunmallow Harbour Trust (page)"),
        ("entity", "Harlow Bay Insurance (response) vs Bramcote General Insurance (page)"),
    }


def test_the_owners_a_site_names_and_what_of():
    """Two relations in one sentence share its subject; a denied one is no relation."""
    every = OfflineJudge.page_facts([(s.text, "https://ferry.example/") for s in split_sentences(FERRY_PAGE)])
    found = {(a.role, a.agent_text, tuple(sorted(a.subject))) for a in agencies(every)}
    assert found == {
        ("owner", "Dunmallow Harbour Trust", ("ferry", "skerrylink")),
        ("operator", "Calloway Marine Ltd", ("ferry", "skerrylink")),
        ("underwriter", "Bramcote General Insurance", ()),
    }


def test_a_claim_that_denies_the_name_the_answer_affirms_is_contradicted(analyzer):
    """The claim denies what the page denies; the answer affirms it: the claim is contradicted,
    not left missing, and the answer is poor."""
    result = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="seeds.example",
            query="Can Hawthorn send seeds to Northern Ireland?",
            response="Yes, Hawthorn posts seeds anywhere in the UK, Northern Ireland included.",
            claims=[
                {
                    "id": "no",
                    "text": "Hawthorn cannot send seeds to Northern Ireland",
                    "importance": "required",
                }
            ],
        ),
        [
            StoredPage(
                url="https://seeds.example/delivery",
                title="Delivery",
                text="Because of plant health rules, we can't send seeds to Northern Ireland or the Isle of Man. "
                "Seed parcels go by Royal Mail to England, Scotland and Wales.",
            )
        ],
    )
    assert verdicts(result) == {"no": "contradicted"}
    assert [c.statement for c in result.feedback.contradictions] == ["Northern Ireland included."]
    assert result.scores.accuracy.tier == "poor"
    # the path where only the name check sees it: its finding contradicts the claim that denies
    # the name, and no claim that affirms it or names another thing
    statement = Span(0, 26, "Northern Ireland included.")
    finding = PageFinding(
        statement, "negation", "x", "u", "the page denies Northern Ireland", 0.7, ("Northern", "Ireland")
    )
    assert _replaces(finding, "Hawthorn cannot send seeds to Northern Ireland")
    assert not _replaces(finding, "Hawthorn sends seeds to Northern Ireland by courier")
    assert not _replaces(finding, "Hawthorn cannot send seeds to the Isle of Man")


def test_a_label_with_a_qualifier_in_brackets_binds_its_value():
    """ "Child (5–15): £12" against the page's "Child (5 to 15): £9.50" was read unbound, and the
    page's "children under 12" (an age) stated the £12: a label keeps its bracketed qualifier,
    and only a price states a price."""
    page = [
        "Adult single: £12.",
        "Child (5 to 15): £9.50.",
        "Children under 12 are not allowed on the dining train.",
    ]
    every = OfflineJudge.page_facts([(s, "https://x.example/") for s in page])
    assert every[1].labels[-1] == "child"
    assert [f.statement.text for f in _page_findings(page, "- Child (5–15): £12")] == ["- Child (5–15): £12"]
    assert _page_findings(page, "- Child (5–15): £9.50") == []


def test_the_unit_of_a_value_names_no_variant():
    """ "30 minutes before closing" against "1 hour before closing" was read as another variant
    ("minutes" before "before" as "a family ticket" for "a child ticket"): the word after a number
    is its unit, and the value decides."""
    page = ["Last admission is 1 hour before closing."]
    found = _page_findings(page, "Last admission is typically 30 minutes before closing.")
    assert [f.kind for f in found] == ["quantity"]
    assert _page_findings(page, "Last admission is an hour before closing.") == []


BIKE_PAGE = (
    "Cogwell Cycles has three plans: Tune, Ride and Pro. Wheel truing is available only on the Pro plan. "
    "You can add a second bike on any plan. Parts included: inner tubes, brake pads (Ride and Pro only), "
    "and chains (Pro only). The Dunmore workshop does not repair e-bikes; e-bike repairs are available "
    "only at Harbour Street and Millbank. Collection only on Sundays. Courtesy bikes are lent on "
    "the Pro plan only."
)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # a universal where the site restricts to names
        ("Wheel truing is available on every plan.", ["Wheel truing is available on every plan."]),
        ("Chains are included on all three plans.", ["Chains are included on all three plans."]),
        ("Courtesy bikes are lent on any plan.", ["Courtesy bikes are lent on any plan."]),
        # a restriction where the site says any; to fewer names than the site's
        (
            "A second bike can be added on the Pro plan only.",
            ["A second bike can be added on the Pro plan only."],
        ),
        ("Brake pads are included (Pro only).", ["Brake pads are included (Pro only)."]),
        # a list naming a place the restriction leaves out
        (
            "E-bike repairs are available at Harbour Street and Dunmore.",
            ["E-bike repairs are available at Harbour Street and Dunmore"],
        ),
        # the site's own scope, in other words; another part than the restricted one; a denial
        ("Wheel truing is only available on Pro.", []),
        ("Inner tubes are included on all three plans.", []),
        ("E-bike repairs are available at Harbour Street and Millbank.", []),
        ("Wheel truing is not available on every plan.", []),
        ("You can add a second bike on every plan.", []),
        # a restriction of manner, not to names; a universal over no kind of thing
        ("Sundays are collection only.", []),
        ("You can cancel at any time.", []),
    ],
)
def test_an_answer_that_widens_or_narrows_what_the_site_restricts_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(BIKE_PAGE, answer, {"cogwell"}) if f.kind == "scope"]
    assert [f.statement.text for f in found] == flagged


def test_the_scopes_a_text_states():
    """Restrictions to names, before or after them, with their kind of thing; universals."""
    got = scopes("Truing is only available on the Pro plan, and wax at the Leith and Ayr branches only.")
    assert [(s.kind, set(s.names), s.noun) for s in got] == [
        ("only", {"pro"}, "plan"),
        ("only", {"leith", "ayr"}, "branch"),
    ]
    assert [
        (s.kind, s.noun) for s in scopes("Delivery is free on all three plans and at any Brightwell branch.")
    ] == [
        ("all", "plan"),
        ("all", "branch"),
    ]
    # a manner, a capital that only starts the sentence, a time: no scope
    assert scopes("Collection only. By appointment only, at any time.") == ()
    # a universal a relative clause restricts is none
    assert scopes("Texts come out of your allowance on every plan that includes roaming.") == ()
    # an "only" after a verb restricts what follows it, not the name before
    assert [set(s.names) for s in scopes("Texts in the US are only included on Unlimited Global.")] == [
        {"unlimited global"}
    ]
    assert [set(s.names) for s in listed_names("Open at Alberta, Sellwood and the Pearl.")] == [
        {"alberta", "sellwood", "pearl"}
    ]


DISCOUNT_PAGE = (
    "Members get 10% off in the shop. The member discount does not apply to books, gifts or café "
    "purchases. Emergency access is not available on Personal. The Personal plan costs $3. There is a £50 excess on HomeCare Plus and no excess on "
    "HomeCare Boiler. This does not apply to Business, where the allowance is 32 kg."
)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("The member discount covers everything, books included.", ["books included."]),
        ("Emergency access is included on all plans, including Personal.", ["including Personal."]),
        # the site's exclusion in other words; another thing named; said of no subject ("This")
        ("The member discount doesn't cover books or gifts.", []),
        ("Members get 10% off everything except books.", []),
        ("There's no open studio on Personal, and the café sells books.", []),
        ("Business passengers get 2 bags of 32 kg.", []),
    ],
)
def test_an_answer_that_gives_what_the_site_excludes_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(DISCOUNT_PAGE, answer) if f.kind == "scope"]
    assert [f.statement.text for f in found] == flagged


@pytest.mark.parametrize(
    ("claim", "text", "opposite"),
    [
        ("Keywarden cannot reset your master password.", "Support can reset your master password.", True),
        ("The café is closed on Sundays.", "The café opens on Sundays.", True),
        ("The café is closed on Sundays.", "Note that the café doesn't open on Sundays.", False),
        # each statement against the closest one: the one it denies
        (
            "Praseodymium is a chemical element; it has symbol Pr.",
            "It is not a chemical element; it has symbol Pr.",
            True,
        ),
        ("It does not accept credit cards but accepts debit cards.", "Debit cards are accepted.", False),
        (
            "Children aged 8 to 11 need an adult on the poolside.",
            "They can swim without an adult in the water, but an adult must be on the poolside.",
            False,
        ),
        # a relative clause is a statement of its own; a condition, an answer's "No." are none
        (
            "Members of a society which are independent of it.",
            "Members of a society which are not independent of it.",
            True,
        ),
        ("No paranormal phenomena have been shown to be real.", "ESP has been shown to be real.", True),
        (
            "It is a subsidiary of Pemberton Mutual, which does not underwrite policies.",
            "It is part of Pemberton Mutual.",
            False,
        ),
        ("A follow-up is free if not all the wax was removed.", "A follow-up is free.", False),
        ("Copperbeck covers Bristol and Bath.", "No. Copperbeck's service area is Bristol and Bath.", False),
        # a statement with its opposite in it states and denies
        (
            "It is taught at the field station, not on the main campus.",
            "It is taught at the field station.",
            False,
        ),
        ("Dogs are allowed in canoes only.", "Dogs are not allowed in kayaks.", False),
        ("The fund pays for advice rather than food.", "The fund doesn't pay for food.", False),
        (
            "It is taught at the field station, not on the main campus.",
            "It is taught there rather than on the main campus.",
            False,
        ),
    ],
)
def test_a_statement_is_denied_by_the_closest_statement_of_the_other_polarity(claim, text, opposite):
    assert opposite_polarity(claim, text) is opposite


def test_the_things_a_text_excludes():
    """What something is said not to hold for, each thing of a list; no value, day or reason."""
    assert [i for i, *_ in exclusions("The concession does not apply to Day Passes or pay-as-you-ride.")] == [
        "Day Passes",
        "pay-as-you-ride",
    ]
    assert [i for i, *_ in exclusions("There is no excess on HomeCare Boiler.")] == ["HomeCare Boiler"]
    assert [i for i, *_ in exclusions("Shows are not included in admission and cost £4 per person.")] == [
        "admission"
    ]
    assert exclusions("There is no open studio on Tuesdays or Saturdays.") == ()
    assert exclusions("This does not apply to Business, where the allowance is 32 kg.") == ()
    assert exclusions("Refunds are not available for items bought in a sale last year.") == ()


THEATRE_PAGE = (
    "Matinee performances (Thursday and Saturday, 2:30pm) cost £30. Evening performances run "
    "Tuesday to Saturday at 7:30pm. The box office is open Monday to Friday, 10am to 6pm. "
    "Saturday: 10am to 2pm. It is closed on Sundays. Tours run daily at 11am. The café is open "
    "Monday to Saturday, 9am to 5pm; closed on Sundays. Costume workshops are held on Fridays and "
    "Saturdays only."
)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        (
            "Matinee shows are on Wednesdays and Saturdays at 2:30pm.",
            ["Matinee shows are on Wednesdays and Saturdays at 2:30pm."],
        ),
        (
            "Evening shows run Monday to Saturday at 7:30pm.",
            ["Evening shows run Monday to Saturday at 7:30pm."],
        ),
        ("The box office is open seven days a week.", ["The box office is open seven days a week."]),
        ("The café is open every day.", ["The café is open every day."]),
        # one day the site says it is closed, or beyond the only days it gives
        ("The café opens on Sunday mornings from 9am.", ["The café opens on Sunday mornings from 9am."]),
        (
            "Costume workshops can be booked on Sundays too.",
            ["Costume workshops can be booked on Sundays too."],
        ),
        # the site's days, its bare schedule line included; a day not said open; tours every day
        ("Matinees are on Thursdays and Saturdays at 2:30pm.", []),
        ("The box office is open Monday to Saturday.", []),
        ("The box office is closed on Sundays and Mondays.", []),
        ("Tours run every day at 11am.", []),
        ("The café shuts at weekends.", []),
    ],
)
def test_an_answer_that_gives_other_days_than_the_site_is_a_wrong_fact(answer, flagged):
    found = [f for f in page_findings(THEATRE_PAGE, answer) if f.kind == "scope"]
    assert [f.statement.text for f in found] == flagged


SCHEDULE_PAGE = "Monday to Thursday: 8:00 am – 6:00 pm. Friday: 8:00 am – 2:00 pm. Saturday: 9am to 1pm."


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        # a day named however written is the day the site's schedule line gives times for
        ("We're open Mon–Fri 8am–6pm.", ["We're open Mon–Fri 8am–6pm."]),
        ("Sat: 9am to 4:30pm.", ["9am to 4:30pm."]),
        ("Hours: Mon–Thu 8am–6pm, Fri 8am–2pm, Sat 9am–1pm.", []),
        ("Saturdays 9am–1pm.", []),
    ],
)
def test_times_given_for_a_day_are_checked_against_that_days_times(answer, flagged):
    found = page_findings(SCHEDULE_PAGE, answer)
    assert [f.statement.text for f in found] == flagged


def test_the_days_a_text_names():
    """Ranges (wrapping the week), lists, parts of the week and every day; capitalised only."""
    assert [
        (sorted(d.days), d.several) for d in day_sets("Fri–Mon, weekends and Wednesdays or Thursdays")
    ] == [
        ([0, 4, 5, 6], True),
        ([5, 6], True),
        ([2, 3], True),
    ]
    assert [sorted(d.days) for d in day_sets("Open seven days a week; the sun sets early.")] == [
        list(range(7))
    ]
    assert day_names(frozenset({1, 2, 3, 4, 5})) == "Tuesday to Saturday"
    assert day_names(frozenset({0, 2, 4})) == "Monday, Wednesday and Friday"
    assert day_names(frozenset({3, 4, 5, 6, 0})) == "Thursday to Monday"  # across the weekend


def test_a_price_is_checked_against_the_price_of_its_whole_name():
    """ "Puppy Starter: £79" is wrong where the site's Puppy Starter costs £89, although its
    Kitten Starter costs £79: both names end in "Starter"."""
    page = ["Puppy Starter costs £89.", "Kitten Starter costs £79."]
    found = _page_findings(page, "- Puppy Starter: £79\n- Kitten Starter: £79")
    assert [(f.statement.text, f.detail) for f in found] == [
        ("- Puppy Starter: £79", "£79 (response) vs £89 (page)")
    ]


def test_a_monthly_price_meets_a_list_price_written_without_its_period():
    """Under "prices per month" a list writes "Dedicated Desk: ..., £295": "Dedicated Desk £350 a
    month" is wrong; a price the answer binds to no name ("about £112.85 a week on average") is not
    checked against a list item's ("One-bedroom flat: £96.40"), nor a monthly plan against a
    per-use fee far from it."""
    page = ["Dedicated Desk: your own desk with a lockable pedestal, 24/7, £295."]
    assert [f.detail for f in _page_findings(page, "Dedicated Desk £350 a month.")] == [
        "£350 a month (response) vs £295 (page)"
    ]
    assert _page_findings(page, "Dedicated Desk £295 a month.") == []
    rents = ["Average weekly rents for 2025/26: One-bedroom flat: £96.40."]
    assert _page_findings(rents, "About £112.85 a week on average.") == []
    overage = ["Dedicated Desk printing: £0.40 per page."]
    assert _page_findings(overage, "Dedicated Desk £350 a month.") == []


def test_pence_are_money():
    """ "40p a mile" against "45p a mile"; "10 p.m." and "1080p" are no prices."""
    assert [(v.kind, v.unit, v.raw) for v in values("We pay mileage at 45p a mile.")] == [
        ("money", "GBP", 0.45)
    ]
    assert [v.kind for v in values("Open until 10 p.m. daily, streamed in 1080p.")] == ["time"]
    found = _page_findings(["We pay mileage at 45p a mile."], "They pay mileage at 40p a mile.")
    assert [f.detail for f in found] == ["40p (response) vs 45p (page)"]


def test_nothing_to_pay_is_no_rival_of_a_price_after_a_free_allowance():
    """ "the first 30 miles cost nothing" states the page's "first 30 miles included, then 24p"."""
    page = ["Mileage: first 30 miles of each booking included, then 24p per mile."]
    assert _page_findings(page, "The first 30 miles of every booking cost nothing.") == []


def test_a_plural_in_ies_meets_its_singular():
    assert (
        _key("dailies") == _key("daily")
        and _key("movies") == _key("movie")
        and _key("cities") == _key("city")
    )


def test_a_claim_is_contradicted_by_the_list_item_its_telling_word_names(analyzer):
    """A claim about toric lenses is contradicted where the list says "Toric dailies: £22", not at
    the first item that shares its commoner words; a "10-day pack" is no misstated "10 hours"."""
    result = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="lens.example",
            query="How much is the Larchmere Lens Plan?",
            response="Larchmere Lens Plan prices (per month):\n\n- Daily disposables: £22\n- Monthly lenses: £14\n"
            "- Toric dailies (astigmatism): £22\n\nA full day is $42; a 10-day pack is $390.",
            claims=[
                {"id": "toric", "text": "The Larchmere Lens Plan costs £29 a month for toric daily lenses"},
                {"id": "day", "text": "A full day lasts up to 10 hours"},
            ],
        ),
        [
            StoredPage(
                url="https://lens.example/plan",
                title="Lens Plan",
                text="The Larchmere Lens Plan costs £22 a month for daily disposables, £14 for monthly lenses "
                "and £29 for toric daily lenses. A full day lasts up to 10 hours.",
            )
        ],
    )
    toric = result.feedback.claims.contradicted
    assert [c.claim.id for c in toric] == ["toric"]
    assert "Toric dailies" in toric[0].statement
    assert not any("10-day" in c.statement for c in result.feedback.contradictions)


def test_a_day_of_the_year_is_a_value_without_its_year():
    """ "30 September" is a day, equal to "30 September 2025"; "25 and 26 December" names days,
    not a count of 25."""
    day, dated = values("Applications close on 30 September.")[0], values("30 September 2025")[0]
    assert (day.kind, day.text) == ("day", "30 September") and day.equals(dated)
    assert [(v.kind, v.text) for v in values("Both sites close on 25 and 26 December and 1 January.")] == [
        ("day", "26 December"),
        ("day", "1 January"),
    ]
    found = _page_findings(
        ["Applications open on 1 July and close on 31 August."], "Applications close on 30 September."
    )
    assert [f.detail for f in found] == ["30 September (response) vs 31 August (page)"]


def test_a_number_counting_another_thing_does_not_state_the_answer_s():
    """ "Our three classes of cruisers" does not state "up to 3 dogs"; "up to 3 children" states
    "three kids", and "up to 15 items" "15 books"."""
    page = [
        "Holiday cruisers: our three classes of cruisers sleep 2 to 8.",
        "Up to 2 dogs are allowed on every holiday cruiser.",
    ]
    assert [f.detail for f in _page_findings(page, "Holiday cruisers take up to 3 dogs.")] == [
        "3 (response) vs 2 (page)"
    ]
    judge = OfflineJudge(Lexicon(None))
    assert judge._counts_like(
        "15 books", values("15 books")[0], "up to 15 items", values("up to 15 items")[0]
    )


def test_a_hedge_that_leads_a_statement_in_is_not_its_subject():
    """ "As far as I know you can pause for up to 6 months" is about pausing."""
    page = ["You can pause your subscription for up to 3 months at a time."]
    found = _page_findings(page, "As far as I know you can pause your subscription for up to 6 months.")
    assert [f.detail for f in found] == ["6 months (response) vs 3 months (page)"]


def test_a_short_line_is_read_against_every_page_sentence_that_states_all_of_it():
    """ "- Founded in 2011" is like few page sentences; the site's "founded in 2009" is found all the
    same (only where every word of the line is there)."""
    judge = OfflineJudge(Lexicon(None))
    every = OfflineJudge.page_facts(
        [(s, "https://x.example/") for s in ["The choir was founded in 2009.", "We sing in 4 parts."]]
    )
    line = split_sentences("- Founded in 2011")[0]
    found = judge.against_pages(line, every[1:], every, set(), set())
    assert [f.detail for f in found] == ["in 2011 (response) vs in 2009 (page)"]


def test_a_line_led_by_a_site_name_is_about_it_in_every_clause():
    """In "Ancoats: Mon–Fri 10am–10pm, weekends 9am–6pm" the weekend hours are Ancoats', although
    the other centre opens 9am to 6pm at weekends (the rules' flag, every one reported)."""
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_flag_confidence": 0}))
    text = (
        "Opening hours\nAncoats: weekdays 10am to 10pm; weekends 9am to 8pm.\n"
        "Stockport: weekdays 12pm to 10pm; weekends 9am to 6pm.\n"
        "Stockport has 2 car parks. The café is at Ancoats only. Day passes cost £12. Both have 40 lockers."
    )
    result = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="walls.example",
            query="When is Gritstone Ancoats open?",
            response="Ancoats: weekdays 10am–10pm, weekends 9am–6pm.",
        ),
        [StoredPage(url="https://walls.example/hours", title="Hours", text=text)],
    )
    assert [c.detail for c in result.feedback.contradictions] == ["6pm. (response) vs 8pm. (page)"]


def _flags_on(pages: list[StoredPage], query: str, answer: str) -> list[str]:
    """Every wrong fact's detail (every flag kept) in ``answer`` against ``pages``."""
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.min_flag_confidence": 0}))
    return [c.detail for c in wrong_facts(analyzer, pages, query, answer)]


def test_a_line_led_by_the_brand_is_about_the_whole_site():
    """ "Copperbeck: £95 for a combi, £135 for a system boiler, £110 for oil" swaps two prices;
    the brand leading the line named the clauses' subject, so no page sentence (none repeats the
    brand) was about them. The brand names no variant; a plan leading a line after a dash does
    ("Plus – buildings up to £1,000,000" is the Plus plan's cover, not Premier's)."""
    pages = [
        StoredPage(
            url="https://copperbeck.example/servicing",
            title="Boiler servicing | Copperbeck Plumbing",
            text="Annual boiler service: £95 for a gas combi boiler, £110 for a gas system or regular "
            "(heat-only) boiler, and £135 for an oil boiler.\nCopperbeck engineers are Gas Safe registered.",
        ),
        StoredPage(
            url="https://copperbeck.example/cover",
            title="Home cover | Copperbeck Plumbing",
            text="Plus: buildings cover up to £750,000 and contents cover up to £60,000.\n"
            "Premier: buildings cover up to £1,000,000 and contents cover up to £100,000.\n"
            "Most of our customers choose Plus.",
        ),
    ]

    service = "How much is a boiler service?"
    assert _flags_on(
        pages, service, "Copperbeck: £95 for a combi, £135 for a system boiler, £110 for oil."
    ) == [
        "£135 (response) vs £110 (page)",
        "£110 (response) vs £135 (page)",
    ]
    assert (
        _flags_on(pages, service, "Copperbeck: £95 for a combi, £110 for a system boiler, £135 for oil.")
        == []
    )
    cover = "What does each cover level include?"
    assert _flags_on(pages, cover, "- Plus – buildings up to £1,000,000, contents up to £60,000") == [
        "£1,000,000 (response) vs £750,000 (page)"
    ]
    assert _flags_on(pages, cover, "- Premier – buildings up to £1,000,000, contents up to £100,000") == []


def test_daily_means_every_day():
    page = ["Both facilities have gate access every day from 6am to 10pm."]
    assert [f.detail for f in _page_findings(page, "Gates open 7am–9pm daily.")] == [
        "7am (response) vs 6am (page)",
        "9pm (response) vs 10pm. (page)",
    ]


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("Velo Fix is an Apple Authorised Service Provider.", True),  # the page's second statement denies it
        ("Velo Fix is an independent repairer.", False),
        ("Unused data rolls over to the next month.", True),
        ("Unused data does not roll over.", False),
    ],
)
def test_a_statement_the_closest_page_sentence_denies_in_one_of_its_parts_is_wrong(answer, flagged):
    page = [
        "Velo Fix is an independent repairer and is not an Apple Authorised Service Provider.",
        "Unused data does not roll over on any prepaid plan.",
        "Prepaid Plus costs £15 a month.",
    ]
    found = _page_findings(page, answer)
    assert bool(found) == flagged
    assert all(f.kind == "negation" for f in found)


def test_a_statement_the_site_also_states_as_written_is_not_denied():
    page = [
        "Unused data does not roll over on the Basic plan.",
        "Unused data rolls over to the next month on Prepaid Max.",
    ]
    assert _page_findings(page, "Unused data rolls over to the next month on Prepaid Max.") == []


def test_a_day_written_short_is_the_day_s_word_and_a_lower_case_word_is_not_a_day():
    """A short day ("Tue-Fri: 10:00-16:00") states the words of "open Tuesday to Friday"; "the sun" is no Sunday."""
    short = OfflineJudge.keys(["- Tue-Fri: 10:00-16:00", "Sat: 9am-1pm, Thurs late"])
    assert OfflineJudge.keys(["Tuesday to Friday, Saturday, Thursday"]) <= short
    assert not OfflineJudge.keys(["Sunday", "Wednesday"]) & OfflineJudge.keys(
        ["the sun is out; we wed in June"]
    )


def judged(claim: str, answer: str):
    """The offline judge's verdict on ``claim`` in ``answer``, every window equally close."""
    judge = OfflineJudge(Lexicon(None))
    windows = judge.windows(answer)
    return judge.judge_claim(claim, windows, [0.8] * len(windows), set())


def _claim_verdict(
    analyzer, domain: str, title: str, page: str, claim: str, query: str, response: str
) -> str:
    """The claim's verdict from the claim checks alone (the page checks off)."""
    analyzer = ResponseAnalyzer(AnalyzerConfig.load(None, {"feedback.check_pages": False}), analyzer.embedder)
    gt = analyzer.prepare_ground_truth(
        [StoredPage(url=f"https://{domain}/about", title=title, text=page)], [domain]
    )[domain]
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain=domain,
            query=query,
            response=response,
            claims=[{"id": "c", "text": claim, "importance": "required"}],
        ),
        gt,
    )
    return verdicts(r)["c"]


def test_the_site_s_own_name_before_a_value_names_no_other_variant(analyzer):
    """The site's name as its pages give it ("Brinewater Sailing refunds ...") is the claim's
    subject, not another thing whose value it states."""
    page = "Cancelling 10 days or more before the course starts gives a full refund of the fee."
    said = (
        "Brinewater Sailing refunds the fee in full if you cancel at least 3 days before the course starts."
    )
    verdict = _claim_verdict(
        analyzer, "brinewater.example", "About | Brinewater Sailing", page, page, "Can I get a refund?", said
    )
    assert verdict == "contradicted"


def test_a_word_that_only_names_a_price_is_said_by_the_price():
    """ "late checkout £25" says what "Late checkout costs £20 at weekends" says it of, "costs"
    included; a window that says nothing of the claim's own words stays no judge of it."""
    judge = OfflineJudge(Lexicon(None))
    claim = "Late checkout costs £20 at weekends."
    for answer, verdict in (
        ("Early check-in £15, late checkout £25.", "contradicted"),
        ("Parking nearby costs £25 a day.", "missing"),
    ):
        windows = judge.windows(answer)
        got = judge.judge_claim(claim, windows, [0.8] * len(windows), set())
        assert got.verdict == verdict, answer


def test_a_schedule_stated_for_other_days_contradicts_the_claim():
    """The claim's hours on other days are another schedule ("Wednesday to Sunday, 10am to 5pm"
    for "Thursday to Monday from 10am to 5pm"); the same hours on fewer of its days are a part."""
    judge = OfflineJudge(Lexicon(None))
    claim = "The gallery shop is open Thursday to Monday from 10am to 5pm."
    for answer, verdict in (
        ("The gallery shop is open Wednesday to Sunday, 10am to 5pm.", "contradicted"),
        ("The gallery shop is open Thursday to Monday, 10am to 5pm.", "found"),
        ("On Saturdays the gallery shop is open from 10am to 5pm.", "found"),
    ):
        windows = judge.windows(answer)
        got = judge.judge_claim(claim, windows, [0.8] * len(windows), set())
        assert got.verdict == verdict, answer
        if verdict == "contradicted":
            assert got.kind == "scope" and "Wednesday" in got.evidence


def test_a_schedule_in_two_sentences_is_judged_by_the_sentence_giving_its_days():
    """A pair of sentences does not find a claim with one sentence's hours while the other gives
    them for other days; a claim of the days something is closed is contradicted by an answer
    that says it is open on one of them."""
    judge = OfflineJudge(Lexicon(None))
    answer = (
        "The cellar door is open Wednesday to Sunday, 10am to 5pm. On public holidays it opens "
        "from 11am to 4pm, but it is closed on Christmas Day."
    )
    windows = judge.windows(answer)
    for claim in (
        "The cellar door is open Thursday to Monday from 10am to 5pm.",
        "The cellar door is closed on Tuesdays and Wednesdays.",
    ):
        got = judge.judge_claim(claim, windows, [0.8] * len(windows), set())
        assert got.verdict == "contradicted" and got.kind == "scope", claim
    got = judge.judge_claim("The cellar door is closed on Mondays.", windows, [0.8] * len(windows), set())
    assert got.verdict != "contradicted"


@pytest.mark.parametrize(
    "answer, contradicted",
    [
        # the only time the answer writes as a time is a Tuesday's
        (
            "You can visit from Tuesday through Friday between ten in the morning and six in the "
            "evening, and on Saturdays from nine until five. The shop doesn't open on Sundays or Mondays.",
            False,
        ),
        (
            "You can visit on Saturdays between ten in the morning and six in the evening. The shop "
            "doesn't open on Sundays or Mondays.",
            True,
        ),
    ],
)
def test_a_value_given_for_other_days_is_no_rival_of_a_claims_day(answer, contradicted):
    """A Saturday claim's 09:00 was called contradicted by "ten in the morning", which the answer
    gives for Tuesday to Friday in a sentence that goes on to Saturday's hours."""
    got = judged("The shop is open on Saturday from 09:00 to 17:00.", answer)
    assert (got.verdict == "contradicted") == contradicted, got


@pytest.mark.parametrize(
    "answer, contradicted",
    [
        ("At weekends a 2-year-old pays the Jungle Gym toddler price.", False),  # a case within 1 to 3
        ("Jungle Gym charges the toddler price for children up to 2 years at weekends.", True),  # a bound
        ("Jungle Gym charges the toddler price for children up to 5 years at weekends.", True),
    ],
)
def test_a_case_within_the_range_a_claim_states_is_no_misstatement(answer, contradicted):
    """ "a 2-year-old" was read as misstating "1 to 3 years" (as "3 years"): a value the answer
    gives as one case within the claim's range is no rival of its end; a value that bounds a
    range of its own ("up to 2 years") still is."""
    got = judged("Jungle Gym charges the toddler price for children of 1 to 3 years at weekends.", answer)
    assert (got.verdict == "contradicted") == contradicted, got


@pytest.mark.parametrize(
    "answer, verdict",
    [
        # the claim's hours bound to other days in a line of several schedules
        ("Tue-Fri 10:00-17:00, Sat 10:00-14:00, closed Sun-Mon; phones Mon-Fri 10:00-15:00.", "contradicted"),
        ("Tue-Fri 10:00-17:00, Sat 10:00-14:00, closed Sun-Mon; phones Tue-Fri 10:00-15:00.", "found"),
    ],
)
def test_hours_are_read_with_the_days_they_are_given_for(answer, verdict):
    assert judged("Phone lines are open Tuesday to Friday, 10:00 to 15:00.", answer).verdict == verdict


@pytest.mark.parametrize(
    "text, said",
    [
        ("Tue-Fri 10-5, Sat 10-2, closed Sun-Mon", [([1, 2, 3, 4], True), ([5], True), ([0, 6], False)]),
        ("Closed Sunday. Open Mon-Sat 10-6.", [([6], False), ([0, 1, 2, 3, 4, 5], True)]),
        ("Open every day except Monday.", [(list(range(7)), True), ([0], False)]),
        (
            "We do not open on Mondays, but open Tuesday to Sunday.",
            [([0], False), ([1, 2, 3, 4, 5, 6], True)],
        ),
        ("No Sundays. Sat 10am-4pm.", [([6], False), ([5], True)]),
        ("Sunday lessons aren't available.", [([6], False)]),
        ("| Monday | Closed |\n| Tue-Thu | 10:00-19:00 |", [([0], False), ([1, 2, 3], True)]),
        ("Sunday & bank holidays: none", [([6], False)]),
        ("The shop opens 10am to 3pm on Sundays and is closed on Mondays.", [([6], True), ([0], False)]),
        ("Mon-Sat (no Sundays)", [([0, 1, 2, 3, 4, 5], True), ([6], False)]),
        ("**Monday:** closed (as is Sunday)", [([0], False), ([6], False)]),
        ("Closed on Sundays, but call-outs run on Sundays from 9am.", [([6], False), ([6], True)]),
        # hours closed, not days; a negation of another thing than the days
        ("Closed daily 12-1pm for cleaning.", [(list(range(7)), True)]),
        ("The café closes at 3.30pm on Sundays.", [([6], True)]),
        ("Level 2 is not available online and runs in person on Tuesday evenings.", [([1], True)]),
        # "none" denies the days after it, not the days before
        ("Tue–Sat visits, none Sunday or Monday.", [([1, 2, 3, 4, 5], True), ([0, 6], False)]),
        (
            "Visits Tuesday to Saturday and none on Sundays or Mondays.",
            [([1, 2, 3, 4, 5], True), ([0, 6], False)],
        ),
        # a day with an ordinal is a day of a month (numbered from MONTHLY), not of every week;
        # "closed" before a month closes the month
        (
            "Open from the first Saturday in October to the last Sunday in April and closed May to September.",
            [([MONTHLY + 5], True), ([MONTHLY + 6], True)],
        ),
        ("On the last Wednesday of each month, 5pm to 9pm, sessions are free.", [([MONTHLY + 2], True)]),
    ],
)
def test_the_days_a_text_says_something_is_on_or_not(text, said):
    assert [(sorted(d.days), d.open) for d in days_said(text)] == said


@pytest.mark.parametrize(
    "response, flagged",
    [
        ("Sessions run Tuesday and Wednesday, 5pm to 9pm.", False),  # weekly: no rival of a month's day
        ("Free sessions are on the last Thursday of each month, 5pm to 9pm.", True),
    ],
)
def test_a_day_of_a_month_is_checked_only_against_days_of_a_month(analyzer, response, flagged):
    """ "Tue–Wed 5–9pm" was flagged against "the last Wednesday of each month": a weekly day
    was read as the monthly one; "the last Thursday" is still another day of a month."""
    page = (
        "https://sauna.example/hours",
        "On the last Wednesday of each month, 5pm to 9pm, sessions are free for members of the club.",
    )
    flags = wrong_facts(analyzer, page, "When are the free sessions?", response)
    assert bool(flags) == flagged, flags


def test_days_otherwise():
    """Another schedule, a day said open against a day said closed and the claim's own values on
    other days contradict; fewer days, a schedule that includes the claim's, other days alone
    and loose "weekdays" do not."""
    claim = days_said("open Thursday to Monday")
    assert days_otherwise(claim, [days_said("open Wednesday to Sunday")], False)
    assert not days_otherwise(claim, [days_said("open Friday to Sunday")], False)
    assert not days_otherwise(claim, [days_said("open every day")], False)
    assert days_otherwise(claim, [days_said("open every day")], True)  # its hours, said of every day
    assert days_otherwise(claim, [days_said("closed on Fridays")], False)
    assert not days_otherwise(days_said("on Saturdays"), [days_said("on Sundays")], False)
    assert days_otherwise(days_said("closed on Mondays"), [days_said("open Monday to Friday")], False)
    assert not days_otherwise(days_said("closed on Mondays"), [days_said("on weekdays")], False)
    # each value read with its own days: 5:30pm on Fridays states a Friday claim's closing time
    friday = days_said("open 8am to 5:30pm on Fridays")
    assert not days_otherwise(friday, [days_said("Monday to Thursday"), days_said("Fridays")], True)
    assert days_otherwise(friday, [days_said("Monday to Friday")], True)


def test_notes_are_no_negation():
    """A plural whose light stem would be a function word keeps its own: "notes" is no "not"."""
    assert _key("notes") == _key("note") == "note"
    assert _key("enabled") == _key("enable")


def test_a_window_stating_the_claim_s_other_numbers_alike_is_about_it():
    """ "| Cadets (11-15) | £385 |" gives the "11-15" of "Cadets aged 11-15 pay £415 for the
    sailing week" alike, so its price is the claim's, misstated; a row of another age band is not."""
    judge = OfflineJudge(Lexicon(None))
    claim = "Cadets aged 11-15 pay £415 for the sailing week."
    asked = OfflineJudge.keys(["How much is the sailing week?"])
    for answer, verdict in (
        ("| Adults | £465 |\n| Cadets (11-15) | £385 |", "contradicted"),
        ("| Adults | £465 |\n| Minis (6-10) | £385 |", "missing"),
    ):
        windows = judge.windows(answer)
        got = judge.judge_claim(claim, windows, [0.8] * len(windows), asked)
        assert got.verdict == verdict, answer


@pytest.mark.parametrize(
    "response, contradicted",
    [
        ("Folly Cove Rowing is a separate club on the north shore, with its own boathouse.", False),
        ("Kestrel e-bikes are off the list too.", False),
        ("Folly Cove Rowing and Kestrel e-bikes are both handled there.", True),
    ],
)
def test_an_answer_that_rules_a_thing_out_in_other_words_does_not_affirm_it(analyzer, response, contradicted):
    """ "a separate club" and "off the list" were read as affirming what the claims deny."""
    r = analyzer.analyze(
        AIResponse(
            query_id="q",
            domain="tern.example",
            query="What does Tern Watersports cover?",
            response=response,
            brand_names=["Tern Watersports"],
            claims=[
                {"id": "club", "text": "Tern Watersports is not connected to Folly Cove Rowing"},
                {"id": "bikes", "text": "Tern Watersports does not repair Kestrel e-bikes"},
            ],
        ),
        [
            StoredPage(
                url="https://tern.example/about",
                title="About Tern Watersports",
                text="Tern Watersports is not connected to Folly Cove Rowing. We do not repair Kestrel e-bikes.",
            )
        ],
    )
    assert ("contradicted" in verdicts(r).values()) == contradicted, verdicts(r)


@pytest.mark.parametrize(
    ("claim", "answer", "verdict"),
    [
        # the denying clause is the claim's own, whole or in part
        (
            "Time at a pruning workshop counts towards volunteer hours.",
            "Workshop time doesn't count towards your volunteer hours.",
            "contradicted",
        ),
        (
            "Tashkent is the most populous city in Central Asia, with a population of more than 3.1 million.",
            "Tashkent is not the most populous city in Central Asia, with a population of more than 3.1 million people.",
            "contradicted",
        ),
        # a denial of something else beside the claim restated
        (
            "Members must be 18 or over.",
            "Your son can join the classes, but not as a member (members must be 18+).",
            None,
        ),
        (
            "No-shows are charged the full price.",
            "Late cancellations are charged half, and if you do not show up at all, you pay the full price.",
            "found",
        ),
    ],
)
def test_an_answer_denies_a_claim_only_in_a_clause_about_it(claim: str, answer: str, verdict: str | None):
    """On answers about sites nobody tuned for, "negated in the response" was right 4 times in
    39: the answer restated the claim beside a denial of another thing ("can't be members since
    membership is 18+"). A denial contradicts a claim only in a clause that states two or more
    of its words and is mostly the claim's; an encyclopedia sentence with "not" inserted still is.
    (None: anything but contradicted.)"""
    got = judged(claim, answer).verdict
    assert got == verdict if verdict else got != "contradicted"


@pytest.mark.parametrize(
    ("claim", "answer", "contradicted"),
    [
        (
            "Spokesend cannot carry anything over 60 kg.",
            "Spokesend takes items up to 60 kg on its cargo bikes.",
            False,
        ),
        (
            "Rooted Touch does not travel more than 25 miles.",
            "Rooted Touch stays within 25 miles of downtown.",
            False,
        ),
        (
            "Spokesend cannot carry anything over 60 kg.",
            "Spokesend carries anything over 60 kg on its cargo bikes.",
            True,
        ),
    ],
)
def test_a_limit_not_passed_is_the_limit_stated(claim: str, answer: str, contradicted: bool):
    """ "cannot carry anything over 60 kg" and "takes items up to 60 kg" say the same; the
    affirmation the polarity check saw in the answer was the limit, not going past it."""
    assert (judged(claim, answer).verdict == "contradicted") is contradicted


def test_the_askers_own_value_is_no_statement_of_the_site():
    """ "If I cancel 10 days before?" answered "At 10 days before the start you're inside the
    14-day window": the 10 days are the asker's, not a cancellation period the answer gives the
    site. The same value not asked about is the answer's own, and wrong."""
    pages = [
        StoredPage(
            url="https://sail.example/courses",
            title="Courses | Pelican Point Sailing",
            text="Cancellations\nCancel at least 14 days before the start for a full refund.\n"
            "Later cancellations are not refunded, but places can be transferred.",
        )
    ]

    asked = "If I cancel my course 10 days before, do I get my money back?"
    assert (
        _flags_on(pages, asked, "At 10 days before the start you are inside the 14-day window, so no refund.")
        == []
    )
    general = "Can I get a refund if I cancel my course?"
    assert _flags_on(pages, general, "You can cancel up to 10 days before the start for a full refund.") == [
        "10 days (response) vs 14 days (page)"
    ]


def test_what_a_text_denies_but_for_an_exception_it_states_for_the_exception():
    """ "isn't open to the public apart from two Open Days: the first Sunday of June ..." states
    when it is open, as "only open on" would; "open every day except Monday" denies nothing of the
    kind, and a plain denial still denies."""
    answer = (
        "The sanctuary isn't open to the public apart from two Open Days: the first Sunday of June "
        "and the first Sunday of October."
    )
    assert (
        judged("Open Days are the first Sunday of June and the first Sunday of October", answer).verdict
        == "found"
    )
    assert not opposite_polarity("Open Days are on the first Sunday of June", answer)
    assert opposite_polarity("The sanctuary is open to the public", "The sanctuary isn't open to the public.")
    assert all(said is not None for _, said in polar_parts("Open every day except Monday"))
    assert all(said is None for _, said in polar_parts(answer))


def test_a_window_giving_other_days_than_all_the_claim_s_does_not_state_it():
    """ "first Saturday of June" is no statement of "the first Sunday of June" (nor a
    contradiction: another day may be another thing's); a day closed, or a day of the claim's
    among others, is read as before."""
    claim = "Open Days are the first Sunday of June and the first Sunday of October"
    other = "- Open only on two Open Days\n- Dates: first Saturday of June and first Saturday of October"
    assert judged(claim, other).verdict == "missing"
    assert judged(claim, other.replace("Saturday", "Sunday")).verdict == "found"
    sunday = days_said("open on the first Sunday of June")
    assert days_elsewhere(sunday, days_bound("first Saturday of June", []))
    assert not days_elsewhere(sunday, days_bound("first Saturday and first Sunday of June", []))
    assert not days_elsewhere(days_said("open on Sundays"), days_bound("closed on Saturdays", []))
    assert not days_elsewhere(sunday, days_bound("every Saturday", []))  # weekly against monthly
    # "weekday afternoons" is said loosely: "weekday afternoons and Saturday mornings" is no other days
    weekdays = days_said("home visits on weekday afternoons")
    assert not days_elsewhere(weekdays, days_bound("When: weekday afternoons and Saturday mornings", []))
