"""Import rules of DESIGN.md and the PySide6 6.12.0 / Python 3.11 guard."""

import subprocess
import sys

QT_PREFIXES = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "shiboken6")


def _loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return set(out.split())


def test_core_loads_no_qt_pandas_or_sklearn():
    import pkgutil

    import dpstudio.core

    mods = ["dpstudio.core." + m.name for m in pkgutil.iter_modules(dpstudio.core.__path__)]
    loaded = _loaded_after_import(", ".join(mods))
    bad = {m for m in loaded if m.split(".")[0] in QT_PREFIXES + ("pandas", "sklearn")}
    assert not bad, f"dpstudio.core imported {sorted(bad)}"


def test_algorithms_load_no_qt_pandas_or_sklearn():
    import pkgutil

    import dpstudio.algorithms

    mods = ["dpstudio.algorithms." + m.name for m in pkgutil.iter_modules(dpstudio.algorithms.__path__)]
    if not mods:
        return
    loaded = _loaded_after_import(", ".join(mods))
    bad = {m for m in loaded if m.split(".")[0] in QT_PREFIXES + ("pandas", "sklearn")}
    assert not bad, f"dpstudio.algorithms imported {sorted(bad)}"


def test_io_does_not_import_model_or_gui():
    """io sits below model (it is handed what it writes: e.g. the report's ReportFacts)."""
    import pkgutil

    import dpstudio.io

    mods = ["dpstudio.io." + m.name for m in pkgutil.iter_modules(dpstudio.io.__path__)]
    loaded = _loaded_after_import(", ".join(mods))
    bad = {m for m in loaded if m.startswith(("dpstudio.model", "dpstudio.gui"))}
    assert not bad, f"dpstudio.io imported {sorted(bad)}"
    # imports inside functions too (they load only when called)
    from pathlib import Path

    for path in Path(dpstudio.io.__path__[0]).glob("*.py"):
        bad = {m for m in _imports_of(path, "dpstudio.io") if m.startswith(("dpstudio.model", "dpstudio.gui"))}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_pyside6_version_pin_for_python_311():
    import PySide6

    version = tuple(int(x) for x in PySide6.__version__.split(".")[:2])
    if sys.version_info < (3, 12):
        assert version < (6, 12), "PySide6 6.12 crashes on Python 3.11 (DESIGN.md): pin below 6.12"


def test_qt_void_calls_do_not_steal_references_to_none():
    from PySide6 import QtGui

    pen = QtGui.QPen()
    before = sys.getrefcount(None)
    for _ in range(100):
        pen.setWidthF(1.0)
    assert sys.getrefcount(None) >= before


