"""Packaging recipes: the desktop entry, the PyInstaller spec and its bundle layout, the icon.

PyInstaller itself is never run here; the layout the spec asks for is checked against what dpstudio and
OpenDP look for at run time.
"""

from __future__ import annotations

import ast
import configparser
import importlib.util
import shlex
import sys
import xml.etree.ElementTree as ET
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def layout():
    spec = importlib.util.spec_from_file_location("bundle_layout", PACKAGING / "bundle_layout.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def scripts() -> dict[str, str]:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["scripts"]


@pytest.fixture(scope="module")
def desktop() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # desktop entry keys are case-sensitive
    parser.read(PACKAGING / "dpstudio.desktop", encoding="utf-8")
    return parser["Desktop Entry"]


# -- desktop entry ------------------------------------------------------------------------------------------
def test_desktop_entry_has_required_keys(desktop):
    assert desktop["Type"] == "Application"
    assert desktop["Name"] == "dpstudio"
    assert desktop["Comment"].strip()
    assert desktop["Terminal"] == "false"
    categories = desktop["Categories"]
    assert categories.endswith(";")
    assert {"Science", "Education"} <= set(filter(None, categories.split(";")))
    assert "text/csv" in desktop["MimeType"].split(";")


def test_desktop_exec_runs_the_declared_console_script_gui_on_one_file(desktop, scripts):
    argv = shlex.split(desktop["Exec"])
    assert argv[0] in scripts, f"Exec runs {argv[0]!r}, pyproject declares {sorted(scripts)}"
    assert scripts[argv[0]] == "dpstudio.cli:main"
    assert desktop["TryExec"] == argv[0]
    # the field code %f stands for one local file: the gui subcommand must take it as its data argument
    assert argv[1:] == ["gui", "%f"]
    from dpstudio.cli import SUBCOMMANDS, build_parser

    assert "gui" in SUBCOMMANDS
    args = build_parser().parse_args(["gui", "/home/someone/table.csv"])
    assert args.data == "/home/someone/table.csv"


def test_desktop_icon_names_the_bundled_svg(desktop):
    assert (ROOT / "dpstudio" / "resources" / "icons" / f"{desktop['Icon']}.svg").is_file()


# -- icon ---------------------------------------------------------------------------------------------------
def test_icon_is_well_formed_square_svg():
    root = ET.parse(ROOT / "dpstudio" / "resources" / "icons" / "dpstudio.svg").getroot()
    assert root.tag == f"{SVG_NS}svg"
    x, y, w, h = (float(v) for v in root.attrib["viewBox"].split())
    assert (x, y) == (0, 0) and w == h > 0
    assert root.findall(f".//{SVG_NS}circle") and root.findall(f".//{SVG_NS}rect")


# -- spec ---------------------------------------------------------------------------------------------------
def _spec_tree() -> ast.Module:
    source = (PACKAGING / "dpstudio.spec").read_text(encoding="utf-8")
    compile(source, "dpstudio.spec", "exec")
    return ast.parse(source)


def _call(tree: ast.Module, name: str) -> ast.Call:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == name]
    assert len(calls) == 1, f"expected one {name}(...) call in the spec"
    return calls[0]


def _names(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)} | {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name)
    }


def _assigned(tree: ast.Module, target: str) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(getattr(t, "id", None) == target for t in targets):
                found |= _names(node.value)
    return found


def test_spec_compiles_and_wires_entry_resources_opendp_and_hidden_imports():
    tree = _spec_tree()
    analysis = _call(tree, "Analysis")
    keywords = {k.arg: k.value for k in analysis.keywords}
    assert "ENTRY_SCRIPT" in _names(analysis.args[0])
    assert "REPO" in _names(keywords["pathex"])  # the editable install's import hook is invisible to PyInstaller
    assert getattr(keywords["datas"], "id", None) == "datas"
    assert "resource_datas" in _assigned(tree, "datas")
    assert "opendp_library_binaries" in _assigned(tree, "binaries")
    assert "dpstudio_hidden_imports" in _assigned(tree, "hiddenimports")
    assert "EXCLUDES" in _names(keywords["excludes"])
    exe = {k.arg: k.value for k in _call(tree, "EXE").keywords}
    assert "APP_NAME" in _names(exe["name"])
    assert exe["console"].value is True  # the headless CLI must be able to print


def test_entry_script_calls_the_console_script_target(layout, scripts):
    assert scripts[layout.APP_NAME] == layout.ENTRY_POINT
    module, func = layout.ENTRY_POINT.split(":")
    tree = ast.parse(layout.ENTRY_SCRIPT.read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == module]
    assert [a.name for n in imports for a in n.names] == [func]
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert func in called


# -- bundle layout ------------------------------------------------------------------------------------------
def test_bundled_resources_land_where_dpstudio_resources_looks(layout, tmp_path, monkeypatch):
    """Rebuild the bundle's layout (sys._MEIPASS) from the spec's datas and let resources.py find it."""
    monkeypatch.delenv("DPSTUDIO_RESOURCES", raising=False)
    bundle = tmp_path / "_internal"
    for src, dest in layout.resource_datas():
        assert Path(src).is_dir()
        (bundle / dest).parent.mkdir(parents=True, exist_ok=True)
        (bundle / dest).symlink_to(src, target_is_directory=True)

    init = bundle / "dpstudio" / "resources" / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        "frozen_resources", init, submodule_search_locations=[str(init.parent)]
    )
    frozen = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "frozen_resources", frozen)
    spec.loader.exec_module(frozen)
    assert frozen.resources_dir() == bundle / "dpstudio" / "resources"
    assert frozen.resource("icons", "dpstudio.svg").is_file()
    assert frozen.resource("taxonomies", "adult", "bounds.json").is_file()


def test_opendp_native_library_lands_where_opendp_loads_it(layout):
    binaries = layout.opendp_library_binaries()
    import opendp._lib as opendp_lib  # loading it proves the source file is a working library

    package_dir = Path(opendp_lib.__file__).resolve().parent
    expected_dest = (package_dir / "lib").relative_to(package_dir.parent).as_posix()
    assert {dest for _, dest in binaries} == {expected_dest}
    # opendp._lib insists on exactly one matching binary in that folder
    names = [Path(src).name for src, _ in binaries]
    suffixes = EXTENSION_SUFFIXES + [".dylib"]
    loadable = [n for n in names if "derive" not in n and any(n.endswith(s) for s in suffixes)]
    assert len(loadable) == 1
    assert Path(opendp_lib.lib_path).resolve() == Path(binaries[names.index(loadable[0])][0]).resolve()


def test_hidden_imports_cover_modules_imported_by_name(layout):
    hidden = set(layout.dpstudio_hidden_imports())
    from dpstudio.cli import SUBCOMMANDS
    from dpstudio.gui.panels import PANELS

    for module in SUBCOMMANDS.values():
        if (ROOT / "dpstudio" / "cli" / f"{module}.py").exists():
            assert f"dpstudio.cli.{module}" in hidden
    for module, _cls in PANELS.values():
        if (ROOT / "dpstudio" / "gui" / "panels" / f"{module}.py").exists():
            assert f"dpstudio.gui.panels.{module}" in hidden
    assert "dpstudio.__main__" not in hidden
    for name in hidden:
        assert importlib.util.find_spec(name) is not None, name


def test_excludes_keep_other_qt_bindings_out(layout):
    assert {"PyQt5", "PyQt6", "PySide2"} <= set(layout.EXCLUDES)
    for needed in ("PySide6", "pyqtgraph", "opendp", "numpy", "pandas", "sklearn", "scipy"):
        assert needed not in layout.EXCLUDES
