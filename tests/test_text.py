import pytest
from hypothesis import given
from hypothesis import strategies as st

from modules.text import (
    Span,
    chunk,
    comparison_order,
    numbers,
    split_clauses,
    split_long,
    split_sentences,
    stem,
)

texts = st.lists(
    st.sampled_from(list("ab cd.!?\n,;:'\"e.g") + ["Dr. ", " and ", "\n\n", "8,848.86"]), max_size=120
).map("".join)


@given(texts, st.sampled_from(["none", "sentences", "paragraphs"]), st.integers(20, 200))
def test_chunks_point_into_the_text(text, strategy, max_chars):
    for span in chunk(text, strategy, max_chars):
        assert 0 <= span.start < span.end <= len(text)
        assert text[span.start : span.end] == span.text
        assert len(span.text) <= max_chars


@given(texts)
def test_clauses_point_into_the_text(text):
    for sentence in split_sentences(text):
        for clause in split_clauses(sentence):
            assert text[clause.start : clause.end] == clause.text


def test_sentences_respect_abbreviations_and_decimals():
    text = "Dr. Smith measured 8,848.86 m. It was e.g. windy! Then?\nNew line"
    assert [s.text for s in split_sentences(text)] == [
        "Dr. Smith measured 8,848.86 m.",
        "It was e.g. windy!",
        "Then?",
        "New line",
    ]


@pytest.mark.parametrize(
    "text, sentences",
    [
        (
            "The film was directed by Scott Derrickson, who wrote it with Jon Spaihts and C. Robert Cargill. "
            "It stars Benedict Cumberbatch.",
            2,
        ),
        ("J. R. R. Tolkien wrote it. Then he left.", 2),
        ("George W. Bush was president. He left.", 2),
        ("Take vitamin C. The body needs it.", 2),  # a letter naming a thing ends a sentence
        ("We chose plan B. Nimbus offers more.", 2),
        ("Grade A. Very good.", 2),
    ],
)
def test_a_name_initial_does_not_end_a_sentence(text, sentences):
    spans = split_sentences(text)
    assert len(spans) == sentences and spans[0].text.endswith((".", "!", "?")), [s.text for s in spans]
    assert "C. Robert" not in text or spans[0].text.endswith("C. Robert Cargill.")


@pytest.mark.parametrize(
    "text, sentences",
    [
        ("It was orchestrated by financier J. P. Morgan. Then it grew.", 2),  # initials after a word
        ("It existed from c. 1046 BC until 256 BC. It ended.", 2),  # circa
        ("It is owned by Britannica, Inc. The 2010 version was the last.", 2),  # a suffix ends it
        ("Acme Inc. sells tools.", 1),
        ("He became the supreme leader.The ousting ended it.", 2),  # no space after the full stop
        ("See example.com today. Version 2.Next is out.", 2),
    ],
)
def test_sentence_ends_around_initials_circa_and_company_suffixes(text, sentences):
    spans = split_sentences(text)
    assert len(spans) == sentences, [s.text for s in spans]
    assert "".join(s.text for s in spans).replace(" ", "") == text.replace(" ", "")


def test_long_spans_split_at_whitespace():
    span = Span(5, 5 + 50, "word " * 10)
    pieces = split_long(span, 12)
    assert all(len(p.text) <= 12 and not p.text.startswith(" ") for p in pieces)


def test_numbers_normalised():
    assert numbers("costs $1,200.50 or 8,848 m.") == {"1200.50", "8848"}


negation_texts = st.lists(
    st.sampled_from(
        [
            "not",
            "No",
            "NOR",
            "cannot",
            "without",
            "n't",
            "N'T",
            "n’t",
            "knot",
            "note",
            "nobody",
            "_no",
            "no_",
            "é",
            "ı",
            "ſ",
            " ",
            ".",
            "'",
            "-",
            "x",
            "1",
            "\n",
            "nothing",
            "None",
        ]
    ),
    max_size=12,
).map("".join)


@given(negation_texts)
def test_has_negation_is_its_pattern(text):
    # the ASCII fast path (a set lookup of the words) finds exactly what the pattern finds
    from modules.text import _NEGATION, has_negation

    assert has_negation(text) == (_NEGATION.search(text) is not None)


@pytest.mark.parametrize(
    "word, stemmed",
    [("mobile's", "mobile"), ("customers'", "customer"), ("boss", "boss"), ("it's", "it"), ("plans", "plan")],
)
def test_a_possessive_stems_to_its_name(word, stemmed):
    """A question's "Tallow Mobile's plan" names what an answer's "Tallow Mobile" does."""
    assert stem(word) == stemmed


@pytest.mark.parametrize(
    "question, order",
    [
        ("Which toy came first, Barbie or the Rubik's Cube?", "older"),
        ("Which was finished earlier, the Channel Tunnel or the Akashi Kaikyo Bridge?", "older"),
        ("Which band formed more recently, Blur or Oasis?", "younger"),  # "more recent" is time, not amount
        ("Which city has the larger population, Gdansk or Liverpool?", "more"),
        ("Which river is shorter, the Amur or the Yamuna?", "fewer"),
        ("Were Scott Derrickson and Ed Wood of the same nationality?", ""),
    ],
)
def test_the_words_that_order_a_comparison(question, order):
    assert comparison_order(question) == order
