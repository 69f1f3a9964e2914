"""Where each public input of a release came from (Qt-free), and the user's confirmations.

A release is private only if its domain is public knowledge: taxonomies, numeric bounds, the class
values, each attribute's type and numeric kind (integer or continuous), histogram bin edges and split grids. The studio lets the user take some of
them from the data (a flat tree of the data's values, "add uncovered values", bounds from the minimum and
maximum, types and numeric kinds read from the values, the class values proposed from the data). Such an input is marked **derived
from the data: not private** and keeps that mark through later edits, until the user confirms, for that
input, that it is public knowledge; the confirmation's wording is recorded (project file, release sidecar,
HTML report). A release-mode export with an unconfirmed derived input is refused.

Inputs are named by keys ``"<kind>:<attribute>"``. Bin edges are equal-width over an attribute's public
bounds and split grids are a numeric taxonomy's interval ends, so their provenance is that of the bounds
and of the taxonomy (``Project.release_inputs`` lists the keys a release depends on).
"""

from __future__ import annotations

from dataclasses import dataclass

TAXONOMY, BOUNDS, CLASSES, TYPE, KIND = "taxonomy", "bounds", "classes", "type", "kind"
KIND_WORDS = {
    TAXONOMY: "taxonomy of {a}",
    BOUNDS: "public bounds of {a}",
    CLASSES: "class values of {a}",
    TYPE: "type of {a}",
    KIND: "numeric kind of {a}",
}

DERIVED_NOTE = "derived from the data: not private (use it only if these values are public knowledge)"
FLAT_FROM_DATA = "flat tree from the data's values"
GROUPED_FROM_DATA = "two-level tree from the data's values (grouped by name)"
ADDED_FROM_DATA = "values added from the data (uncovered values)"
TYPE_FROM_DATA = "read from the data's values"
BOUNDS_FROM_DATA = "minimum and maximum of the data"
CLASSES_FROM_DATA = "the class values present in the data"
CLASSES_UNDECLARED = "not declared (a teaching run reads the class values present in the data)"
KIND_FROM_DATA = "read from the data's values (all whole numbers: integer, else continuous)"
ADULT_CLASSES = "declared: published in adult.names"
ADULT_TYPES = "declared: adult.names lists each attribute as continuous (numeric) or by its values (categorical)"
ADULT_TAXONOMIES = (
    "declared by the sample's documentation: dpstudio's Adult taxonomies "
    "(dpstudio/resources/taxonomies/adult), built from the value lists of adult.names"
)
ADULT_KINDS = (
    "declared: the published UCI Adult files hold whole numbers here (adult.names calls these "
    "attributes numeric, 'continuous')"
)


def key(kind: str, attribute: str) -> str:
    return f"{kind}:{attribute}"


def describe(input_key: str) -> str:
    """``"taxonomy:age"`` -> ``"taxonomy of age"``."""
    kind, _, attr = input_key.partition(":")
    return KIND_WORDS.get(kind, kind + " of {a}").format(a=attr)


@dataclass(frozen=True)
class Provenance:
    """Where one input came from. ``derived``: taken from the data (or edited with values taken from it);
    ``confirmed``: the wording with which the user confirmed it is public knowledge ("" = not confirmed)."""

    source: str
    derived: bool = False
    confirmed: str = ""

    @property
    def unconfirmed(self) -> bool:
        return self.derived and not self.confirmed

    def status(self) -> str:
        if not self.derived:
            return "public input"
        if self.confirmed:
            return "derived from the data; confirmed public knowledge"
        return "derived from the data: not private"

    def to_dict(self) -> dict:
        return {"source": self.source, "derived": self.derived, "confirmed": self.confirmed or None}

    @classmethod
    def from_dict(cls, d: dict) -> Provenance:
        return cls(str(d.get("source") or ""), bool(d.get("derived")), str(d.get("confirmed") or ""))


def default_wording(input_key: str, prov: Provenance) -> str:
    """The statement the studio offers the user to confirm (they may reword it)."""
    return (
        f"I confirm that the {describe(input_key)} ({prov.source}) is public knowledge, known without "
        "looking at the records of this data."
    )


__all__ = [
    "Provenance",
    "describe",
    "default_wording",
    "key",
    "TAXONOMY",
    "BOUNDS",
    "CLASSES",
    "TYPE",
    "KIND",
    "DERIVED_NOTE",
    "FLAT_FROM_DATA",
    "GROUPED_FROM_DATA",
    "ADDED_FROM_DATA",
    "TYPE_FROM_DATA",
    "BOUNDS_FROM_DATA",
    "CLASSES_FROM_DATA",
    "CLASSES_UNDECLARED",
    "KIND_FROM_DATA",
    "ADULT_CLASSES",
    "ADULT_KINDS",
    "ADULT_TAXONOMIES",
    "ADULT_TYPES",
]