def _imports_of(path, package: str, keep: tuple = ("dpstudio",)) -> set[str]:
    """Every module ``path`` imports, at the top or inside functions (relative imports resolved; for
    ``from a import b`` both ``a`` and ``a.b``), of the top-level packages ``keep``."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = set()  # ``if TYPE_CHECKING:`` blocks load nothing at run time
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.split(".")[0] in keep}


def test_gui_app_and_demo_do_not_import_each_other():
    from pathlib import Path

    import dpstudio.gui

    folder = Path(dpstudio.gui.__path__[0])
    app = _imports_of(folder / "app.py", "dpstudio.gui")
    demo = _imports_of(folder / "demo.py", "dpstudio.gui")
    assert not ("dpstudio.gui.demo" in app and "dpstudio.gui.app" in demo), (
        "gui/app.py and gui/demo.py import each other"
    )


# -- the layers, every import (inside functions too), no cycles ---------------------------------------------
#: core < algorithms < io, evaluation < model < gui, cli (resources: files only, usable by every layer)
LAYERS = {
    "api": 4,
    "core": 0,
    "resources": 0,
    "algorithms": 1,
    "io": 2,
    "evaluation": 2,
    "model": 3,
    "gui": 4,
    "cli": 4,
    "platform_check": 4,
    "__main__": 4,
}
#: the one place cli reaches the studio: ``dpstudio gui`` starts it
LAUNCHER = ("dpstudio.cli.gui", "dpstudio.gui.app")
QT_FREE = ("core", "algorithms", "io", "evaluation", "model", "api")


def module_graph(package_dir):
    """{module: (path, package modules and Qt modules it imports anywhere in the file)} for the package at
    ``package_dir``."""
    from pathlib import Path

    root = Path(package_dir)
    top = root.name
    mods = {}
    for path in root.rglob("*.py"):
        parts = (top,) + path.relative_to(root).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in mods.items():
        pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for m in _imports_of(path, pkg, (top,) + QT_PREFIXES):
            if m.split(".")[0] == top:  # ``from a.b import Name``: the module is a.b, the longest known prefix
                while m not in mods and "." in m:
                    m = m.rsplit(".", 1)[0]
                if m not in mods:
                    continue
            found.add(m)
        found = {m for m in found if not any(o.startswith(m + ".") for o in found)}  # a.b, not also a
        graph[name] = (path, found - {name})
    return graph


def layer_violations(package_dir) -> list[str]:
    """Every import that breaks the layers, Qt outside the studio, and every import cycle."""
    graph = module_graph(package_dir)
    top = next(iter(graph)).split(".")[0]

    def layer(m):
        part = m.split(".")[1] if "." in m else None
        return LAYERS.get(part)

    bad = []
    for m, (_, targets) in sorted(graph.items()):
        lm = layer(m)
        for t in sorted(targets):
            if t.split(".")[0] in QT_PREFIXES:
                if m.split(".")[1:2] and m.split(".")[1] in QT_FREE:
                    bad.append(f"{m} imports {t} (Qt outside gui)")
                continue
            lt = layer(t)
            if lm is None or lt is None:
                continue
            if (m, t) == LAUNCHER or (m.startswith(LAUNCHER[0]) and t == f"{top}.gui"):
                continue
            if lt > lm:
                bad.append(f"{m} imports {t} (layer {lt} above {lm})")
            elif {m.split(".")[1], t.split(".")[1]} == {"gui", "cli"}:
                bad.append(f"{m} imports {t} (gui and cli are separate front ends)")
    # cycles: a module importing its own package's __init__ is not an edge (the package loads first)
    edges = {m: {t for t in targets if t in graph and not m.startswith(t + ".")} for m, (_, targets) in graph.items()}
    index, low, stack, on, counter = {}, {}, [], set(), [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                bad.append("import cycle: " + " <-> ".join(sorted(comp)))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for v in sorted(edges):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return bad


def test_every_import_keeps_the_layers_and_no_cycle():
    from pathlib import Path

    import dpstudio

    assert layer_violations(Path(dpstudio.__file__).parent) == []


def test_the_layer_check_finds_planted_violations(tmp_path):
    import shutil
    from pathlib import Path

    import dpstudio

    copy = tmp_path / "dpstudio"
    shutil.copytree(Path(dpstudio.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    # an upward import inside a function, Qt in the model, gui reaching the cli, and a cycle
    (copy / "core" / "planted.py").write_text("def f():\n    from dpstudio.model import project\n")
    (copy / "model" / "planted_qt.py").write_text("from PySide6 import QtCore\n")
    (copy / "gui" / "planted_cli.py").write_text("import dpstudio.cli.release\n")
    (copy / "io" / "cycle_a.py").write_text("from dpstudio.io import cycle_b\n")
    (copy / "io" / "cycle_b.py").write_text("def g():\n    from . import cycle_a\n")
    found = layer_violations(copy)
    assert any(v.startswith("dpstudio.core.planted imports dpstudio.model.project ") for v in found), found
    assert any(v.startswith("dpstudio.model.planted_qt imports PySide6") for v in found), found
    assert any(v.startswith("dpstudio.gui.planted_cli imports dpstudio.cli.release") for v in found), found
    assert "import cycle: dpstudio.io.cycle_a <-> dpstudio.io.cycle_b" in found, found
    assert len(found) == 4, found


# -- the same layers as import-linter contracts (pyproject.toml [tool.importlinter]) ------------------------
#: (file to plant, its text, the contract that must break): every form an import takes, at the top of a module
#: and inside a function
PLANTED = [
    ("model/planted.py", "from dpstudio.gui.worker import Worker\n", "Layers"),
    ("model/planted.py", "def f():\n    from dpstudio.gui.worker import Worker\n", "Layers"),
    ("model/planted.py", "def f():\n    from ..gui import worker\n", "Layers"),
    ("model/planted.py", "import dpstudio.gui.worker\n", "Layers"),
    ("core/planted.py", "def f():\n    from dpstudio.model.project.project import Project\n", "Layers"),
    ("algorithms/planted.py", "from dpstudio.io.release import write_release\n", "Layers"),
    ("io/planted.py", "def f():\n    from dpstudio.model.release.service import ReleaseService\n", "Layers"),
    ("gui/planted.py", "from dpstudio.cli.release import main\n", "Layers"),
    ("cli/planted.py", "def f():\n    from dpstudio.gui.worker import Worker\n", "Layers"),
    ("model/planted.py", "from PySide6.QtCore import QObject\n", "No Qt below the studio"),
    ("io/planted.py", "def f():\n    import pyqtgraph\n", "No Qt below the studio"),
    ("cli/planted.py", "from shiboken6 import isValid\n", "No Qt below the studio"),
    ("core/planted.py", "def f():\n    from pandas import DataFrame\n", "core and algorithms"),
    ("algorithms/planted.py", "from sklearn.tree import DecisionTreeClassifier\n", "core and algorithms"),
]


def _lint_imports(package_parent, config):
    import os
    import shutil

    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which("lint-imports")
    assert exe, "import-linter is not installed (scripts/setup-env test installs it)"
    env = {**os.environ, "PYTHONPATH": str(package_parent), "COLUMNS": "400"}
    return subprocess.run([exe, str(config), "--no-cache"], cwd=package_parent, env=env, capture_output=True, text=True)


def test_import_linter_contracts_hold():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = _lint_imports(root, root / "pyproject.toml")
    assert out.returncode == 0, out.stdout + out.stderr


def test_import_linter_fails_on_every_planted_violation(tmp_path):
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    clean = tmp_path / "clean"
    shutil.copytree(root / "dpstudio", clean / "dpstudio", ignore=shutil.ignore_patterns("__pycache__", "resources"))
    assert _lint_imports(clean, root / "pyproject.toml").returncode == 0
    for i, (where, text, contract) in enumerate(PLANTED):
        copy = tmp_path / f"copy{i}"
        shutil.copytree(clean, copy)
        (copy / "dpstudio" / where).write_text(text)
        out = _lint_imports(copy, root / "pyproject.toml")
        planted = "dpstudio." + where.removesuffix(".py").replace("/", ".")
        assert out.returncode != 0, f"{where}: {text!r} passed the linter"
        broken = [line for line in out.stdout.splitlines() if " BROKEN" in line]
        assert any(b.startswith(contract) for b in broken), out.stdout
        assert f"- {planted} -> " in out.stdout or f"  {planted} -> " in out.stdout, out.stdout
