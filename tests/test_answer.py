"""The offline answerer (each kind of question on small examples), the loop's stop rule and
feedback read as constraints. The example sentences are from Wikipedia via HotpotQA (CC BY-SA)."""

import pytest

from modules.research.answer import Evidence, answer, read_question, rejected_answers
from modules.research.feedback import constraints_for
from modules.research.loop import Limits
from modules.research.memory import Memory
from modules.research.schema import Fact
from tests.test_research import GOLD, QUESTION, researcher

W = "https://en.wikipedia.org/wiki/"


def ev(title: str, text: str) -> Evidence:
    return Evidence(text, W + title.replace(" ", "_"), title)


DERRICKSON = ev(
    "Scott Derrickson",
    "Scott Derrickson (born July 16, 1966) is an American director, screenwriter and producer.",
)
WOOD = ev(
    "Ed Wood",
    "Edward Davis Wood Jr. (October 10, 1924 – December 10, 1978) was an American filmmaker, actor, writer, producer, and director.",
)
WOOD_FILM = ev(
    "Ed Wood (film)",
    "Ed Wood is a 1994 American biographical period comedy-drama film directed and produced by Tim Burton.",
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        (QUESTION, "yes_no"),
        ("Who is older, Annie Morton or Terry Richardson?", "choice"),
        ("who is younger Keith Bostic or Jerry Glanville ?", "choice"),
        ("Virginia Commonwealth University was founded in what year?", "year"),
        ("The arena can seat how many people?", "number"),
        ("Where is the company that Sachin Warrier worked for headquartered?", "place"),
        ("Who was known by his stage name Aladin?", "person"),
        ('When was Poison\'s album "Shut Up, Make Love" released?', "date"),
        ("D1NZ is a series based on what oversteering technique?", "entity"),
    ],
)
def test_the_question_says_what_it_asks(question, kind):
    assert read_question(question).kind == kind


def test_same_attribute_yes_and_no_each_with_both_sources():
    found = answer(QUESTION, [WOOD_FILM, DERRICKSON, WOOD])
    assert found.text == "yes" and found.settled
    assert {f.url for f in found.support} == GOLD  # the man's page, not the 1994 film's
    laleli = ev(
        "Laleli Mosque",
        "The Laleli Mosque is an 18th-century Ottoman imperial mosque located in Laleli, Fatih, Istanbul, Turkey.",
    )
    esma = ev(
        "Esma Sultan Mansion",
        "The Esma Sultan Mansion, a historical yalı located at Bosphorus in Ortaköy neighborhood of Istanbul, Turkey, is used today as a cultural center.",
    )
    found = answer(
        "Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?", [laleli, esma]
    )
    assert found.text == "no" and len(found.support) == 2


def test_both_questions_check_each_thing_and_its_nationality():
    freak = ev(
        "Freakonomics (film)",
        "Freakonomics: The Movie is a 2010 American documentary film based on the 2005 book.",
    )
    realm = ev(
        "In the Realm of the Hackers",
        "In The Realm of the Hackers is a 2003 Australian documentary directed by Kevin Anderson.",
    )
    q = "Are Freakonomics and In the Realm of the Hackers both American documentaries?"
    assert answer(q, [freak, realm]).text == "no"
    local_h = ev(
        "Local H", "Local H is an American rock band originally formed by guitarist and vocalist Scott Lucas."
    )
    for_against = ev(
        "For Against",
        "For Against is an American post-punk/dream pop band from Lincoln, Nebraska, United States.",
    )
    assert (
        answer("Are Local H and For Against both from the United States?", [local_h, for_against]).text
        == "yes"
    )


def test_a_missing_part_is_named_and_becomes_the_next_search():
    found = answer(QUESTION, [DERRICKSON])
    assert not found.complete and not found.text
    assert found.missing == ["Ed Wood"] and found.targets == ["Ed Wood"]


