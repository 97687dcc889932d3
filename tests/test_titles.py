"""Title reading (issue 35): one home for a title's name, base and qualifier, on made-up titles."""

from modules.research.baseline import is_anchor
from modules.research.titles import is_qualified, plain_text, title_base, title_name, title_qualifier


def test_a_parenthesised_qualifier_is_not_part_of_the_name():
    assert title_name("Quill Harbor (1987 film)") == "quill harbor"
    assert title_name("Quill Harbor (1987 film)", case=True) == "Quill Harbor"
    assert title_name("Anna (Reyes) Vale") == "anna (reyes) vale"  # only a trailing qualifier


def test_titles_and_questions_are_read_alike():
    assert plain_text("Salt &amp; Ember") == "Salt and Ember"
    assert title_name("Salt &amp; Ember (band)") == "salt and ember"
    assert is_anchor("Salt & Ember (band)", "Who founded Salt &amp; Ember?")
    assert not is_anchor("Ember (band)", "Who founded the Orwin Quartet?")


def test_a_comma_qualifier_names_the_larger_place():
    assert title_base("Milford, Dorsetshire") == "milford"
    assert title_qualifier("Milford, Dorsetshire") == "Dorsetshire"
    assert title_base("Milford (band)") == "milford" and title_qualifier("Milford (band)") == ""
    assert is_qualified("Milford, Dorsetshire", "milford") and is_qualified("Milford (band)", "milford")
    assert not is_qualified("Milford Haven", "milford")
