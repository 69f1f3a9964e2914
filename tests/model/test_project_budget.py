"""The studio's release runs charge the persistent budget store: reloading the same records (shuffled, CRLF,
without the trailing newline) or a new project on them does not give a fresh budget."""

from fractions import Fraction

import numpy as np
import pytest

from dpstudio.io.budget_store import open_store
from dpstudio.io.datasets import load_table
from dpstudio.model.project.project import RELEASE, Project, ProjectError
from tests.budget_data import ROWS, write_data


def project_on(path, epsilon="1"):
    p = Project()
    p.set_data(load_table(path), path)
    p.set_classes(["N", "Y"])
    p.set_mode(RELEASE)
    p.set_epsilon(epsilon)
    return p


def release(p):
    """A release run's spend as the studio makes it: the question, answered Yes."""
    return p.start_run(p.release_question())


@pytest.fixture
def data(tmp_path):
    return write_data(tmp_path / "people.csv", ROWS)


@pytest.mark.parametrize("copy", ["shuffled", "crlf", "no-trailing-newline"])
def test_reloading_the_same_records_does_not_give_a_fresh_budget(tmp_path, data, copy):
    p = project_on(data)
    setup = release(p)
    assert setup.budget["dataset"] == "people" and setup.budget["dataset_remaining"] == "0"
    if copy == "shuffled":
        again = write_data(tmp_path / "again.csv", [ROWS[i] for i in np.random.default_rng(5).permutation(40)])
    elif copy == "crlf":
        again = write_data(tmp_path / "again.csv", ROWS, newline="\r\n")
    else:
        again = write_data(tmp_path / "again.csv", ROWS, trailing=False)
    p.set_data(load_table(again), again)  # another file hash: the project's own ledger starts afresh
    p.reapply_declarations()  # another file: its declarations come back only when asked
    assert p.release_ledger is None or p.release_ledger.spent == 0
    with pytest.raises(ProjectError, match="dataset 'people'.*0 of 1 is left"):
        release(p)
    assert len(open_store().dataset("people").spends) == 1


def test_a_new_project_on_the_same_data_shows_what_remains(data):
    first = project_on(data, "0.25")
    assert first.dataset_budget().total is None  # unknown to the store: the first release sets it
    first.set_dataset_total(1)
    assert first.dataset_budget().remaining == 1
    release(first)
    second = project_on(data, "1")
    info = second.dataset_budget()
    assert (info.name, info.total, info.spent, info.remaining, info.tracked) == (
        "people",
        1,
        Fraction(1, 4),
        Fraction(3, 4),
        True,
    )
    assert info.describe() == "this dataset (people): 0.75 of 1 epsilon left"
    with pytest.raises(ProjectError, match="0.75 of 1 is left"):
        release(second)
    assert second.dataset_budget().spent == Fraction(1, 4)  # the refusal spent nothing
    second.set_dataset_total(2)
    assert release(second).budget["dataset_remaining"] == "3/4"  # 2 - 1/4 - 1


def test_a_type_change_after_loading_keeps_the_dataset(data):
    p = project_on(data)
    before = p.dataset_print()
    p.set_type("age", "categorical")  # rewrites the column in place (numbers become text)
    assert p.dataset_print() == before
    release(p)
    q = project_on(data)
    q.set_type("age", "categorical")
    with pytest.raises(ProjectError, match="lifetime budget"):
        release(q)


def test_teaching_runs_do_not_charge(data):
    p = project_on(data)
    p.set_mode("teaching")
    p.start_run()
    p.start_run()
    assert open_store().datasets() == []


def test_untracked_store_says_so(data, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", "none")
    for _ in range(2):
        p = project_on(data)
        setup = release(p)
        assert setup.budget["tracked"] is False and "not recorded" in setup.budget["note"]
        info = p.dataset_budget()
        assert info.tracked is False and "not tracked" in info.describe() and info.warnings


def test_the_studio_loader_fingerprints_in_the_worker_not_on_adoption(data, monkeypatch):
    """``model.data.load_dataset`` (run by the loading worker) attaches the print; adopting the dataset on
    the GUI thread and asking for the budget then hashes nothing."""
    import dpstudio.io.dataset_fingerprint as fingerprint
    from dpstudio.model.project.data import load_dataset

    ds = load_dataset(data)
    assert ds.records_print == fingerprint.table_print(load_table(data).frame)

    def refuse(frame):
        raise AssertionError("fingerprinted on adoption")

    monkeypatch.setattr(fingerprint, "table_print", refuse)
    p = Project()
    p.set_data(ds, data)
    p.set_classes(["N", "Y"])
    p.set_mode(RELEASE)
    assert p.dataset_budget().name == "people" and release(p).budget["dataset"] == "people"


def test_the_first_release_says_when_its_epsilon_becomes_the_lifetime_total(data):
    """The real window's first question said "of this dataset's lifetime budget of 1" with the total field
    empty: it now says where that total came from, and stops saying it once a total is set."""
    p = project_on(data, "1")
    q = p.release_question()
    assert q.total_defaulted and "No lifetime total was set for this new dataset" in q.text()
    p.set_dataset_total(3)
    q = p.release_question()
    assert not q.total_defaulted and "No lifetime total" not in q.text() and "lifetime budget of 3" in q.text()
    release(p)
    assert not project_on(data, "1").release_question().total_defaulted  # known to the store now
