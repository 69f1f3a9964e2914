import pytest

from dpstudio.model.project.class_values_text import format_class_values, parse_class_values


@pytest.mark.parametrize(
    "text,values",
    [
        ("<=50K, >50K", ["<=50K", ">50K"]),
        ('"a, b", c', ["a, b", "c"]),
        ('  x ,, "y ""z""" ', ["x", 'y "z"']),
        ("", []),
    ],
)
def test_parse(text, values):
    assert parse_class_values(text) == values


@pytest.mark.parametrize("values", [["<=50K", ">50K"], ["a, b", "c"], ['say "hi"', "x"], ["1", "2", "3"]])
def test_format_reads_back_to_the_same_list(values):
    assert parse_class_values(format_class_values(values)) == values


def test_an_unclosed_quote_is_an_error():
    with pytest.raises(ValueError, match="quote"):
        parse_class_values('"a, b')
