"""scripts/start's check of the system libraries Qt's xcb plugin needs (dpstudio.platform_check)."""

import subprocess
import sys
from pathlib import Path

from dpstudio import platform_check as pc

LDD_OK = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-icccm.so.4 => /lib/x86_64-linux-gnu/libxcb-icccm.so.4 (0x00007f)
\tlibQt6Gui.so.6 => /x/Qt/lib/libQt6Gui.so.6 (0x00007f)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
"""
LDD_MISSING = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibQt6XcbQpa.so.6 => /x/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
"""


def fake_qt(tmp_path: Path) -> Path:
    qt = tmp_path / "Qt"
    (qt / "plugins" / "platforms").mkdir(parents=True)
    (qt / "lib").mkdir()
    (qt / "plugins" / "platforms" / "libqxcb.so").write_bytes(b"")
    (qt / "lib" / "libQt6Widgets.so.6").write_bytes(b"")
    return qt


class Recorder:
    def __init__(self, returncode=0):
        self.calls = []
        self.returncode = returncode

    def __call__(self, cmd, **kwargs):
        self.calls.append(list(cmd))
        return subprocess.CompletedProcess(cmd, self.returncode)


def apt_only(name):
    return "/usr/bin/" + name if name == "apt-get" else None


def test_missing_libraries_give_the_exact_apt_command_when_not_allowed_to_install(tmp_path, capsys):
    qt = fake_qt(tmp_path)
    run = Recorder()
    code = pc.main(
        [],
        qt=qt,
        ldd=lambda p: LDD_MISSING if p.name == "libqxcb.so" else LDD_OK,
        can_load=lambda name: name != "libxcb-cursor.so.0",
        which=apt_only,
        euid=1000,
        run=run,
        platform="linux",
        env={},
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "sudo apt-get install -y --no-install-recommends libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0" in err
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1, libxcb-cursor.so.0" in err
    assert run.calls == []  # no sudo in which(): nothing was run, not even "sudo -n true"


def test_as_root_it_installs_with_apt_and_says_what_it_runs(tmp_path, capsys):
    qt = fake_qt(tmp_path)
    installed = {"done": False}
    run = Recorder()

    def ldd(path):
        return LDD_OK if installed["done"] or path.name != "libqxcb.so" else LDD_MISSING

    def recording_run(cmd, **kwargs):
        if "install" in cmd:
            installed["done"] = True
        return run(cmd, **kwargs)

    code = pc.main(
        [], qt=qt, ldd=ldd, can_load=lambda n: True, which=apt_only, euid=0, run=recording_run, platform="linux", env={}
    )
    err = capsys.readouterr().err
    assert code == 0
    assert run.calls == [
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "--no-install-recommends", "libxcb-icccm4", "libxcb-keysyms1"],
    ]
    assert "running: apt-get install -y --no-install-recommends libxcb-icccm4 libxcb-keysyms1" in err


def test_dnf_names_and_passwordless_sudo(tmp_path, capsys):
    qt = fake_qt(tmp_path)
    run = Recorder()
    which = {"dnf": "/usr/bin/dnf", "sudo": "/usr/bin/sudo"}.get
    code = pc.main(
        [],
        qt=qt,
        ldd=lambda p: LDD_MISSING,
        can_load=lambda n: True,
        which=which,
        euid=1000,
        run=run,
        platform="linux",
        env={},
    )
    assert code == 1  # the fake ldd still reports them missing after the install
    assert run.calls[0] == ["sudo", "-n", "true"]
    assert run.calls[1] == ["sudo", "-n", "dnf", "install", "-y", "xcb-util-wm", "xcb-util-keysyms"]
    assert "still missing" in capsys.readouterr().err


def test_nothing_is_run_when_every_library_is_present(tmp_path, capsys):
    qt = fake_qt(tmp_path)
    run = Recorder()
    code = pc.main(
        [],
        qt=qt,
        ldd=lambda p: LDD_OK,
        can_load=lambda n: True,
        which=apt_only,
        euid=0,
        run=run,
        platform="linux",
        env={},
    )
    assert code == 0
    assert run.calls == []
    assert capsys.readouterr().err == ""


def test_skipped_offscreen_and_off_linux(tmp_path):
    qt = fake_qt(tmp_path)

    def ldd(path):
        raise AssertionError("ldd must not run when the check does not apply")

    for platform, env in (("linux", {"QT_QPA_PLATFORM": "offscreen"}), ("darwin", {}), ("win32", {})):
        assert pc.main([], qt=qt, ldd=ldd, can_load=lambda n: False, platform=platform, env=env) == 0
    assert pc.applies("linux", {"QT_QPA_PLATFORM": "xcb"})
    assert pc.applies("linux", {})


def test_failed_install_prints_the_command(tmp_path, capsys):
    qt = fake_qt(tmp_path)
    code = pc.main(
        [],
        qt=qt,
        ldd=lambda p: LDD_MISSING,
        can_load=lambda n: True,
        which=apt_only,
        euid=0,
        run=Recorder(returncode=100),
        platform="linux",
        env={},
    )
    assert code == 1
    assert "install them yourself with:\n    sudo apt-get install -y --no-install-recommends libxcb-icccm4" in (
        capsys.readouterr().err
    )


def test_runs_as_a_module_without_loading_qt_on_this_machine():
    code = "import runpy, sys; sys.argv=['x','--no-install']\ntry:\n runpy.run_module('dpstudio.platform_check', run_name='__main__')\nexcept SystemExit as e:\n print('exit', e.code)\nprint('qt' , any(m.startswith('PySide6') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "qt False" in out
    assert "exit " in out


def test_start_script_runs_the_check_before_the_window():
    start = (Path(__file__).resolve().parents[1] / "scripts" / "start").read_text()
    assert start.index("dpstudio.platform_check") < start.index("dpstudio gui")
