"""The persistent budget store: what has been spent on each dataset, over every project and every command.

A dataset is known by the fingerprint of its parsed records (``dataset_fingerprint``; shuffling rows or
changing line ends does not make it new) and by a name the user can give (default: the data file's stem).
Per dataset the store keeps the sorted column names, an approximate size (two significant figures, never
the exact row count), a lifetime total epsilon and every spend (UTC time, epsilon as an exact fraction,
what was run, mode "cli" or "studio"). The fingerprint stays here: it is never written to a release.

The lifetime total is set explicitly (``total=`` on first use, ``set_total``) or, if never set, becomes
the first release's epsilon: any further release on the same data needs a deliberate raise.

Recognising the same people under trivial edits: beside the exact fingerprint, every print charged is kept
with its per-column prints and its distinct-records print (``dataset_fingerprint``). A table whose exact
print is new is charged to a known dataset (``related``) when its columns hold the same values as that
dataset's columns (by their values as multisets, names ignored) in one of three ways: all of its columns
(a file of some of the dataset's columns: age alone, or age, sex and the class), all of the dataset's
columns (the same records with columns added), or more than half of the larger table's columns (a renamed,
added or dropped column); or when it has the same distinct records (every row duplicated; only where one
of the two tables has mostly distinct records, since two samples of a table of few combinations share them
all). The caller may declare it a new dataset deliberately (``new_dataset=True``). The lookup runs inside
the charge's transaction, so two first releases of related tables at the same moment go to one dataset.

Not recognised (a limit of matching by values, stated in docs/budget.md): a table with most columns' values
changed, a sample or a subset of the rows, rows added or removed (each changes every column's multiset), a
different coding of a column (ages in years against age groups), and counts files (``--counts``): a
histogram's bins are not records, so the same ages binned by 1, 2 or 5 years are three datasets. A column
of few values that happens to hold the same multiset as a known dataset's (all "yes" in two tables of the
same size) is charged there: the mistake costs budget, never privacy, and the release question names the
dataset and why.

``charge`` checks and records a spend in one SQLite transaction (``BEGIN IMMEDIATE``: concurrent charges
from several processes are serialised, so they never overspend) with the exact arithmetic of
``core.budget.Ledger``. A refused charge raises ``BudgetExceededError`` saying what remains and how to raise
the total, and changes nothing (not even the new dataset's entry).

Where the store is: ``--budget-store PATH`` > the environment variable ``DPSTUDIO_BUDGET_STORE`` > the
user's data directory (``platformdirs.user_data_dir("dpstudio")/budget.sqlite``). The value ``none`` turns
tracking off (``store_location`` returns None): for experiments on data that is never released.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dpstudio.core.budget import BudgetExceededError, Ledger, check_epsilon
from dpstudio.core.budget import fraction_text as _fraction_text  # re-exported with approx=True below
from dpstudio.io.dataset_fingerprint import DatasetPrint

ENV = "DPSTUDIO_BUDGET_STORE"
OFF = "none"
SCHEMA_VERSION = 2
MOST_COLUMNS = 0.5  # related: more than this share of the larger table's columns match
#: related by distinct records only where records are mostly distinct on one side (person-level data); in a
#: table of few combinations every sample holds them all
MOSTLY_DISTINCT = 0.5
NEAR_SIZE = 0.10  # near-duplicates: same columns and sizes within 10 %
UNTRACKED = (
    f"budget tracking is off ({ENV}=none or --budget-store none): this spend is not recorded in any budget store"
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS datasets (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    columns TEXT NOT NULL,
    approx_rows INTEGER NOT NULL,
    total TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS spends (
    id INTEGER PRIMARY KEY,
    dataset INTEGER NOT NULL REFERENCES datasets(id),
    time TEXT NOT NULL,
    epsilon TEXT NOT NULL,
    what TEXT NOT NULL,
    mode TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS prints (
    fingerprint TEXT PRIMARY KEY,
    dataset INTEGER NOT NULL REFERENCES datasets(id),
    column_prints TEXT NOT NULL,
    distinct_print TEXT NOT NULL,
    approx_rows INTEGER NOT NULL DEFAULT 0,
    approx_distinct INTEGER NOT NULL DEFAULT 0
);
"""


class BudgetStoreError(ValueError):
    """The store cannot be used as asked (unreadable file, unknown or taken name, bad total)."""