def test_which_of_two_by_dates_by_count_and_by_attribute():
    morton = ev(
        "Annie Morton", "Annie Morton (born October 8, 1970) is an American model born in Pennsylvania."
    )
    richardson = ev(
        "Terry Richardson",
        "Terrence Richardson (born August 14, 1965) is an American fashion and portrait photographer.",
    )
    assert (
        answer("Who is older, Annie Morton or Terry Richardson?", [morton, richardson]).text
        == "Terry Richardson"
    )
    assert (
        answer("Who is younger, Annie Morton or Terry Richardson?", [morton, richardson]).text
        == "Annie Morton"
    )
    cleo = ev(
        "Letters to Cleo",
        "The band's members are Kay Hanley, Greg McKenna, Michael Eisenstein, Stacy Jones, Scott Riebling, and later, Tom Polce.",
    )
    trees = ev(
        "Screaming Trees",
        "Screaming Trees was an American rock band formed in Ellensburg, Washington in 1985 by vocalist Mark Lanegan, guitarist Gary Lee Conner, bass player Van Conner and drummer Mark Pickerel.",
    )
    assert (
        answer("Which band, Letters to Cleo or Screaming Trees, had more members?", [cleo, trees]).text
        == "Letters to Cleo"
    )
    roth = ev(
        "Henry Roth",
        "Henry Roth (February 8, 1906 – October 13, 1995) was an American novelist and short story writer.",
    )
    childers = ev(
        "Robert Erskine Childers",
        "Robert Erskine Childers DSC (25 June 1870 – 24 November 1922) was a British writer.",
    )
    q = "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    assert answer(q, [roth, childers]).text == "Robert Erskine Childers"


def test_bridge_answers_of_each_type_come_from_a_cited_fact():
    vcu = ev(
        "Virginia Commonwealth University",
        "Virginia Commonwealth University (VCU) is a public research university located in Richmond, Virginia. VCU was founded in 1838 as the medical department of Hampden–Sydney College.",
    )
    rams = ev(
        "2011–12 VCU Rams men's basketball team",
        "The 2011–12 VCU Rams men's basketball team represented Virginia Commonwealth University during the 2011–12 NCAA Division I men's basketball season.",
    )
    q = "The 2011–12 VCU Rams men's basketball team represented Virginia Commonwealth University which was founded in what year?"
    found = answer(q, [rams, vcu])
    assert found.text == "1838" and found.support == [vcu]
    colisee = ev(
        "The Colisée",
        "The Colisée, formerly the Androscoggin Bank Colisée, is a 4,000 capacity (3,677 seated) multi-purpose arena in Lewiston, Maine.",
    )
    q = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"
    assert answer(q, [colisee]).text == "3,677"
    tcs = ev(
        "Tata Consultancy Services",
        "Tata Consultancy Services Limited (TCS) is an Indian multinational information technology company headquartered in Mumbai, Maharashtra.",
    )
    warrier = ev(
        "Sachin Warrier",
        "Sachin Warrier is a playback singer and composer. He was working as a software engineer in Tata Consultancy Services in Kochi.",
    )
    q = "Where is the company that Sachin Warrier worked for as a software engineer headquartered?"
    assert answer(q, [warrier, tcs]).text == "Mumbai"
    fateh = ev(
        "Eenasul Fateh",
        "Eenasul Fateh (born 3 April 1959), also known by his stage name Aladin, is a Bangladeshi-British cultural practitioner, magician and former international management consultant.",
    )
    q = "Who was known by his stage name Aladin and helped organizations improve their performance as a consultant?"
    assert answer(q, [fateh]).text == "Eenasul Fateh"
    egeberg = ev(
        "Richard Nixon",
        "Richard Milhous Nixon was the 37th President of the United States from 1969 until 1974.",
    )
    q = "Roger O. Egeberg was Assistant Secretary during the administration of a president that served during what years?"
    assert answer(q, [egeberg]).text == "from 1969 until 1974"


def test_no_answer_without_a_supporting_fact():
    found = answer("Where is the company that Sachin Warrier worked for headquartered?", [])
    assert not found.text and not found.support and found.missing
    unrelated = ev("Tyler Bates", "Tyler Bates is a musician.")
    assert not answer("In what year was the university founded?", [unrelated]).complete


