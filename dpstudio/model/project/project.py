"""The project a studio window edits: Qt-free state with change notifications, saved as versioned JSON.

``Project`` composes small parts, each owning its fields and the methods that change them: ``source``
(``model.project.source``: the loaded data), ``inputs`` (``model.project.inputs``: the public inputs and
their provenance), ``settings`` (``model.project.run_settings``), ``run_state`` (``model.project.run_state``:
the question, the spend and the last run's record), the budget ``account`` (``model.release.account``) and
the project file (``model.project.project_file``). Views read and set every part's fields through the
project, and subscribe to its notifications (``model.project.notifier``).

A ``Project`` holds everything a release depends on *except the raw data*: where the data file is (and a
SHA-256 of its bytes, so reopening notices when it changed), each attribute's role and type, the public
class values (``classes``, declared like a taxonomy; None until declared), the public numeric bounds, the
declared kind of numeric attributes (``numeric_types``: "integer", "continuous" or "continuous:RESOLUTION";
undeclared ones get the default from their bounds when a run codes the table), the missing-value choice, a taxonomy per attribute, the algorithm and its parameters, the
budget epsilon, the mode (release or teaching), the budget ledger, and (in memory only) the events recorded
by the last run.

Views subscribe with ``project.subscribe(callback, *fields)``; every setter that changes something calls
``callback(field)`` for the subscribers of that field (or of all fields) and marks the project dirty. Views
write back through the setters, never by poking attributes, so every change is announced.

Privacy facts this module keeps:

- Release runs go through the release service (``model.release``): ``release_question(eps)`` is the
  question the user answers, ``start_run(answer)`` charges the persistent budget store
  (``dpstudio.io.budget_store``, the one the CLI charges too) for the run's epsilon, then hands out secure
  noise and a fresh ledger of epsilon (``release_ledger``, the last release's ledger, saved). The store is
  the only truth about what was spent: a second release in the same project is a normal path when the
  dataset's lifetime total leaves room. The store knows the data by the fingerprint of its records as loaded
  (not the file's bytes), and loosely under trivial edits (``BudgetStore.related``); the project's
  ``account`` (``model.release.account.BudgetAccount``) says what is left.
- A release run needs the declared class domain (``classes``); a record with another class is an input
  error, never a new class. Changing which attribute is the class clears the declaration.
- Teaching mode draws seeded simulation noise and gets a fresh ledger for every run: nothing it produces
  is a release (``can_export`` is False).
- The saved file never holds the raw data, true counts or recorded events (those may carry true counts in
  teaching mode).
- Every public input (taxonomy, bounds, type, class values) has a ``Provenance`` (``model/project/provenance.py``):
  inputs taken from the data stay "derived from the data: not private" through edits until the user
  confirms them (``confirm_public``); ``unconfirmed_inputs()`` names those a release would depend on.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpstudio.model.project import project_file
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.inputs import PublicInputs
from dpstudio.model.project.notifier import Notifier
from dpstudio.model.project.provenance import Provenance
from dpstudio.model.project.run_settings import RunSettings
from dpstudio.model.project.run_state import RunState
from dpstudio.model.project.source import DataSource, next_load
from dpstudio.model.project.vocabulary import (
    CATEGORICAL,
    CLASS,
    CODE_LIMIT,
    DEFAULT_MISSING_TOKEN,
    DRAWN_HERE,
    DROP_MISSING,
    EDITED_HERE,
    FIELDS,
    FILE_FORMAT,
    FILE_SUFFIX,
    IGNORE,
    KEEP_MISSING,
    MISSING_CHOICES,
    MODES,
    NUMERIC,
    QUASI_IDENTIFIER,
    RELEASE,
    ROLES,
    SCHEMA_VERSION,
    TEACHING,
    TYPES,
    ProjectError,
    authored_here,
    edited_provenance,
    file_sha256,
    merged_provenance,
    taxonomy_from_dict,
    taxonomy_to_dict,
)
from dpstudio.model.release.account import BudgetAccount
from dpstudio.model.release.question import ReleaseQuestion
from dpstudio.model.release.service import RunSetup

#: the question a release asks (kept under its earlier name for callers of ``release_confirmation``)
ReleaseConfirmation = ReleaseQuestion


class Project(Notifier):
    """Application state of one studio window (see the module docstring), composed of parts as napari's
    ``ViewerModel`` is: ``source`` (the data), ``inputs`` (the public inputs and their provenance),
    ``settings`` (algorithm, epsilon, mode), ``run_state`` (the question, the spend, the last run's record),
    ``account`` (the budget store's account of the data) and the project file (``project_file``). Each part's
    fields and methods are read and set through the project (``PARTS``), so views keep one object to talk to;
    the changes they announce go to the project's subscribers."""

    if TYPE_CHECKING:  # the parts' fields (their types) and methods, forwarded below
        dataset: Any
        data_path: Path | None
        data_hash: str | None
        data_encoding: str
        columns: list[str]
        test_path: Path | None
        _loaded: list[Any] | None
        load_token: int
        previous_declarations: Any
        roles: dict[str, str]
        types: dict[str, str]
        bounds: dict[str, tuple[float, float]]
        numeric_types: dict[str, str]
        classes: list[str] | None
        missing: str
        missing_token: str
        taxonomies: dict[str, Any]
        taxonomy_sources: dict[str, str]
        provenance: dict[str, Provenance]
        release_ledger: Any
        _ledger_hash: str | None

        def __getattr__(self, name: str) -> Any: ...

    def __init__(self) -> None:
        super().__init__()
        self._reset_state()

    def __copy__(self) -> Project:
        """A shallow copy whose parts are copies too (their fields shared, as a shallow copy shares them): a
        field set on the copy (``copy.copy(project).dataset = other``) leaves the original alone."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._subscribers = []  # nobody follows a copy: its changes never reach the original's views
        for name in PARTS:
            part = copy.copy(getattr(self, name))
            part.owner = clone
            part.changes = part.changes.fresh()  # the copy's changes reach the copy's subscribers only
            setattr(clone, name, part)
        clone._connect_parts()
        return clone

    def _reset_state(self) -> None:
        self.path: Path | None = None  # where the project file lives
        store = getattr(getattr(self, "account", None), "store", None)  # where the store is outlives a reset
        self.source = DataSource(self)
        self.inputs = PublicInputs(self)
        self.settings = RunSettings(self)
        self.run_state = RunState(self)
        self.account = BudgetAccount(self.dataset_print, lambda: self.data_path, lambda: self.has_data)
        self.account.store = store
        self.dirty = False
        self._connect_parts()

    def _connect_parts(self) -> None:
        """Each part's changes reach the project's subscribers (``model.project.changes``)."""
        for name in PARTS:
            getattr(self, name).changes.connect(self._on_part)

    def _on_part(self, field: str | None, dirty: bool) -> None:
        """A part changed: the reactions between parts first, then the project's subscribers hear of it."""
        self.generation += 1
        if field == "mode":  # a teaching run must not be shown or exported as a release, nor the reverse
            self.clear_run(notify=False)
            self.notify("run")
        if field is not None:
            self.notify(field)
        if dirty:
            self.set_dirty(True)

    def reset(self) -> None:
        """Start a new, empty project (subscribers hear about every field)."""
        self._reset_state()
        for f in FIELDS:
            self.notify(f)

    # -- data -------------------------------------------------------------------------------------------
    def set_data(
        self,
        dataset: Any,
        path: str | os.PathLike | None,
        file_hash: str | None = None,
        types: dict[str, str] | None = None,
        encoding: str | None = None,
    ) -> None:
        """Adopt a loaded dataset (``encoding``: the text encoding it was read with, saved with the project
        so that reopening reads the file the same way; None keeps the current one). Roles default to quasi-identifier, except a last column that looks like a
        class (few distinct values) which becomes the class; settings of columns that still exist are kept.

        ``types`` (column -> "categorical"/"numeric") defaults to ``dataset.types`` if it has one, else
        numeric for numeric pandas dtypes.
        """
        frame = getattr(dataset, "frame", dataset)  # None: a table read through an engine (io.engine_table)
        columns = [str(c) for c in (frame.columns if frame is not None else dataset.columns)]
        declared = types is not None
        if types is None:
            types = dict(getattr(dataset, "types", {}) or {})
        for c in columns:
            if c not in types:
                kind = getattr(frame[c].dtype, "kind", "O")
                types[c] = NUMERIC if kind in "iuf" else CATEGORICAL
        old_roles = self.roles
        old_class = self.class_attribute
        if path is None or self.data_path is None or Path(path) != self.data_path:
            self.account.forget_data()  # a name given to other data does not carry over
        if self.dataset is not None and (None if path is None else Path(path)) != self.data_path:
            # declarations belong to the data they were made for: kept aside, re-applied only when asked
            from dpstudio.model.project.declarations import Declarations

            label = self.data_path.name if self.data_path is not None else "the previous data"
            stash = Declarations.capture(self, label)
            self.previous_declarations = stash if stash.count() else None
            self.taxonomies, self.taxonomy_sources, self.bounds, self.numeric_types = {}, {}, {}, {}
            self.classes, self.provenance = None, {}
        old = self.dataset
        self.dataset = dataset
        if old is not None and old is not dataset and callable(getattr(old, "close", None)):
            old.close()  # a table read through an engine holds its connection until replaced
        self.data_path = None if path is None else Path(path)
        self.test_path = None  # a held-out file of other records belongs with its data
        if encoding is not None:
            self.data_encoding = str(encoding)
        if file_hash is None:
            file_hash = getattr(dataset, "sha256", None)
        if file_hash is None and path is not None and Path(path).is_file():
            file_hash = file_sha256(path)
        self.data_hash = file_hash
        self.columns = columns
        self.types = {c: (types[c] if types[c] in TYPES else CATEGORICAL) for c in columns}
        self.roles = {c: old_roles.get(c, QUASI_IDENTIFIER) for c in columns}
        if CLASS not in self.roles.values() and columns:
            guess = columns[-1]
            self.roles[guess] = CLASS
        self.bounds = {c: b for c, b in self.bounds.items() if c in columns}
        self.numeric_types = {c: t for c, t in self.numeric_types.items() if c in columns}
        if self.classes is not None and self.class_attribute != old_class:
            self.classes = None
        self.taxonomies = {c: t for c, t in self.taxonomies.items() if c in columns}
        for c in columns:
            self.provenance[pv.key(pv.TYPE, c)] = Provenance(
                "declared" if declared else pv.TYPE_FROM_DATA, derived=not declared
            )
        if not declared and frame is not None:
            self._propose_codes(frame)
        if self.release_ledger is not None and file_hash != self._ledger_hash:
            self.release_ledger = None  # the last release's ledger belongs to the data it was spent on
        self._ledger_hash = file_hash
        # the records as loaded (set_type later rewrites columns in place): the budget store's key
        self._loaded = [None if frame is None else frame.copy(deep=False), getattr(dataset, "records_print", None)]
        self.load_token = next_load()
        self.clear_run(notify=False)
        for f in ("data", "roles", "types", "bounds", "classes", "taxonomies", "ledger", "run", "provenance"):
            self.notify(f)
        self.set_dirty(True)

    def reapply_declarations(self) -> tuple[list[str], list[str]]:
        """Re-apply the declarations made for the previously opened file (``model.declarations``), each
        recorded as re-applied by the user; (inputs re-applied, inputs skipped with why)."""
        stash = self.previous_declarations
        if stash is None:
            raise ProjectError("there are no declarations of a previous file to re-apply")
        target = self.data_path.name if self.data_path is not None else "this data"
        done, skipped = stash.apply(self, target)
        self.previous_declarations = None
        self._changed("provenance")
        return done, skipped

    # -- the project file ----------------------------------------------------------------------------------
    def to_dict(self, relative_to: Path | None = None) -> dict:
        """The saved form: no raw data, no events, no true counts."""
        return project_file.to_dict(self, relative_to)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the project as JSON (atomically; overwriting the same project file is allowed)."""
        return project_file.save(self, path)

    @classmethod
    def read_file(cls, path: str | os.PathLike) -> dict:
        """Parse and check a project file; ProjectError names the problem."""
        return project_file.read_file(path)

    def resolve_data_path(self, data: dict, project_path: Path) -> Path | None:
        """Where the saved data file is now: the saved absolute path, else relative to the project file."""
        return project_file.resolve_data_path(self, data, project_path)

    @staticmethod
    def saved_encoding(data: dict) -> str:
        """The text encoding a saved project's data file is read with (default UTF-8)."""
        return project_file.saved_encoding(data)

    def apply_dict(
        self, data: dict, dataset: Any = None, data_path: Path | None = None, project_path: Path | None = None
    ) -> list[str]:
        """Replace the state with a saved one (``project_file.apply_dict``); returns warnings for the user."""
        return project_file.apply_dict(self, data, dataset, data_path, project_path)


class _Forward:
    """A field or method of one of the project's parts, read and set through the project."""

    def __init__(self, part: str, name: str) -> None:
        self.part, self.name = part, name

    def __get__(self, project, owner=None):
        return self if project is None else getattr(getattr(project, self.part), self.name)

    def __set__(self, project, value) -> None:
        setattr(getattr(project, self.part), self.name, value)
        project.generation += 1


def _fields(part: type) -> tuple[str, ...]:
    """The fields a new part sets: its state (a cache a part adds later, ``_vc_cache`` say, is not one)."""
    return tuple(n for n in vars(part(None)) if n not in ("owner", "changes"))


_PART_TYPES = {"source": DataSource, "inputs": PublicInputs, "settings": RunSettings, "run_state": RunState}
#: part -> its fields (``_fields``)
PART_FIELDS = {name: _fields(part) for name, part in _PART_TYPES.items()}
#: part -> the fields and methods it owns, each read and set through ``Project``
PARTS = {
    name: PART_FIELDS[name] + tuple(n for n in vars(part) if not n.startswith("__"))
    for name, part in _PART_TYPES.items()
}
for _part, _names in PARTS.items():
    for _name in _names:
        setattr(Project, _name, _Forward(_part, _name))


#: the project's vocabulary is imported from here too (``model.project.vocabulary``)
__all__ = [
    "PARTS",
    "PART_FIELDS",
    "Project",
    "ReleaseConfirmation",
    "RunSetup",
    "CATEGORICAL",
    "CLASS",
    "CODE_LIMIT",
    "DEFAULT_MISSING_TOKEN",
    "DRAWN_HERE",
    "DROP_MISSING",
    "EDITED_HERE",
    "FIELDS",
    "FILE_FORMAT",
    "FILE_SUFFIX",
    "IGNORE",
    "KEEP_MISSING",
    "MISSING_CHOICES",
    "MODES",
    "NUMERIC",
    "QUASI_IDENTIFIER",
    "RELEASE",
    "ROLES",
    "SCHEMA_VERSION",
    "TEACHING",
    "TYPES",
    "ProjectError",
    "authored_here",
    "edited_provenance",
    "file_sha256",
    "merged_provenance",
    "taxonomy_from_dict",
    "taxonomy_to_dict",
]
