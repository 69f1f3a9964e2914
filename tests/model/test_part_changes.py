"""Each part of ``Project`` owns its change events (issue 31, napari's ``ViewerModel`` pattern): a part declares
the fields it announces and emits them itself (``model.project.changes``); the project only connects them to
its subscribers and to the reactions between parts. The guard refuses a part that notifies through the project,
proven on every form of the violation planted in a part's source."""

from __future__ import annotations

import ast
import copy
from fractions import Fraction
from pathlib import Path

import pytest

from dpstudio.model.project.project import PARTS, Project
from dpstudio.model.project.run_settings import RunSettings
from dpstudio.model.project.vocabulary import FIELDS

PROJECT = Path(__file__).resolve().parents[2] / "dpstudio" / "model" / "project"
PART_MODULES = {
    "source": "source.py",
    "inputs": "inputs.py",
    "settings": "run_settings.py",
    "run_state": "run_state.py",
}
#: the project's notifier: a part that calls these announces through the project instead of its own changes
NOTIFIER = {"notify", "_changed", "set_dirty", "subscribe", "unsubscribe", "_on_part"}


def notifies_through_owner(source: str) -> list[str]:
    """Each place in ``source`` that reaches the project's notifier through ``owner`` (``self.owner.notify(..)``,
    an alias of the owner, or ``getattr(owner, "notify")``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in NOTIFIER:
            base = node.value
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
            if name == "owner":
                found.append(f"line {node.lineno}: owner.{node.attr}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and len(node.args) >= 2:
            target, attr = node.args[0], node.args[1]
            owner = (isinstance(target, ast.Attribute) and target.attr == "owner") or getattr(
                target, "id", ""
            ) == "owner"
            if owner and isinstance(attr, ast.Constant) and attr.value in NOTIFIER:
                found.append(f"line {node.lineno}: getattr(owner, {attr.value!r})")
    return found


def test_no_part_notifies_through_the_project():
    assert set(PART_MODULES) == set(PARTS)
    for part, module in PART_MODULES.items():
        assert notifies_through_owner((PROJECT / module).read_text()) == [], part


@pytest.mark.parametrize(
    "planted",
    [
        'self.owner.notify("run")',
        'self.owner._changed("algorithm")',
        "self.owner.set_dirty(True)",
        "self.owner.subscribe(print)",
        'owner = self.owner\n        owner.notify("run")',
        'getattr(self.owner, "notify")("run")',
        'getattr(owner, "_changed")("mode")',
    ],
)
def test_the_guard_catches_every_planted_form(planted):
    source = (PROJECT / "run_settings.py").read_text()
    marker = "    def set_seed(self, seed: int) -> None:\n"
    assert marker in source
    planted_source = source.replace(marker, marker + f"        {planted}\n", 1)
    assert notifies_through_owner(planted_source)


def test_every_part_declares_what_it_announces():
    p = Project()
    declared = [f for name in PARTS for f in getattr(p, name).changes.fields]
    assert len(declared) == len(set(declared))  # each field announced by one part
    assert set(declared) <= set(FIELDS)
    # the project itself announces only a load of data, its file and its unsaved state
    assert set(FIELDS) - set(declared) == {"data", "dirty", "path"}
    with pytest.raises(ValueError, match="not a field this part announces"):
        p.settings.changes.emit("roles")


def test_a_part_announces_its_changes_without_a_project():
    class Reader:  # the one thing the settings part reads from others: the attributes (none here)
        def attributes(self, role):
            return []

        types: dict = {}

    settings = RunSettings(Reader())
    heard = []
    settings.changes.connect(lambda field, dirty: heard.append((field, dirty)))
    settings.set_epsilon("0.5")
    settings.set_algorithm("hb", {})
    settings.set_split([Fraction(1, 5), Fraction(3, 10)])
    settings.set_mode("release")
    assert heard == [("epsilon", True), ("algorithm", True), ("algorithm", True), ("mode", True)]


def test_the_project_relays_its_parts_and_reacts_between_them():
    p = Project()
    heard = []
    p.subscribe(heard.append)
    p.set_mode("release")
    assert heard[:2] == ["run", "mode"]  # the last run is forgotten before the mode is announced
    assert p.dirty and "dirty" in heard


def test_a_copys_changes_reach_the_copy_only():
    p = Project()
    heard = []
    p.subscribe(heard.append)
    clone = copy.copy(p)
    clone.set_epsilon(2)
    assert heard == [] and p.epsilon == 1 and clone.epsilon == 2
    p.set_epsilon(3)
    assert heard == ["epsilon", "dirty"]