def test_a_rejected_answer_is_never_given_again():
    warrier = ev("Sachin Warrier", "He was working as a software engineer in Kochi, and later in Mumbai.")
    q = "In what city did Sachin Warrier work as a software engineer?"
    first = answer(q, [warrier]).text
    assert first in {"Kochi", "Mumbai"}
    constraints = constraints_for([], "reject", "Wrong city.", f"{first}. He was working ... [1]", first)
    assert rejected_answers(constraints) == {first.lower()}
    again = answer(q, [warrier], excluded=rejected_answers(constraints))
    assert again.text and again.text != first


# ----- the loop -----------------------------------------------------------------------------
def test_the_loop_stops_once_both_parts_of_the_comparison_are_supported(sample_search, embedder):
    result = researcher(sample_search, embedder, limits=Limits(max_steps=8)).run(QUESTION)
    searches = [s.query_or_url for s in result.steps if s.node == "tool"]
    assert searches == [QUESTION]  # both pages are read by the first search: no "Ed Wood Sr", no "Glenda"
    assert result.stop_reason == "decision" and result.status == "answered"
    assert result.report.short_answer == "yes" and result.report.answer_type == "yes_no"
    assert result.report.answer.startswith("Yes.") and set(result.report.key_sources) == GOLD
    assert "[1]" in result.report.answer and "[2]" in result.report.answer


def test_the_decision_searches_only_what_is_still_open(embedder):
    from modules.research.baseline import BaselineDecision, Thread

    thread = Thread(question=QUESTION, engines=["local"], step=2, queries=[QUESTION])
    thread.query_vectors = list(embedder.encode(thread.queries))
    thread.titles = {DERRICKSON.url: DERRICKSON.title}
    memory = Memory(
        embedder,
        [
            Fact(
                fact_id="a",
                text=DERRICKSON.text,
                quote=DERRICKSON.text,
                source_url=DERRICKSON.url,
                step=1,
                confidence=0.9,
            )
        ],
    )
    decision = BaselineDecision(embedder)(thread, memory)
    assert decision.next_action == "search_local" and decision.query_or_url == "Ed Wood"
    memory.add([(WOOD.text, WOOD.url, 0.9)], 2)
    thread.titles[WOOD.url] = WOOD.title
    assert BaselineDecision(embedder)(thread, memory).next_action == "send_to_hitl"


@pytest.mark.parametrize("verdict", ["add", "reject"])
def test_feedback_is_a_constraint_never_a_search_or_an_open_term(sample_search, embedder, verdict):
    feedback = "Compare the two people's nationality, not the film's; say it plainly"
    constraints = constraints_for([], verdict, feedback, "Yes. ... [1]", "yes" if verdict == "reject" else "")
    result = researcher(sample_search, embedder, limits=Limits(max_steps=4)).run(
        QUESTION, constraints=constraints
    )
    from modules.text import content_terms

    feedback_only = content_terms(feedback) - content_terms(QUESTION)
    for step in result.steps:
        if step.node == "tool" and step.action.startswith("search_"):
            assert not content_terms(step.query_or_url) & feedback_only, step.query_or_url
        if step.node == "analyzer" and "still open" in step.reasoning:
            assert not content_terms(step.reasoning.split("still open: ", 1)[1]) & feedback_only
    _, _, missing = result.report.answer.partition("Not established:")
    assert not content_terms(missing) & feedback_only
    assert result.constraints == constraints
    if verdict == "reject":  # "yes" was rejected: the answerer does not give it again
        assert result.report.short_answer != "yes"


def test_a_rejected_answer_the_facts_still_give_is_checked_then_handed_over(sample_search, embedder):
    """Rejecting "yes" where both men's pages say "American": each one's nationality is searched
    once more, then a person judges; no lead taken from the facts ("Ed Wood Sr", "Glenda")."""
    constraints = constraints_for([], "reject", "Ed Wood was not American", "Yes. ... [1]", "yes")
    result = researcher(sample_search, embedder, limits=Limits(max_steps=8)).run(
        QUESTION, constraints=constraints
    )
    searches = [s.query_or_url for s in result.steps if s.node == "tool"]
    assert searches == [QUESTION, "Scott Derrickson nationality", "Ed Wood nationality"]
    assert result.stop_reason == "decision" and result.report.short_answer == ""
    assert "rejected answer" in [s for s in result.steps if s.node == "decision"][-1].reasoning
    assert result.report.answer.startswith('The sources read still say "yes", which a reviewer rejected')
    assert set(result.report.key_sources) == GOLD