def store_location(option: str | os.PathLike | None = None) -> Path | None:
    """The store's path (``option`` > ``$DPSTUDIO_BUDGET_STORE`` > the user data directory); None if off."""
    value = option if option is not None and str(option).strip() else os.environ.get(ENV, "").strip() or None
    if value is None:
        import platformdirs

        return Path(platformdirs.user_data_dir("dpstudio")) / "budget.sqlite"
    if str(value).strip().lower() == OFF:
        return None
    return Path(value).expanduser()


def open_store(option: str | os.PathLike | None = None) -> BudgetStore | None:
    """The store at ``store_location(option)``, or None when tracking is off."""
    path = store_location(option)
    return None if path is None else BudgetStore(path)


def fraction_text(x: Fraction) -> str:
    """A short human form of an exact epsilon: 1, 0.5, 1/3 (~0.333333)."""
    return _fraction_text(x, approx=True)


@dataclass(frozen=True)
class StoredSpend:
    time: str
    epsilon: Fraction
    what: str
    mode: str


@dataclass(frozen=True)
class DatasetBudget:
    """One dataset of the store (``spends`` oldest first)."""

    name: str
    columns: tuple[str, ...]
    approx_rows: int
    total: Fraction
    spends: tuple[StoredSpend, ...]
    created: str = ""

    @property
    def spent(self) -> Fraction:
        return sum((s.epsilon for s in self.spends), Fraction(0))

    @property
    def remaining(self) -> Fraction:
        return self.total - self.spent


@dataclass(frozen=True)
class Charge:
    """A recorded spend and the dataset's budget after it."""

    dataset: str
    epsilon: Fraction
    total: Fraction
    spent: Fraction
    store: Path
    related: str = ""  # non-empty: charged to a known dataset these records match loosely, and why

    @property
    def remaining(self) -> Fraction:
        return self.total - self.spent

    def to_dict(self) -> dict:
        """For a sidecar: the dataset's name and budget figures (no fingerprint, no size, no store path)."""
        return {
            "tracked": True,
            "dataset": self.dataset,
            "charged": str(self.epsilon),
            "dataset_total": str(self.total),
            "dataset_spent": str(self.spent),
            "dataset_remaining": str(self.remaining),
        }


def untracked_record(dataset: str | None) -> dict:
    """The sidecar's budget entry when tracking is off."""
    return {"tracked": False, "dataset": dataset, "note": UNTRACKED}


def default_dataset_name(path) -> str:
    """A data file's name without its suffixes (``adult.csv.gz`` -> ``adult``)."""
    name = Path(path).name
    return name.split(".")[0] or name


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def check_name(name) -> str:
    text = str(name if name is not None else "").strip()
    if not text:
        raise BudgetStoreError("a dataset name cannot be empty")
    if any(ch in text for ch in "\r\n\t"):
        raise BudgetStoreError(f"a dataset name must be one line, got {text!r}")
    return text


