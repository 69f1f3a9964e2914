"""The epsilon box's text: read exactly, a decimal comma understood, anything ambiguous refused."""

from fractions import Fraction

import pytest

from dpstudio.model.project.epsilon_text import parse_epsilon_text, understood_text


@pytest.mark.parametrize(
    "text, value",
    [
        ("1", Fraction(1)),
        (" 0.5 ", Fraction(1, 2)),
        ("1/4", Fraction(1, 4)),
        ("2e-1", Fraction(1, 5)),
        ("0,1", Fraction(1, 10)),
        ("0,125", Fraction(1, 8)),
        ("1,5", Fraction(3, 2)),
        ("12,25", Fraction(49, 4)),
    ],
)
def test_accepted(text, value):
    assert parse_epsilon_text(text) == value


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "type an epsilon"),
        ("  ", "type an epsilon"),
        ("0", "positive"),
        ("-0,5", "positive"),
        ("abc", "not a number"),
        ("1,000", "ambiguous"),
        ("12,500", "ambiguous"),
        ("1,2,3", "more than one comma"),
        ("1,000.5", "comma and a point"),
        ("1,5e-1", "plain decimal"),
        ("nan", "NaN"),
        ("inf", "finite"),
    ],
)
def test_refused_with_the_reason(text, why):
    with pytest.raises(ValueError, match=why):
        parse_epsilon_text(text)


@pytest.mark.parametrize("value, text", [(Fraction(1), "1"), (Fraction(1, 10), "0.1"), (Fraction(1, 3), "1/3")])
def test_understood_text_round_trips(value, text):
    assert understood_text(value) == text and parse_epsilon_text(text) == value