def test_which_of_two_is_older_reads_whole_dates_not_only_years():
    spring = ev("Ann Lee", "Ann Lee (born March 3, 1970) is an American painter.")
    autumn = ev("Bo Kim", "Bo Kim (born October 8, 1970) is an American sculptor.")
    assert answer("Who is older, Ann Lee or Bo Kim?", [autumn, spring]).text == "Ann Lee"
    assert answer("Who is younger, Ann Lee or Bo Kim?", [autumn, spring]).text == "Bo Kim"


def test_a_bridge_answer_settles_only_past_the_bridge():
    """A candidate on the first hop's page (or on a page off the question's path) is reported but
    does not end the research: the page about the bridge entity must be read first."""
    q = "Where is the company that Sachin Warrier worked for as a software engineer headquartered?"
    warrier = ev(
        "Sachin Warrier",
        "Sachin Warrier is a playback singer and composer. He was working as a software engineer in Tata Consultancy Services in Kochi.",
    )
    tcs = ev(
        "Tata Consultancy Services",
        "Tata Consultancy Services Limited (TCS) is an Indian multinational information technology company headquartered in Mumbai, Maharashtra.",
    )
    first = answer(q, [warrier])
    assert first.text != "Tata Consultancy Services"  # an organisation is no place
    assert not first.settled and not first.bridged
    second = answer(q, [warrier, tcs])
    assert (second.text, second.support, second.settled) == ("Mumbai", [tcs], True)
    q = "The 2011–12 VCU Rams men's basketball team represented Virginia Commonwealth University which was founded in what year?"
    rams = ev(
        "2011–12 VCU Rams men's basketball team",
        "The 2011–12 VCU Rams men's basketball team represented Virginia Commonwealth University during the 2011–12 NCAA Division I men's basketball season.",
    )
    later = ev(  # a distractor: the next season's page, named by neither the question nor its pages
        "2012–13 VCU Rams men's basketball team",
        "The 2012–13 VCU Rams men's basketball team represented Virginia Commonwealth University during the 2012–13 NCAA Division I men's basketball season.",
    )
    assert not answer(q, [rams, later]).settled
    vcu = ev(
        "Virginia Commonwealth University",
        "Virginia Commonwealth University (VCU) is a public research university located in Richmond, Virginia. VCU was founded in 1838 as the medical department of Hampden–Sydney College.",
    )
    found = answer(q, [rams, later, vcu])
    assert (found.text, found.support, found.settled) == ("1838", [vcu], True)


def test_candidates_keep_the_asked_type():
    """A place is no organisation and holds no number; two people joined by "and" are two names;
    with the question's own page read, a distractor's candidate is taken only when the path has none."""
    school = ev(
        "Westminster School, Adelaide",
        "Westminster School is an independent, Early Learning to Year 12, day and boarding school located at Marion, South Australia.",
    )
    assert answer("In which Australian city is the boarding school located?", [school]).text == "Marion"
    boots = ev(
        "These Boots Are Made for Walkin'",
        "The song was recorded by Frank Sinatra and Nancy Sinatra in 1966.",
    )
    found = answer("Who recorded These Boots Are Made for Walkin' with Frank Sinatra?", [boots])
    assert found.text == "Nancy Sinatra"
    warrier = ev("Sachin Warrier", "Sachin Warrier worked as a software engineer in Kochi.")
    other = ev(
        "Infosys",
        "Infosys is a company whose software engineers work in Bangalore, headquartered in Bangalore.",
    )
    q = "Where did Sachin Warrier work as a software engineer?"
    assert answer(q, [other, warrier]).text == "Kochi"  # Infosys is off the question's path


def test_a_question_naming_both_pages_has_no_bridge_to_cross():
    q = "Hayden is a singer-songwriter from Canada, but where does Buck-Tick hail from?"
    hayden = ev("Hayden (musician)", "Hayden is a Canadian singer-songwriter from Thornhill, Ontario.")
    buck = ev("Buck-Tick", "Buck-Tick is a Japanese rock band, formed in Fujioka, Gunma in 1983.")
    found = answer(q, [hayden, buck])
    assert found.complete and found.bridged
