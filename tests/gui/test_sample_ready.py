"""The bundled sample opens ready to run: its shipped taxonomies and public bounds are applied."""

from __future__ import annotations

from PySide6.QtCore import Qt

from dpstudio.model.project.project import CATEGORICAL, NUMERIC, QUASI_IDENTIFIER
from dpstudio.model.release.readiness import readiness


def open_sample(qtbot, window):
    window.panel("Data").open_sample()
    qtbot.waitUntil(lambda: window.project.frame is not None, timeout=60000)
    return window.project


def test_sample_opens_with_its_shipped_taxonomies_declared_not_derived(qtbot, window):
    from dpstudio.model.project.provenance import ADULT_TAXONOMIES

    p = open_sample(qtbot, window)
    qis = p.attributes(QUASI_IDENTIFIER)
    categorical = [a for a in qis if p.types.get(a) == CATEGORICAL]
    assert set(categorical) == {
        "workclass",
        "education",
        "marital-status",
        "occupation",
        "relationship",
        "race",
        "sex",
        "native-country",
    }
    for a in categorical:
        assert a in p.taxonomies and not p.taxonomies[a].is_numeric, a
        prov = p.provenance_of(f"taxonomy:{a}")
        assert prov.source == ADULT_TAXONOMIES and not prov.derived, a
        assert p.uncovered(a) == (), a  # every value of the sample is a leaf
    for a in qis:
        if p.types.get(a) == NUMERIC:
            assert a in p.bounds, a
    assert [x.text for x in readiness(p)] == [] and p.unconfirmed_inputs() == []


def test_first_run_in_teaching_mode_succeeds_with_no_other_step(qtbot, window):
    p = open_sample(qtbot, window)
    panel = window.show_panel("Algorithm")
    assert p.teaching
    qtbot.mouseClick(panel.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: p.result is not None or bool(panel.eps_error.text()), timeout=120000)
    assert p.result is not None, panel.eps_error.text() or window.last_error
    assert float(p.run_ledger.spent) == float(p.epsilon)
