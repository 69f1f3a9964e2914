"""The loaded data's account in the persistent budget store (Qt-free), shared by the project, the release
service and the panels: its name, its lifetime total, what was spent on it, and whether the owner declared
the records a new dataset.

The store is the only truth about what was spent: ``info()`` reads it every time it is called (a panel
re-reads it whenever it is shown, so a total raised with ``dpstudio budget set-total`` is seen at once).
Records the store knows loosely (``BudgetStore.related``: a renamed, added or dropped column, duplicated
rows) are shown and charged as that dataset, with the reason, unless ``new_dataset`` is set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dpstudio.core.budget import check_epsilon, check_usable_epsilon
from dpstudio.io.budget_store import (
    UNTRACKED,
    BudgetStoreError,
    check_name,
    default_dataset_name,
    fraction_text,
    open_store,
)
from dpstudio.model.release.service import ReleaseRequest


class AccountError(ValueError):
    """The account cannot do what was asked (no data, tracking off, a name taken, a total below the spend)."""


@dataclass(frozen=True)
class DatasetBudgetInfo:
    """The loaded data's lifetime budget in the budget store (``BudgetAccount.info``).

    ``total`` and ``remaining`` are None while the store does not know the data yet (its first release's
    epsilon becomes the total unless one was set) or when tracking is off (``tracked`` False).
    ``warnings``: near-duplicates in the store, or that tracking is off. ``related``: why these records are
    taken for a dataset the store knew under other records ("" for an exact match or new data).
    """

    name: str | None
    total: Fraction | None
    spent: Fraction
    remaining: Fraction | None
    tracked: bool
    warnings: tuple[str, ...] = ()
    related: str = ""

    def describe(self) -> str:
        """One line for a panel, e.g. "this dataset (adult): 0.5 of 1 epsilon left"."""
        if not self.tracked:
            return f"this dataset ({self.name}): not tracked: experiments only (budget store: none)"
        if self.total is None:
            return f"this dataset ({self.name}): no release yet on this data"
        known = " (recognised: " + self.related + ")" if self.related else ""
        assert self.remaining is not None  # known data: the store states what remains
        return (
            f"this dataset ({self.name}): {fraction_text(self.remaining)} of {fraction_text(self.total)} "
            f"epsilon left{known}"
        )


class BudgetAccount:
    """See the module docstring. ``records_print()`` gives the loaded records' ``DatasetPrint`` (None
    without data; computed only when a store is open); ``data_path()`` the data file, for the default name;
    ``has_data()`` whether records are loaded."""

    def __init__(self, records_print: Callable, data_path: Callable[[], Path | None], has_data: Callable[[], bool]):
        self._records_print = records_print
        self._data_path = data_path
        self._has_data = has_data
        self.store: str | None = None  # None: $DPSTUDIO_BUDGET_STORE or the user data dir; "none": off
        self.name: str | None = None  # the data's name in the store (None: the file's stem)
        self.total: Fraction | None = None  # lifetime budget for data the store does not know yet
        self.new_dataset: bool = False  # declared other people than a loosely matching known dataset

    def forget_data(self) -> None:
        """Another dataset was opened: its name, total and declaration do not carry over."""
        self.name, self.total, self.new_dataset = None, None, False

    def default_name(self) -> str:
        if self.name:
            return self.name
        path = self._data_path()
        return default_dataset_name(path) if path is not None else "data"

    def _open(self):
        try:
            return open_store(self.store)
        except BudgetStoreError as exc:
            raise AccountError(str(exc)) from None

    def _print(self):
        fp = self._records_print()
        if fp is None:
            raise AccountError("no data is loaded")
        return fp

    def info(self) -> DatasetBudgetInfo:
        """What the store holds for the loaded data now (read afresh). AccountError without data or when the
        store cannot be read."""
        if not self._has_data():
            raise AccountError("no data is loaded")
        store = self._open()
        if store is None:
            return DatasetBudgetInfo(self.default_name(), None, Fraction(0), None, False, (UNTRACKED,))
        fp = self._print()
        try:
            known, related = store.match(fp, self.new_dataset)
            warnings = tuple(store.near_duplicate_warnings(fp, exclude=None if known is None else known.name))
        except BudgetStoreError as exc:
            raise AccountError(str(exc)) from None
        if known is None:
            return DatasetBudgetInfo(self.default_name(), self.total, Fraction(0), self.total, True, warnings)
        return DatasetBudgetInfo(known.name, known.total, known.spent, known.remaining, True, warnings, related)

    def rename(self, name) -> DatasetBudgetInfo:
        """Name the data in the store (renamed there if the store knows it). A name that belongs to other
        records is refused."""
        store = self._open()
        try:
            label = check_name(name)
            known = None if store is None else store.match(self._print(), self.new_dataset)[0]
            if known is not None and known.name != label:
                store.rename(known.name, label)
            elif known is None and store is not None and any(d.name == label for d in store.datasets()):
                raise BudgetStoreError(
                    f"the name {label!r} belongs to another dataset in the budget store "
                    "(different records); choose another name"
                )
        except BudgetStoreError as exc:
            raise AccountError(str(exc)) from None
        self.name = label
        return self.info()

    def set_total(self, total) -> DatasetBudgetInfo:
        """Set the data's lifetime budget deliberately (not below what was spent on it)."""
        try:
            eps = check_usable_epsilon(total)
        except ValueError as exc:
            raise AccountError(f"lifetime budget: {exc}") from None
        store = self._open()
        if store is None:
            raise AccountError("budget tracking is off (budget store: none)")
        try:
            known = store.match(self._print(), self.new_dataset)[0]
            if known is None:
                self.total = eps
            else:
                store.set_total(known.name, eps)
        except BudgetStoreError as exc:
            raise AccountError(str(exc)) from None
        return self.info()

    def request(self, epsilon, what: str) -> ReleaseRequest:
        """The release service's request for a studio release on the loaded data."""
        path = self._data_path()
        return ReleaseRequest(
            self.default_name(),
            self._print,
            check_epsilon(epsilon),
            what,
            "studio",
            self.store,
            self.total,
            self.new_dataset,
            None if path is None else str(path),
        )


__all__ = ["AccountError", "BudgetAccount", "DatasetBudgetInfo"]
