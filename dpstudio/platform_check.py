"""Before the studio opens a window: which system libraries does Qt's X11 (xcb) platform plugin lack?

Qt's pip wheels bundle Qt itself but not the X11/xcb, OpenGL, font and D-Bus libraries of the system; on a
bare Debian or Ubuntu the plugin then fails with "Could not load the Qt platform plugin xcb", and Qt often
names the wrong library. This module finds the missing ones first (``ldd`` on the plugin and the Qt
libraries it loads, plus libraries Qt opens at run time that ``ldd`` cannot see), maps each to its package,
and installs them with the system's package manager when it may (root, or ``sudo -n``), saying what it
runs; otherwise it prints the one-line install command and exits 1.

    python -m dpstudio.platform_check            # check, install if possible (scripts/start runs this)
    python -m dpstudio.platform_check --no-install

Qt-free on purpose (it must run when Qt cannot load): it finds PySide6's files without importing it.
No data is read; nothing here touches privacy.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# library file -> (Debian/Ubuntu package, Fedora/RHEL package)
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libpng16.so.16": ("libpng16-16", "libpng"),
    "libexpat.so.1": ("libexpat1", "expat"),
    "libz.so.1": ("zlib1g", "zlib"),
    "libzstd.so.1": ("libzstd1", "libzstd"),
}

# Opened by Qt with dlopen at run time, so ldd does not list them (libxcb-cursor since Qt 6.5).
DLOPENED = ("libxcb-cursor.so.0", "libEGL.so.1", "libGL.so.1")

# Qt libraries the studio loads besides the plugin (their own dependencies count too).
QT_LIBS = ("libQt6XcbQpa.so.6", "libQt6Gui.so.6", "libQt6Widgets.so.6", "libQt6OpenGL.so.6", "libQt6DBus.so.6")


@dataclass(frozen=True)
class Manager:
    """A system package manager: its name, how it installs, which column of PACKAGES it uses."""

    name: str
    install: tuple[str, ...]
    refresh: tuple[str, ...] | None
    column: int


MANAGERS = (
    Manager("apt-get", ("apt-get", "install", "-y", "--no-install-recommends"), ("apt-get", "update"), 0),
    Manager("dnf", ("dnf", "install", "-y"), None, 1),
)


def applies(platform: str = sys.platform, env: dict[str, str] | None = None) -> bool:
    """True where the studio would use the xcb plugin: Linux, and QT_QPA_PLATFORM unset or naming xcb.

    Wayland sessions are checked as xcb too (Qt falls back to xcb, and the libraries are small)."""
    env = os.environ if env is None else env
    if not platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    return not chosen or "xcb" in chosen


def qt_dir() -> Path | None:
    """PySide6's Qt directory (plugins/ and lib/), found without importing PySide6."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "Qt"


def run_ldd(path: Path) -> str:
    """``ldd``'s output for one file ("" when ldd is absent or fails)."""
    if shutil.which("ldd") is None:
        return ""
    done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    return done.stdout


def not_found(ldd_output: str) -> list[str]:
    """The libraries ldd reports as "not found", in order."""
    names = []
    for line in ldd_output.splitlines():
        if "=> not found" in line:
            names.append(line.split("=>")[0].strip())
    return names


def loadable(name: str) -> bool:
    """Whether the dynamic loader finds this library."""
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def missing_libraries(
    qt: Path | None,
    ldd: Callable[[Path], str] = run_ldd,
    can_load: Callable[[str], bool] = loadable,
) -> list[str]:
    """Every system library the xcb plugin or the Qt libraries lack, each once, in the order found."""
    missing: list[str] = []
    if qt is None:
        return missing
    files = [qt / "plugins" / "platforms" / "libqxcb.so"] + [qt / "lib" / name for name in QT_LIBS]
    for path in files:
        if path.exists():
            missing += [n for n in not_found(ldd(path)) if not n.startswith("libQt6") and n not in missing]
    missing += [n for n in DLOPENED if n not in missing and not can_load(n)]
    return missing


def find_manager(which: Callable[[str], str | None] = shutil.which) -> Manager | None:
    """The first package manager of MANAGERS present on this system."""
    return next((m for m in MANAGERS if which(m.name)), None)


def packages_for(missing: Sequence[str], manager: Manager) -> tuple[list[str], list[str]]:
    """(packages to install, libraries with no known package), without repeats."""
    packages: list[str] = []
    unknown: list[str] = []
    for name in missing:
        if name in PACKAGES:
            package = PACKAGES[name][manager.column]
            if package not in packages:
                packages.append(package)
        else:
            unknown.append(name)
    return packages, unknown


def privilege_prefix(
    euid: int | None = None,
    which: Callable[[str], str | None] = shutil.which,
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
) -> list[str] | None:
    """[] as root, ["sudo", "-n"] where sudo works without a password, else None (cannot install)."""
    euid = os.geteuid() if euid is None else euid
    if euid == 0:
        return []
    if which("sudo") and run(["sudo", "-n", "true"], capture_output=True, check=False).returncode == 0:
        return ["sudo", "-n"]
    return None


def install_command(manager: Manager, packages: Sequence[str]) -> str:
    """The one-line command a person runs to install the packages."""
    return " ".join(["sudo", *manager.install, *packages])


def main(
    argv: Sequence[str] | None = None,
    *,
    qt: Path | None = None,
    ldd: Callable[[Path], str] = run_ldd,
    can_load: Callable[[str], bool] = loadable,
    which: Callable[[str], str | None] = shutil.which,
    euid: int | None = None,
    run: Callable[..., subprocess.CompletedProcess] = subprocess.run,
    platform: str = sys.platform,
    env: dict[str, str] | None = None,
) -> int:
    """Check, and install where allowed. 0: nothing missing or installed; 1: missing (the command was printed)."""
    parser = argparse.ArgumentParser(prog="python -m dpstudio.platform_check", description=__doc__.split("\n")[0])
    parser.add_argument("--no-install", action="store_true", help="only check and print the install command")
    args = parser.parse_args(argv)
    if not applies(platform, env):
        return 0
    missing = missing_libraries(qt if qt is not None else qt_dir(), ldd, can_load)
    if not missing:
        return 0
    print(f"Qt's X11 plugin needs system libraries that are missing: {', '.join(missing)}", file=sys.stderr)
    manager = find_manager(which)
    if manager is None:
        print(
            "no apt-get or dnf here: install the packages that provide these libraries, then run again.",
            file=sys.stderr,
        )
        return 1
    packages, unknown = packages_for(missing, manager)
    if unknown:
        print(f"no known package for {', '.join(unknown)}: install it with your package manager.", file=sys.stderr)
    if not packages:
        return 1
    command = install_command(manager, packages)
    prefix = None if args.no_install else privilege_prefix(euid, which, run)
    if prefix is None:
        print(f"install them with:\n    {command}\nthen run scripts/start again.", file=sys.stderr)
        return 1
    steps = ([[*prefix, *manager.refresh]] if manager.refresh else []) + [[*prefix, *manager.install, *packages]]
    for step in steps:
        print(f"running: {' '.join(step)}", file=sys.stderr)
        if run(step, check=False).returncode != 0:
            print(f"that failed; install them yourself with:\n    {command}", file=sys.stderr)
            return 1
    still = missing_libraries(qt if qt is not None else qt_dir(), ldd, can_load)
    if still:
        print(f"still missing after the install: {', '.join(still)}", file=sys.stderr)
        return 1
    print("installed; starting the studio.", file=sys.stderr)
    return 0 if not unknown else 1


if __name__ == "__main__":
    sys.exit(main())
