import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Property tests judge results, not speed: a loaded CI machine must not fail them on a per-example deadline.
settings.register_profile("dpstudio", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("dpstudio")

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (present in CI and on developers' machines)."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


# Tests never charge the user's budget store: a throwaway one for the session (set before any test module
# is imported), one per module (module-scoped fixtures that release), one per test (below).
_SESSION_STORE = tempfile.mkdtemp(prefix="dpstudio-tests-")
atexit.register(shutil.rmtree, _SESSION_STORE, ignore_errors=True)
os.environ["DPSTUDIO_BUDGET_STORE"] = str(Path(_SESSION_STORE) / "budget.sqlite")


@pytest.fixture(scope="module", autouse=True)
def _module_budget_store(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path_factory.mktemp("module-budget") / "budget.sqlite"))
        yield


@pytest.fixture(autouse=True)
def _budget_store(tmp_path_factory, monkeypatch):
    """Every test charges its own throwaway budget store, never the user's data directory."""
    path = tmp_path_factory.mktemp("budget-store") / "budget.sqlite"
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(path))
    return path


@pytest.fixture(autouse=True)
def _collect_as_the_studio_does():
    """Once the studio's GC policy exists only its timer on the GUI thread collects (dpstudio.gui.gc_policy),
    and a test that runs no event loop never lets it fire: each test's end collects what is due, as the
    timer would."""
    yield
    module = sys.modules.get("dpstudio.gui.gc_policy")
    policy = module.existing_gc_policy() if module is not None else None
    if policy is not None:
        policy.collect_due()


class UnexpectedDialog(AssertionError):
    """A modal dialog opened in a test that did not expect it (it would block an offscreen run)."""


@pytest.fixture(autouse=True)
def _no_unexpected_modal_dialogs(request, monkeypatch):
    """Fail, instead of hanging, when code under test opens a modal dialog nobody answers.

    Tests that expect a dialog monkeypatch it themselves (their patch replaces this one).
    """
    if "gui" not in request.node.nodeid and "model" not in request.node.nodeid:
        yield
        return
    from PySide6 import QtWidgets

    def refuse(name):
        def _refuse(*args, **kwargs):
            texts = [a for a in args if isinstance(a, str)]
            raise UnexpectedDialog(f"unexpected modal {name}({texts!r}) in a test")

        return staticmethod(_refuse)

    for name in ("question", "warning", "critical", "information"):
        monkeypatch.setattr(QtWidgets.QMessageBox, name, refuse(f"QMessageBox.{name}"))
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory", "getOpenFileNames"):
        monkeypatch.setattr(QtWidgets.QFileDialog, name, refuse(f"QFileDialog.{name}"))

    def refuse_exec(self, *args):
        raise UnexpectedDialog(f"unexpected modal QMessageBox: {self.text()!r}")

    monkeypatch.setattr(QtWidgets.QMessageBox, "exec", refuse_exec)
    yield


@pytest.fixture(autouse=True)
def _no_standby_engine_left():
    """A standby engine process a test's panel forked (``model.release.engine_standby``) ends with the test."""
    yield
    from dpstudio.model.release import engine_standby

    engine_standby.close_all()
