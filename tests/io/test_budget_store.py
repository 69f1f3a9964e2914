"""The SQLite budget store: lifetime totals, exact arithmetic, refusals that change nothing, concurrent
charges that never overspend, no exact row count stored."""

import sqlite3
import subprocess
import sys
import textwrap
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dpstudio.core.budget import BudgetExceededError
from dpstudio.io.budget_store import BudgetStore, BudgetStoreError, open_store, store_location
from dpstudio.io.dataset_fingerprint import table_print


def frame(n=1234, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(17, 90, n), "sex": rng.choice(["F", "M"], n)})


@pytest.fixture
def store(tmp_path):
    return BudgetStore(tmp_path / "sub" / "budget.sqlite")


def dump(path):
    con = sqlite3.connect(path)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("datasets", "spends")}
    finally:
        con.close()


def test_first_release_sets_the_total_and_a_second_is_refused(store):
    fp = table_print(frame())
    charge = store.charge(fp, 1, "first", "cli", name="people")
    assert (charge.dataset, charge.total, charge.spent, charge.remaining) == ("people", 1, 1, 0)
    before = dump(store.path)
    with pytest.raises(BudgetExceededError) as exc:
        store.charge(fp, "0.1", "second", "cli", name="people")
    message = str(exc.value)
    assert "'people'" in message and "0 of 1 is left" in message and "dpstudio budget set-total people" in message
    assert dump(store.path) == before  # the refusal changed nothing


def test_explicit_total_exact_fractions_and_set_total(store):
    fp = table_print(frame())
    for _ in range(10):
        store.charge(fp, 0.1, "tenth", "studio", name="p", total=1)
    d = store.dataset("p")
    assert d.spent == 1 and d.total == 1 and [s.epsilon for s in d.spends] == [Fraction(1, 10)] * 10
    with pytest.raises(BudgetExceededError):
        store.charge(fp, Fraction(1, 10**9), "more", "cli")
    with pytest.raises(BudgetStoreError, match="below what was already spent"):
        store.set_total("p", "0.5")
    assert store.dataset("p").total == 1
    store.set_total("p", "3/2")
    assert store.charge(fp, "1/2", "raised", "cli").remaining == 0
    with pytest.raises(BudgetStoreError, match="already has a lifetime budget of 1.5"):
        store.charge(fp, "0.1", "x", "cli", total=2)


def test_a_refused_first_charge_leaves_no_dataset(store):
    with pytest.raises(BudgetExceededError):
        store.charge(table_print(frame()), 1, "too much", "cli", name="p", total="1/2")
    assert store.datasets() == []


def test_names_are_unique_and_rename(store):
    store.charge(table_print(frame(seed=1)), 1, "a", "cli", name="p")
    with pytest.raises(BudgetStoreError, match="belongs to another dataset"):
        store.charge(table_print(frame(seed=2)), 1, "b", "cli", name="p")
    assert [d.name for d in store.datasets()] == ["p"]
    assert store.rename("p", "q").name == "q"
    with pytest.raises(BudgetStoreError, match="no dataset named 'p'"):
        store.dataset("p")


def test_the_store_holds_no_exact_row_count(store):
    data = frame(1234)
    store.charge(table_print(data), 1, "release", "cli", name="people")
    cells = [v for rows in dump(store.path).values() for row in rows for v in row]
    assert 1200 in cells
    assert not any(v == 1234 or (isinstance(v, str) and "1234" in v) for v in cells)
    assert b"1234" not in store.path.read_bytes()


def test_near_duplicate_warning_names_the_other_dataset(store):
    data = frame(1000)
    store.charge(table_print(data), "0.5", "release", "cli", name="census", total=2)
    edited = data.copy()
    edited.loc[0, "age"] = 18 if edited.loc[0, "age"] != 18 else 19
    warnings = store.near_duplicate_warnings(table_print(edited))
    assert len(warnings) == 1 and "'census'" in warnings[0] and "0.5 of 2" in warnings[0]
    assert store.near_duplicate_warnings(table_print(data)) == []  # the same data is not a near-duplicate
    assert store.near_duplicate_warnings(table_print(frame(1500))) == []  # 50 % larger
    assert store.near_duplicate_warnings(table_print(data.rename(columns={"sex": "gender"}))) == []


def test_location_option_env_default_and_none(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "env.sqlite"))
    assert store_location() == tmp_path / "env.sqlite"
    assert store_location(str(tmp_path / "opt.sqlite")) == tmp_path / "opt.sqlite"
    assert store_location("none") is None and open_store("None") is None
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", "none")
    assert store_location() is None
    monkeypatch.delenv("DPSTUDIO_BUDGET_STORE")
    default = store_location()
    assert default.name == "budget.sqlite" and default.parent.name == "dpstudio"


def test_reading_a_missing_store_creates_nothing_and_a_bad_file_is_refused(tmp_path):
    s = BudgetStore(tmp_path / "nothing" / "budget.sqlite")
    assert s.datasets() == [] and not (tmp_path / "nothing").exists()
    bad = tmp_path / "bad.sqlite"
    bad.write_text("not a database, just text " * 100)
    with pytest.raises(BudgetStoreError, match="not usable"):
        BudgetStore(bad).charge(table_print(frame()), 1, "x", "cli", name="p")


CHARGER = textwrap.dedent("""
    import sys
    import pandas as pd
    from dpstudio.core.budget import BudgetExceededError
    from dpstudio.io.budget_store import BudgetStore
    from dpstudio.io.dataset_fingerprint import table_print

    store = BudgetStore(sys.argv[1])
    fp = table_print(pd.DataFrame({"a": range(100)}))
    ok = 0
    store.datasets()
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    for _ in range(int(sys.argv[2])):
        try:
            store.charge(fp, "1/40", "race", "cli", name="shared", total=1)
            ok += 1
        except BudgetExceededError:
            pass
    print(ok)
""")


def test_concurrent_charges_from_two_processes_never_overspend(tmp_path):
    path = tmp_path / "budget.sqlite"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHARGER, str(path), "30"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:  # both are waiting: release them together
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    successes = sum(int(o.strip()) for o in outs)
    d = BudgetStore(path).dataset("shared")
    assert successes == 40 == len(d.spends)  # 60 tries of 1/40 on a total of 1: exactly forty fit
    assert d.spent == 1


def test_the_check_and_the_insert_are_one_transaction(tmp_path, monkeypatch):
    """Two charges whose checks would both see the same remaining budget: only one may pass. Each check
    waits (up to a second) for the other to reach its own check; with the check inside the write
    transaction the second cannot get there, so they run one after the other."""
    import threading

    import dpstudio.io.budget_store as bs

    store = BudgetStore(tmp_path / "budget.sqlite")
    fp = table_print(frame())
    store.charge(fp, "0.1", "first", "cli", name="p", total=1)
    barrier = threading.Barrier(2, timeout=1.0)
    real_replay = bs._replay

    def replay_after_the_other(total, spends):
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        return real_replay(total, spends)

    monkeypatch.setattr(bs, "_replay", replay_after_the_other)
    outcomes = []

    def charge():
        try:
            BudgetStore(store.path).charge(fp, "0.6", "racer", "cli")
            outcomes.append("ok")
        except BudgetExceededError:
            outcomes.append("refused")

    threads = [threading.Thread(target=charge) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(outcomes) == ["ok", "refused"]
    assert store.dataset("p").spent == Fraction(7, 10)
