"""The Watch writes a count the same way everywhere (issue 32 item 4; walk finding: "(0.0, -0.0)" and
"(633096, 14521)" beside "30,148")."""

import pytest

from dpstudio.model.watch.numbers import count_text


@pytest.mark.parametrize(
    "value, text",
    [
        (30148, "30,148"),
        (30148.0, "30,148"),
        (4208.84, "4,208.8"),
        (-0.04, "0"),
        (-0.0, "0"),
        (-1476, "-1,476"),
        (0.06, "0.1"),
    ],
)
def test_counts_are_grouped_rounded_and_never_minus_zero(value, text):
    assert count_text(value) == text


def test_the_tree_labels_and_the_explanations_use_it():
    from dpstudio.gui.widgets.tree_view import _fmt
    from dpstudio.model.watch.explain import _fmt as explained

    assert _fmt((633096.0, -0.04)) == "[633,096, 0]"
    assert explained((633096.0, -0.04)) == "(633,096, 0)"
