"""The Watch writes a count the same way everywhere (issue 32 item 4; walk finding: "(0.0, -0.0)" and
"(633096, 14521)" beside "30,148")."""

import pytest

from dpstudio.model.numbers import bound_text, count_text, ratio_text


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

    # "; " between the classes: a comma already groups the thousands (walk 51: "[112,281.1, 30,334]")
    assert _fmt((633096.0, -0.04)) == "[633,096; 0]"
    assert explained((633096.0, -0.04)) == "(633,096; 0)"
    assert _fmt((112281.1, 30334.0)) == "[112,281.1; 30,334]"


@pytest.mark.parametrize(
    "value, text",
    [
        (0.19231, "0.1923"),
        (1190.3, "1,190"),
        (708312.5, "708,300"),
        (28.0, "28"),
        (-0.0, "0"),
        (0.25, "0.25"),
        (1e-05, "0.00001"),
        (5.24052e-05, "0.00005241"),  # walk 52: the ledger wrote "5.241e-05"
        (0.00099996, "0.001"),  # four digits round up to a thousandth
        (-0.000123456, "-0.0001235"),
        (1.5e-06, "0.0000015"),
        (4e-07, "4e-07"),  # below a millionth the zeros would not be read
    ],
)
def test_figures_have_four_digits_and_no_exponent_from_a_millionth_up(value, text):
    from dpstudio.model.numbers import figure_text

    assert figure_text(value) == text


def test_the_ledger_the_noise_chart_and_the_split_bar_write_a_figure_alike(qtbot):
    """Walk finding: the noise chart wrote "1.19e+03" where the ledger wrote 1190, and the split bar 0.192
    where the figures wrote 0.1923."""
    from fractions import Fraction
    from types import SimpleNamespace

    from dpstudio.core.budget import Spend
    from dpstudio.gui.widgets.budget_bar import BudgetBar
    from dpstudio.gui.widgets.ledger_view import LedgerView
    from dpstudio.gui.widgets.noise_chart import NoiseChart

    ledger = LedgerView()
    qtbot.addWidget(ledger)
    ledger.set_entries([Spend("level 10", "Laplace", Fraction(1, 1190), 1.0, 1190.3)], 1 / 1190, 1.0)
    assert ledger.table.item(0, 4).text() == "1,190"
    chart = NoiseChart()
    qtbot.addWidget(chart)
    chart.set_explanation(SimpleNamespace(scale=1190.3, half_width=3566, noise=None))
    assert "scale 1,190, 95 % in [-3,566, 3,566]" in chart.getPlotItem().titleLabel.text
    bar = BudgetBar()
    qtbot.addWidget(bar)
    bar.set_segments(["selection", "counts"], [Fraction(2500, 13000), 1 - Fraction(2500, 13000)], 1)
    assert bar._legend_label(0) == "selection: 0.1923"


@pytest.mark.parametrize(
    "value, grouped, text",
    [
        (1484705, True, "1,484,705"),
        (1484705.0, False, "1484705"),
        (13769, True, "13,769"),
        (0, True, "0"),
        (-5, True, "-5"),
        (0.5, True, "0.5"),
        (44.9123, False, "44.9123"),
        (1e16, True, "1e+16"),  # beyond whole-number display: still exact
    ],
)
def test_bound_text_is_exact_and_whole_numbers_never_in_exponent_form(value, grouped, text):
    assert bound_text(value, grouped=grouped) == text
    assert float(bound_text(value, grouped=False)) == value


@pytest.mark.parametrize(
    "value, text",
    [
        (7.74, "7.7"),
        (1.04, "1"),
        (497.3, "500"),
        (551.0, "550"),
        (1003.0, "1,000"),
        (22026.5, "22,000"),
        (2e7, "more than a million"),
    ],
)
def test_ratio_text_never_in_exponent_form(value, text):
    """Walk 52: "the winner was 5e+02 times likelier", "2.2e+04 times likelier" in the release question."""
    assert ratio_text(value) == text
