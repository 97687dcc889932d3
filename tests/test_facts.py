"""Typed values and their comparison: the checks an embedding cannot make (a changed price,
size, date or count), and the paraphrases it should not be fooled by ("$6/mo" = "6 dollars a month")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.response.facts import compare_values, values

#: claim -> texts about it, each with the verdict a reader would give
READINGS = {
    "The Plus plan costs $6 per month": [
        ("Nimbus Notes Plus costs $6 per month when billed annually", "agree"),
        ("Plus is 6 dollars a month", "agree"),
        ("Plus costs $72 a year", "agree"),
        ("Plus is $9.99 per month", "conflict"),
    ],
    "Plus includes 100 GB of storage": [
        ("and comes with 100GB of storage", "agree"),
        ("includes 1 TB of storage", "conflict"),
    ],
    "Pro includes 1 TB": [("Pro includes 1,024 GB", "agree")],
    "Sync works on 3 devices": [
        ("you can sync up to three of your devices", "agree"),
        ("sync on 5 devices", "conflict"),
    ],
    "Mount Everest is 8,849 metres tall": [
        ("Mount Everest is 9,100 metres tall", "conflict"),
        ("Everest rises 29,032 ft", "agree"),
    ],
    "It was founded in 2021": [("Founded on March 5, 2021", "agree"), ("It was founded in 2019", "conflict")],
    "A 15% discount applies": [("a 15 percent discount", "agree")],
    "Plus is billed annually": [("billing is yearly", "agree")],  # no values: nothing to disagree on
    "The Team plan costs $12 per user": [("Team is affordable", "absent")],
    "Starter costs $10 per month and pro costs $30 per month": [
        ("Starter is $10 a month.", "absent"),  # half said
        ("Starter is $10 and pro $45 a month.", "conflict"),
    ],
    # a period written before or after the price; another period is another fact, not a rival
    "Plus costs $59.99 per year": [("Annual: **$59.99**", "agree"), ("Monthly: **$7.99**", "absent")],
    "Plus costs $60 per year": [("or $66 if you pay yearly", "conflict")],
    # nothing is nothing in any currency; "free" agrees with $0 and rivals no price
    "The Free plan costs $0": [("the Sandbox plan is free and permanent", "agree")],
    "There is no application fee": [("it costs nothing to apply", "agree")],
    "Children under 12 go free": [("An adult ticket is £145", "absent")],
    "Scale covers up to $2 million": [("Premier $1M", "conflict")],  # a cap is an amount; "$1M" a million
    "It fully charges in 70 minutes": [("to 100% in about an hour and ten minutes", "agree")],
    "It opens from 10:00 to 17:00": [("between 10 in the morning and 5 in the afternoon", "agree")],
    # a number that completes a name ("Band 2") names a variant: another number there is another
    # variant, unless the rest of the claim is stated alike
    "A Band 2 permit costs £95 for 12 months": [
        ("| Band 3 | Over 170 g/km | £160 |", "other"),
        ("Band 3 cars cost £160", "other"),
        ("Band 2 costs £95 for 12 months", "agree"),
        ("Band 2 costs £120 a year", "conflict"),
        ("Band 3 costs £95 for 12 months", "conflict"),
    ],
    "Installation is free when you order Fibre 900 online": [
        ("It's free when you order Fibre 500 online", "conflict"),
        ("Fibre 500 costs £60 to install", "other"),
    ],
    "Roaming is included in Zone 1": [("Roaming is included in Zone 2", "conflict")],
    # every value otherwise, one of them a size or a count: the price of another variant; a date
    # and a fee both otherwise are two misstatements
    "A 60-minute lesson costs £40 at the studio": [
        ("A 30-minute lesson is £22 at the studio", "other"),
        ("A 60-minute lesson is £45 at the studio", "conflict"),
    ],
    "The Lighthouse Keeper costs €92 for a team of 4 players": [("from €60 for two players", "other")],
    "Names can be changed up to 1 July for a £5 fee": [("up to 1 June for a £10 fee", "conflict")],
    # what a price is charged for: another thing is another price; the people it is charged to
    # go by many names
    "Delivery costs £3.99 per box": [
        ("Boxes cost £4.95 per serving", "absent"),
        ("Delivery is £4.99 a box", "conflict"),
    ],
    "Cover goes up to $10,000 per person": [
        ("up to $10,000 per traveller", "agree"),
        ("$5,000 per traveller", "conflict"),
    ],
    "Children 5 and under ski free": [("Children 6 and under ski free", "conflict")],
    "The show is Salt & Steam: Herring Fleets 1850-1950": [
        ("running until 2 November 2025", "agree")  # a title's years: no values
    ],
}


@pytest.mark.parametrize(
    "claim, text, verdict",
    [(claim, text, verdict) for claim, texts in READINGS.items() for text, verdict in texts],
)
def test_values_compare_as_a_reader_would(claim, text, verdict):
    assert compare_values(claim, text)[0] == verdict


@pytest.mark.parametrize(
    "text, names",
    [
        ("| Band 2 | 101–170 g/km | £95 |", ["band", "", "", ""]),
        ("Get Fibre 500 online", ["fibre"]),
        ("roaming in Zone 1 and Zone 2", ["zone", "zone"]),
        ("Children 5 and under, ages 6-12", ["", "", ""]),
        ("Only 3 left, open Friday 7 to 9, over 170 g/km", ["", "", "", ""]),
    ],
)
def test_a_number_after_a_capitalised_word_completes_its_name(text, names):
    assert [v.names for v in values(text)] == names


def test_values_are_typed_and_placed():
    text = "Plus is $9.99/mo with 1 TB, since March 5, 2021, for 3 users and 1.2 million notes"
    found = [(v.kind, v.text) for v in values(text)]
    assert found == [
        ("money", "$9.99/mo"),
        ("quantity", "1 TB"),
        ("date", "March 5, 2021"),
        ("quantity", "3 users"),
        ("number", "1.2 million"),
    ]
    assert all(v.kind != "quantity" for v in values("the 1990s, the 2nd edition, 5 in a row"))


@pytest.mark.parametrize(
    "text, found",
    [
        ("It costs R2,600.", [("ZAR", 2600.0)]),  # a rand price, not the plain number 600
        ("A R50 handling fee per tyre", [("ZAR", 50.0)]),
        ("The walk costs 790 CZK per adult", [("CZK", 790.0)]),
        ("Beanbag: DKK 290 per beanbag", [("DKK", 290.0)]),
        ("CHF 2,900 including all tonewoods", [("CHF", 2900.0)]),
        ("NZ$160 per block, or NZD 160", [("USD", 160.0), ("USD", 160.0)]),  # dollars are dollars
        ("You can transfer your place for free.", [("any", 0.0)]),  # "free" before a full stop
        ("Model A2,600 and the R2-D2 droid", []),  # a model's number, no price and no 600
    ],
)
def test_prices_are_read_in_the_currencies_sites_use(text, found):
    """Prices in rand, koruna, kroner or francs were read as plain numbers ("R2,600" as 600), so
    "R2,600" never rivalled "Mega Fizz costs R3,400" and "CHF 50" rivalled any number 60."""
    assert [(v.unit, v.amount) for v in values(text)] == found


def test_an_area_is_one_quantity_in_any_of_its_units():
    found = [(v.unit, round(v.amount / 1e6)) for v in values("16,400 km2 (6,300 sq mi), 4,000 hectares")]
    assert found == [("square metres", 16400), ("square metres", 16317), ("square metres", 40)]
    assert [v.text for v in values("a 1,234 km² park of 476 square miles")] == [
        "1,234 km²",
        "476 square miles",
    ]
    assert values("GPT4 and Llama3") == []  # a model's number is still no value


def test_a_word_number_in_a_compound_adjective_counts_nothing():
    """ "one-way rentals" states no count, so "two branches" does not contradict "£110 for one-way
    rentals"; a unit after the hyphen is still a quantity."""
    assert [v.text for v in values("Lindqvist charges £110 for one-way rentals")] == ["£110"]
    assert values("two-factor sign-in and a one-off setup") == []
    assert [v.kind for v in values("a three-year warranty")] == ["quantity"]
    assert values("one of two plans")


