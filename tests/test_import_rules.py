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


def _imports_of(path, package: str) -> set[str]:
    """Every dpstudio module ``path`` imports, at the top or inside functions (relative imports resolved)."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("dpstudio")}


def test_gui_app_and_demo_do_not_import_each_other():
    from pathlib import Path

    import dpstudio.gui

    folder = Path(dpstudio.gui.__path__[0])
    app = _imports_of(folder / "app.py", "dpstudio.gui")
    demo = _imports_of(folder / "demo.py", "dpstudio.gui")
    assert not ("dpstudio.gui.demo" in app and "dpstudio.gui.app" in demo), "gui/app.py and gui/demo.py import each other"
