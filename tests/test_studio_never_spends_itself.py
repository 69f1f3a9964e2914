"""The studio's panels never settle a spend themselves: they drive a run session of the model
(``model.release.session.RunSession`` for tables and histograms, in this process or with the engine in
another, and ``model.stream.run.StreamRun`` for streams), which alone talks to the release service, the
budget store, the noise and the ledger, and alone records the run. A panel never calls the steps the
session is made of (``start_run``, ``record_run``, ``prepare_run``) nor runs an engine process itself.

The rule is checked on the source of every module under ``dpstudio/gui`` and proven by planting each form
of the violation (an import at the top or inside a function, of the name or of its module, and a ledger
built by hand).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dpstudio

GUI = Path(dpstudio.__file__).parent / "gui"

#: modules a panel must not import, and names it must not import from anywhere
FORBIDDEN_MODULES = ("dpstudio.model.release.service", "dpstudio.io.budget_store", "dpstudio.core.noise")
FORBIDDEN_NAMES = (
    "ReleaseService",
    "ReleaseRequest",
    "SecureNoise",
    "SimulationNoise",
    "open_store",
    "BudgetStore",
    "ChildRun",
    "prepare_run",
)
#: the run session's own steps: a panel that calls them bypasses the session
SESSION_STEPS = ("start_run", "record_run", "prepare_run", "ChildRun")


def _absolute(module: str | None, level: int, here: str) -> str:
    """``from ..x import y`` in package ``here`` as an absolute module name."""
    if not level:
        return module or ""
    parts = here.split(".")[: len(here.split(".")) - level + 1]
    return ".".join(parts + ([module] if module else []))


def spend_violations(source: str, package: str = "dpstudio.gui.panels") -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(FORBIDDEN_MODULES):
                    found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            for alias in node.names:
                full = f"{module}.{alias.name}"
                if module.startswith(FORBIDDEN_MODULES) or full.startswith(FORBIDDEN_MODULES):
                    found.append(f"line {node.lineno}: from {module} import {alias.name}")
                elif alias.name in FORBIDDEN_NAMES:
                    found.append(f"line {node.lineno}: imports {alias.name}")
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "Ledger":
                found.append(f"line {node.lineno}: builds a Ledger")
            elif name in SESSION_STEPS:
                found.append(f"line {node.lineno}: calls {name} (the run session's step)")
    return found


def test_no_panel_or_widget_talks_to_the_service_the_store_the_noise_or_the_ledger():
    bad = {}
    for path in sorted(GUI.rglob("*.py")):
        package = "dpstudio." + ".".join(path.relative_to(GUI.parent).with_suffix("").parts[:-1])
        hits = spend_violations(path.read_text(), package)
        if hits:
            bad[str(path.relative_to(GUI))] = hits
    assert bad == {}


@pytest.mark.parametrize(
    "planted",
    [
        "from dpstudio.model.release import ReleaseService\n",
        "def run(self):\n    from dpstudio.model.release.service import ReleaseService\n",
        "import dpstudio.model.release.service\n",
        "from dpstudio.model.release import service\n",
        "from ...model.release.service import RunSetup\n",
        "from dpstudio.io.budget_store import fraction_text\n",
        "def f():\n    from dpstudio.io import budget_store\n",
        "from dpstudio.io.budget_store import open_store\n",
        "from dpstudio.core.noise import SecureNoise\n",
        "def f():\n    import dpstudio.core.noise as n\n",
        "from dpstudio.core import noise\n",
        "from dpstudio.core.budget import Ledger\nledger = Ledger(1)\n",
        "import dpstudio.core.budget as b\nledger = b.Ledger(1)\n",
        "setup = project.start_run(answer)\n",
        "project.record_run(events, setup.ledger, True, None, snap, {}, None)\n",
        "from dpstudio.model.release.runs import prepare_run\n",
        "def f(p):\n    from dpstudio.model.release import runs\n    return runs.prepare_run(p)\n",
        "from dpstudio.model.release.run_process import ChildRun\n",
        "def f(p):\n    from dpstudio.model.release import run_process\n    return run_process.ChildRun(p)\n",
    ],
)
def test_the_rule_catches_every_planted_form(planted):
    assert spend_violations(planted), planted


def test_the_rule_lets_the_run_sessions_and_plain_figures_pass():
    ok = (
        "from dpstudio.model.stream.run import StreamRecord, StreamRun\n"
        "from dpstudio.model.release import ReleaseRefused\n"
        "from dpstudio.model.release.session import RunSession\n"
        "session = RunSession.in_child(project, snapshot)\n"
        "from dpstudio.core.budget import fraction_text\n"
        "from dpstudio.gui.widgets.ledger_view import LedgerView\n"
        "view = LedgerView()\n"
    )
    assert spend_violations(ok) == []