@pytest.mark.parametrize(
    "text, minutes",
    [
        ("**Day:** 9-4 on weekdays", [540, 960]),
        ("Weekdays 8:30-4", [510, 960]),
        ("Night skiing: 4-9 p.m., Thursday through Sunday", [960, 1260]),
        ("most branches open 10-4 on Sundays", [600, 960]),
        ("Sat, Sun & holidays: 8:30 a.m. - 4:00 p.m.", [510, 960]),
        ("Mon & Wed 4.30–6pm", [990, 1080]),  # minutes after a dot, the p.m. written once
        ("Saturday afternoons, 1.30pm to 3pm", [810, 900]),
    ],
)
def test_a_range_of_opening_hours_is_two_times(text, minutes):
    """ "9-4 on weekdays" was two plain numbers, and its 4 a rival of any number on the pages
    ("December 19"); as times it agrees with "9:00 a.m. to 4:00 p.m." and differs from 9-5."""
    assert [(v.kind, v.amount) for v in values(text)] == [("time", m) for m in minutes]
    assert compare_values("Open 9:00 a.m. to 4:00 p.m. on weekdays", "Open 9-4 on weekdays")[0] == "agree"
    assert compare_values("Open 9:00 a.m. to 4:00 p.m. on weekdays", "Open 9-5 on weekdays")[0] == "conflict"