class BudgetStore:
    """The SQLite file at ``path`` (created, with its folder, on the first charge)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    # -- connection ----------------------------------------------------------------------------------
    def _connect(self, write: bool) -> sqlite3.Connection | None:
        """A connection in autocommit mode (transactions are explicit), or None for a read of no file."""
        if self.path.is_dir():
            raise BudgetStoreError(f"budget store {self.path} is a folder, not a file")
        if not self.path.exists():
            if not write:
                return None
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise BudgetStoreError(
                    f"cannot create the budget store's folder {self.path.parent}: {exc.strerror}"
                ) from None
        try:
            con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                con.close()
                raise BudgetStoreError(f"budget store {self.path} was written by a newer dpstudio (schema {version})")
            if version < SCHEMA_VERSION and (write or version >= 1):  # created, or migrated from 1
                con.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        con.execute(statement)
                # version 1 kept the exact print only: it stays known, without looser prints
                con.execute(
                    "INSERT OR IGNORE INTO prints (fingerprint, dataset, column_prints, distinct_print) "
                    "SELECT fingerprint, id, '[]', '' FROM datasets"
                )
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.execute("COMMIT")
            elif version == 0:
                con.close()
                return None  # an empty file: nothing stored yet
            return con
        except sqlite3.DatabaseError as exc:
            raise BudgetStoreError(f"budget store {self.path} is not usable ({exc})") from None

    @contextmanager
    def _transaction(self):
        """A write transaction taken at once (BEGIN IMMEDIATE): committed if the block returns, else
        rolled back, so a refusal changes nothing."""
        con = self._connect(write=True)
        try:
            con.execute("BEGIN IMMEDIATE")
            yield con
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        finally:
            con.close()

    def _rows(self, con, where: str = "", args: tuple = ()) -> list[DatasetBudget]:
        out = []
        for row in con.execute(
            f"SELECT id, name, columns, approx_rows, total, created FROM datasets {where} ORDER BY name", args
        ).fetchall():
            spends = tuple(
                StoredSpend(t, Fraction(e), w, m)
                for t, e, w, m in con.execute(
                    "SELECT time, epsilon, what, mode FROM spends WHERE dataset = ? ORDER BY id", (row[0],)
                )
            )
            out.append(DatasetBudget(row[1], tuple(json.loads(row[2])), int(row[3]), Fraction(row[4]), spends, row[5]))
        return out

    def _read(self, where: str = "", args: tuple = ()) -> list[DatasetBudget]:
        con = self._connect(write=False)
        if con is None:
            return []
        try:
            return self._rows(con, where, args)
        except sqlite3.DatabaseError as exc:
            raise BudgetStoreError(f"budget store {self.path} is not usable ({exc})") from None
        finally:
            con.close()

    # -- reading -------------------------------------------------------------------------------------
    def datasets(self) -> list[DatasetBudget]:
        return self._read()

    def find(self, fp: DatasetPrint) -> DatasetBudget | None:
        """The dataset these exact records were charged to (under any of the prints it was charged with)."""
        found = self._read(
            "WHERE fingerprint = ? OR id IN (SELECT dataset FROM prints WHERE fingerprint = ?)",
            (fp.fingerprint, fp.fingerprint),
        )
        return found[0] if found else None

    def related(self, fp: DatasetPrint) -> tuple[DatasetBudget, str] | None:
        """A known dataset that ``fp`` matches loosely (see the module docstring), with the reason in
        words; None when there is none. Callers ask it only for records not known exactly (``match``;
        ``charge`` asks again inside its transaction, after the exact lookup)."""
        if not fp.column_prints and not fp.distinct:
            return None
        con = self._connect(write=False)
        if con is None:
            return None
        try:
            return self._related(con, fp)
        except sqlite3.DatabaseError as exc:
            raise BudgetStoreError(f"budget store {self.path} is not usable ({exc})") from None
        finally:
            con.close()

    def _related(self, con, fp: DatasetPrint) -> tuple[DatasetBudget, str] | None:
        """``related`` on an open connection (inside ``charge``'s transaction, so two first charges of
        related tables cannot both create a dataset); a print without looser prints matches nothing."""
        best = None
        for ident, cols, distinct, rows, n_distinct in con.execute(
            "SELECT dataset, column_prints, distinct_print, approx_rows, approx_distinct FROM prints"
        ):
            found = _related_reason(fp, json.loads(cols), distinct, rows, n_distinct)
            if found is not None and (best is None or found[0] > best[0]):
                best = (found[0], ident, found[1])
        if best is None:
            return None
        rows = self._rows(con, "WHERE id = ?", (best[1],))
        return (rows[0], best[2]) if rows else None

    def match(self, fp: DatasetPrint, new_dataset: bool = False) -> tuple[DatasetBudget | None, str]:
        """The dataset a charge of ``fp`` goes to and why: (exact match, "") or (related match, reason),
        or (None, "") for data the store does not know (or declared new, ``new_dataset``)."""
        known = self.find(fp)
        if known is not None or new_dataset:
            return known, ""
        found = self.related(fp)
        return (None, "") if found is None else found

    def dataset(self, name: str) -> DatasetBudget:
        found = self._read("WHERE name = ?", (check_name(name),))
        if not found:
            known = ", ".join(repr(d.name) for d in self.datasets()) or "none yet"
            raise BudgetStoreError(f"no dataset named {name!r} in the budget store {self.path} (known: {known})")
        return found[0]

    def near_duplicates(self, fp: DatasetPrint, exclude: str | None = None) -> list[DatasetBudget]:
        """Other datasets with the same columns and a size within 10 %: perhaps an edited copy (the dataset
        named ``exclude``, the one a charge goes to, is left out)."""
        out = []
        known = self.find(fp)
        for d in self.datasets():
            if (known is not None and d.name == known.name) or d.name == exclude:
                continue
            big = max(d.approx_rows, fp.approx_rows)
            if d.columns == tuple(fp.columns) and abs(d.approx_rows - fp.approx_rows) <= NEAR_SIZE * big:
                out.append(d)
        return out

    def near_duplicate_warnings(self, fp: DatasetPrint, exclude: str | None = None) -> list[str]:
        return [
            f"this data looks like the dataset {d.name!r} (same columns, similar size) but its records "
            f"differ; {fraction_text(d.spent)} of {fraction_text(d.total)} epsilon was spent on {d.name!r}. "
            "If they share people, their budgets add up: release with care"
            for d in self.near_duplicates(fp, exclude)
        ]

    def name_for(self, fp: DatasetPrint, name: str | None, new_dataset: bool = False) -> str:
        """The name a charge would use: the stored one for known (or related) data, else ``name`` (checked)."""
        known, _ = self.match(fp, new_dataset)
        return known.name if known is not None else check_name(name)

    # -- writing -------------------------------------------------------------------------------------
    def charge(
        self,
        fp: DatasetPrint,
        epsilon,
        what: str,
        mode: str,
        name: str | None = None,
        total=None,
        new_dataset: bool = False,
    ) -> Charge:
        """Record a spend of ``epsilon`` on the dataset ``fp`` (creating its entry, named ``name``, with the
        lifetime ``total`` or else ``epsilon``), or raise BudgetExceededError and change nothing.

        Records the store does not know exactly but that match a known dataset loosely (``related``) are
        charged to that dataset, and their print is kept with it; ``new_dataset`` (a deliberate declaration
        that they are other people) makes a new entry instead. ``Charge.related`` says why."""
        eps = check_epsilon(epsilon)
        new_total = None if total is None else check_epsilon(total)
        reason = ""
        with self._transaction() as con:
            # the exact records, then related ones, are looked up inside the transaction: two first charges
            # of the same or related records race safely
            row = con.execute(
                "SELECT id, name, total FROM datasets WHERE fingerprint = ? OR id IN "
                "(SELECT dataset FROM prints WHERE fingerprint = ?)",
                (fp.fingerprint, fp.fingerprint),
            ).fetchone()
            related = None if row is not None or new_dataset else self._related(con, fp)
            if row is None and related is not None:
                row = con.execute("SELECT id, name, total FROM datasets WHERE name = ?", (related[0].name,)).fetchone()
                reason = related[1] if row is not None else ""
            if row is None:
                label = check_name(name)
                if con.execute("SELECT 1 FROM datasets WHERE name = ?", (label,)).fetchone():
                    raise BudgetStoreError(
                        f"the name {label!r} belongs to another dataset in the budget store "
                        "(different records); choose another name with --dataset-name"
                    )
                lifetime = new_total if new_total is not None else eps
                cur = con.execute(
                    "INSERT INTO datasets (fingerprint, name, columns, approx_rows, total, created) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (fp.fingerprint, label, json.dumps(list(fp.columns)), int(fp.approx_rows), str(lifetime), _now()),
                )
                ident, spends = cur.lastrowid, []
            else:
                ident, label, lifetime = row[0], row[1], Fraction(row[2])
                if new_total is not None and new_total != lifetime:
                    raise BudgetStoreError(
                        f"dataset {label!r} already has a lifetime budget of {fraction_text(lifetime)}; change it "
                        f"deliberately with: dpstudio budget set-total {shlex.quote(label)} EPS"
                    )
                spends = _spends(con, ident)
            ledger = _replay(lifetime, spends)
            try:
                ledger.spend(what, mode, eps)
            except BudgetExceededError:
                raise BudgetExceededError(
                    f"dataset {label!r}: a release of epsilon {fraction_text(eps)} does not fit its lifetime "
                    f"budget: {fraction_text(ledger.remaining)} of {fraction_text(lifetime)} is left (spent "
                    f"{fraction_text(ledger.spent)}); to raise it deliberately: dpstudio budget set-total "
                    f"{shlex.quote(label)} EPS"
                ) from None
            con.execute(
                "INSERT INTO spends (dataset, time, epsilon, what, mode) VALUES (?, ?, ?, ?, ?)",
                (ident, _now(), str(eps), str(what), str(mode)),
            )
            con.execute(
                "INSERT OR REPLACE INTO prints (fingerprint, dataset, column_prints, distinct_print, "
                "approx_rows, approx_distinct) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    fp.fingerprint,
                    ident,
                    json.dumps(list(fp.column_prints)),
                    fp.distinct,
                    int(fp.approx_rows),
                    int(fp.approx_distinct),
                ),
            )
        return Charge(label, eps, lifetime, ledger.spent, self.path, reason)

    def set_total(self, name: str, total) -> DatasetBudget:
        """Change a dataset's lifetime budget (not below what was spent)."""
        new_total = check_epsilon(total)

        def do(con, ident, spends):
            _replay(new_total, spends)
            con.execute("UPDATE datasets SET total = ? WHERE id = ?", (str(new_total), ident))

        self._update(name, do)
        return self.dataset(name)

    def rename(self, name: str, new_name: str) -> DatasetBudget:
        new = check_name(new_name)

        def do(con, ident, _spends):
            if con.execute("SELECT 1 FROM datasets WHERE name = ? AND id != ?", (new, ident)).fetchone():
                raise BudgetStoreError(f"the name {new!r} is taken by another dataset")
            con.execute("UPDATE datasets SET name = ? WHERE id = ?", (new, ident))

        self._update(name, do)
        return self.dataset(new)

    def _update(self, name: str, change) -> None:
        label = check_name(name)
        self.dataset(label)  # a clear message for an unknown name (and no new file)
        with self._transaction() as con:
            row = con.execute("SELECT id FROM datasets WHERE name = ?", (label,)).fetchone()
            if row is None:
                raise BudgetStoreError(f"no dataset named {label!r} in the budget store {self.path}")
            change(con, row[0], _spends(con, row[0]))


