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
    import ast
    from pathlib import Path

    for path in Path(dpstudio.io.__path__[0]).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                name = ("." * node.level) + (node.module or "")
                names = [name] + [f"{name}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for n in names:
                assert not n.startswith(("dpstudio.model", "dpstudio.gui", "..model", "..gui")), \
                    f"{path.name} imports {n}"


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