def test_a_time_with_its_minutes_after_a_dot_is_a_time():
    """ "4.30pm" was the number 4 (and "4.30" in "4.30–6pm" the number 4.3), so an answer that
    wrote the same hours otherwise was flagged "4.30 vs 4"."""
    assert [(v.kind, v.amount) for v in values("last booking slot starts at 5.30pm")] == [("time", 1050.0)]
    assert compare_values("Mondays and Wednesdays, 4.30pm to 6pm.", "Mon & Wed 4.30–6pm")[0] == "agree"
    assert compare_values("Mondays and Wednesdays, 4.30pm to 6pm.", "Mon & Wed 5.30–6pm")[0] == "conflict"
    assert [v.kind for v in values("costs 1.50-2.00 per kg")] == ["number", "number"]


@pytest.mark.parametrize(
    "text", ["3-5 days", "ages 19-64", "the final score was 3-2 on Sunday", "version 1.2-3"]
)
def test_a_range_that_is_not_of_hours_stays_numbers(text):
    assert all(v.kind != "time" for v in values(text))


def test_the_word_one_is_no_rival_of_a_count():
    """ "One credit buys an hour" says what a credit is, not how many there are: it was read as
    a count against the answer's "4 credits" (and "postpone one time" against "between 30 and 8 days")."""
    assert (
        compare_values("One credit buys an hour in a meeting room", "Hot Desk members get 4 credits")[0]
        != "conflict"
    )
    assert (
        compare_values(
            "You can postpone the course one time", "Between 30 and 8 days before, you can postpone"
        )[0]
        != "conflict"
    )
    assert compare_values("It seats two people", "It seats three people")[0] == "conflict"


def test_tens_and_units_written_out_are_one_number():
    assert [(v.text, v.amount) for v in values("twenty-five seats and thirty one rooms")] == [
        ("twenty-five seats", 25.0),
        ("thirty one", 31.0),
    ]
    assert compare_values("It seats 25 people", "It seats twenty-five people")[0] == "agree"
    assert [v.amount for v in values("twenty five-year-olds")][0] == 20.0  # twenty children of five
    assert compare_values("£110 for one-way rentals", "Between two branches: £110")[0] == "agree"


_TEMPLATES = [
    "Plan {name} costs ${n} per month",
    "{name} stores {n} GB",
    "{name} opened in {year}",
    "{name} supports {n} users",
    "{name} is {n} metres tall",
    "{name} grew {n}% last year",
]


@given(
    template=st.sampled_from(_TEMPLATES),
    n=st.integers(1, 5000),
    year=st.integers(1600, 2090),
    name=st.sampled_from(["Plus", "Team", "Basic", "Everest"]),
    text_before=st.text(max_size=30),
)
def test_a_verbatim_statement_agrees_and_values_lie_inside_the_text(template, n, year, name, text_before):
    claim = template.format(n=n, year=year, name=name)
    response = f"{text_before} {claim}."
    assert compare_values(claim, response)[0] == "agree"
    for v in values(response):
        assert response[v.start : v.end] == v.text and 0 <= v.start < v.end <= len(response)


@given(
    template=st.sampled_from(_TEMPLATES),
    n=st.integers(1, 5000),
    year=st.integers(1600, 2050),
    delta=st.integers(1, 400),
    name=st.sampled_from(["Plus", "Team", "Basic", "Everest"]),
)
def test_a_changed_value_conflicts(template, n, year, delta, name):
    claim = template.format(n=n, year=year, name=name)
    changed = template.format(n=n + delta * 10, year=year + delta % 40 + 1, name=name)  # beyond any tolerance
    assert compare_values(claim, changed)[0] == "conflict"


_PIECES = st.sampled_from(
    "the plan costs is $ 6 £ 1,024 GB per month a year free of charge no fee one twelve fifteen "
    "hundred thousand hours and 10 minutes March 5, 2021 2021-03-05 at 5 p.m. in 1850 20% percent "
    "Herring Fleets 1850–1950 [3] https://ex.com/a1 BX-500 dozen someone phone none 24/7 .".split()
)