def _related_reason(fp: DatasetPrint, theirs: list, distinct: str, rows: int, n_distinct: int):
    """((rank, shared), reason) when ``fp`` matches a known print loosely, else None: the same distinct
    records (person-level data), or columns holding the same values: most of the columns, all of its
    columns (a table of some of that dataset's columns), or all of that dataset's (a table that adds
    columns to it)."""
    if (
        fp.distinct
        and distinct == fp.distinct
        and (
            n_distinct >= MOSTLY_DISTINCT * max(rows, 1)
            or fp.approx_distinct >= MOSTLY_DISTINCT * max(fp.approx_rows, 1)
        )
    ):
        return (2, 0), "the same distinct records (rows repeated or not)"
    mine = fp.column_prints
    shared = _multiset_overlap(mine, theirs)
    if not shared:
        return None
    names = "(column names are not compared)"
    if shared == len(mine) and shared < len(theirs):
        return (1, shared), (
            f"its {_columns(shared)} {'holds' if shared == 1 else 'hold'} the same values as {shared} of that "
            f"dataset's {len(theirs)}: a table of some of its columns {names}"
        )
    if shared == len(theirs) and shared < len(mine):
        return (1, shared), (
            f"{shared} of its {len(mine)} columns hold the same values as all of that dataset's {len(theirs)}: "
            f"the same records with columns added {names}"
        )
    if shared > MOST_COLUMNS * max(len(mine), len(theirs)):
        return (1, shared), (
            f"{shared} of its {len(mine)} columns hold the same values as {shared} of that dataset's "
            f"{len(theirs)} {names}"
        )
    return None


def _columns(n: int) -> str:
    return "1 column" if n == 1 else f"{n} columns"


def _multiset_overlap(a, b) -> int:
    """How many items two lists share, counting repeats (a multiset intersection)."""
    from collections import Counter

    return sum((Counter(a) & Counter(b)).values())


def _spends(con, ident: int) -> list[Fraction]:
    return [Fraction(e) for (e,) in con.execute("SELECT epsilon FROM spends WHERE dataset = ?", (ident,))]


def _replay(total: Fraction, spends) -> Ledger:
    """The dataset's spends in a ``Ledger`` of ``total`` (raises if they do not fit it)."""
    ledger = Ledger(total)
    try:
        for i, eps in enumerate(spends):
            ledger.spend(f"spend {i + 1}", "stored", eps)
    except BudgetExceededError:
        raise BudgetStoreError(
            f"a lifetime budget of {fraction_text(total)} is below what was already spent "
            f"({fraction_text(sum(spends, Fraction(0)))})"
        ) from None
    return ledger