@given(st.lists(_PIECES, max_size=14).map(" ".join))
def test_skipping_patterns_that_cannot_match_changes_no_value(text):
    """values() skips the patterns a text lacks the digits or number words for; that must find
    exactly what trying every pattern finds."""
    from modules.response import facts

    gated = facts._values.__wrapped__(text)
    saved = facts._NEEDS[:]
    try:
        facts._NEEDS[:] = [None] * len(saved)
        assert facts._values.__wrapped__(text) == gated
    finally:
        facts._NEEDS[:] = saved


@pytest.mark.parametrize("text", ["Growth: $299 one-time, waived on annual contracts", "a one-time $299 fee"])
def test_a_one_time_price_is_no_rival_of_a_monthly_one(text):
    """A one-time onboarding fee was read against the plan's monthly price."""
    (fee,) = values(text)
    (monthly,) = values("Growth costs $79 per month.")
    assert (fee.text, fee.period) == ("$299", "once")
    assert not fee.same_kind(monthly)
    assert compare_values("Growth has a one-time $299 onboarding fee", text)[0] == "agree"


def test_hours_written_out_are_times_where_a_clock_is_meant():
    """ "from seven in the morning till nine at night" states "7am to 9pm"; an hour written out is
    a time only after a word that leads one in ("from", "at", "till"), so "there are two in the
    afternoon" stays a count."""
    opening = "It runs from seven in the morning till nine at night, and at 5.30 in the evening on Sundays."
    assert [(v.kind, v.amount) for v in values(opening)] == [
        ("time", 420.0),
        ("time", 1260.0),
        ("time", 1050.0),
    ]
    assert compare_values("It opens 7am to 9pm Tuesday to Friday.", opening)[0] == "agree"
    assert compare_values("It opens 8am to 9pm Tuesday to Friday.", opening)[0] == "conflict"
    assert [(v.kind, v.amount) for v in values("open until twelve at night")] == [("time", 0.0)]
    assert [v.kind for v in values("There are two in the afternoon.")] == ["number"]


def test_noon_and_midday_are_twelve_o_clock():
    """ "Sun noon-3pm" states the "12pm to 3pm" of a claim; "noon-3" is no model name."""
    assert [(v.kind, v.amount) for v in values("Sun noon-3pm.")] == [("time", 720.0), ("time", 900.0)]
    assert compare_values("The library is open on Sunday from 12pm to 3pm.", "Sun noon-3pm.")[0] == "agree"
    assert compare_values("It closes at midday on Saturdays.", "Saturday: closes 1pm")[0] == "conflict"


@pytest.mark.parametrize(
    "written, other, same",
    [
        ("Late pickup is charged once it's 6:40.", "Pickup closes at 6:40 pm.", True),
        ("Pickup is between 2:00 and 5:00 pm.", "Pickup is Fridays 2–5 pm.", True),
        ("Open 9-4 on weekdays.", "Open 9am to 4pm on weekdays.", True),
        ("Late pickup is charged once it's 06:40.", "Pickup closes at 6:40 pm.", False),  # a 24-hour clock
        ("Late pickup is charged once it's 5:40.", "Pickup closes at 6:40 pm.", False),
        (
            "Open on Saturdays until 11:00.",
            "Open on Saturdays until 23:00.",
            False,
        ),  # 23:00 is a 24-hour clock's
        (
            "Open 10:00 to 22:00 on Saturdays.",
            "Open 10pm to midnight on Saturdays.",
            False,
        ),  # so is its 10:00
    ],
)
def test_a_clock_time_without_am_or_pm_may_be_either_half_of_the_day(written, other, same):
    """ "once it's 6:40" was read as 06:40 and called a misstatement of "6:40 pm": written without
    "am" or "pm" on a 12-hour clock, it is either."""
    first = next(v for v in values(written) if v.kind == "time")
    second = next(v for v in values(other) if v.kind == "time")
    assert first.equals(second) == same and second.equals(first) == same


def test_a_duration_at_least_is_a_rival_of_a_duration():
    """ "at least 48 hours' notice" and "24 hours' notice" are rivals (a notice period is a least
    by what it is); a price threshold stays no rival of a price ("$75 or more" of a $7.95 fee)."""
    (least,) = values("Please give at least 48 hours' notice to cancel.")
    (given,) = values("Give 24 hours' notice.")
    assert least.bound and not given.bound and least.same_kind(given)
    threshold = next(v for v in values("Free delivery on orders of $75 or more.") if v.kind == "money")
    (fee,) = values("Delivery costs $7.95.")
    assert threshold.bound and not threshold.same_kind(fee)
