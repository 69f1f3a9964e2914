"""The Help menu's content: a short guide (the workflow, what epsilon means, teaching against release mode)
and the project's documentation (docs/*.md beside the package), shown in a window. No network is used."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

GUIDE = """
<h2>Getting started</h2>
<p><b>The workflow</b>, panel by panel (a checklist beside Run, in the Algorithm panel, lists what is
still missing, with a button that goes there):</p>
<ol>
<li><b>Data</b>: open a table (or the bundled Adult sample). Give each column a role: a
<i>quasi-identifier</i> (released in generalized form), the <i>class</i> (released as counts per group),
or <i>ignore</i>. Numbers need <i>public bounds</i>: a range known without looking at the data. Declare
every value the class can take.</li>
<li><b>Taxonomy</b>: give each categorical quasi-identifier a tree of groups (for example
Private, Self-employed, Government under "Working"). The release shows these groups, never rarer values
that no tree covers.</li>
<li><b>Algorithm</b>: choose the algorithm and epsilon. The bar shows how epsilon is split between the
steps; the tables below say, before anything runs, how far a released count is expected to be off.</li>
<li><b>Watch</b> the tree grow, <b>Compare</b> the errors, and <b>Export</b> the release (release mode
only) with its description and an HTML report.</li>
</ol>
<p><b>What epsilon means.</b> Epsilon is the privacy budget: how much the release may depend on any one
person. Smaller is more private and noisier: a single count given all of epsilon = 1 is off by at most 3
in 95 % of cases, at 0.1 by at most 30. An algorithm splits epsilon between its steps; the Algorithm
panel says, in the same words, what that means for your split. Budgets add up: every release on the same people spends from one lifetime budget for that data,
which the studio keeps (the line under Run says what is left).</p>
<p><b>Teaching and release mode.</b> <i>Teaching mode</i> (orange banner) is for learning and trying:
its noise is simulated from a seed, it may show true counts, you may run as often as you like, and
nothing can be exported. <i>Release mode</i> (green banner) uses secure noise, asks before it spends
epsilon, spends it once and records it before any noisy value is shown; only a release-mode run can be
exported.</p>
<p><b>Public inputs.</b> Taxonomies, bounds and class values must be public knowledge. Values taken from
the data are marked "derived from the data" until you confirm they are public; a release is not exported
with an unconfirmed one.</p>
"""

DOC_TITLES = {
    "gui.md": "The studio",
    "gui-panels.md": "The studio's panels",
    "privacy-core.md": "How privacy is kept",
    "budget.md": "The lifetime budget",
    "release.md": "Releasing a table (command line)",
    "histogram.md": "Histograms (command line)",
    "taxonomy.md": "Taxonomies",
    "compare.md": "Comparing errors",
    "evaluate.md": "Evaluating releases",
    "datasets.md": "Data sets",
    "anonymize.md": "Syntactic anonymization",
    "packaging.md": "Packaging",
    "stream.md": "Streams of counts",
    "scale.md": "Tables larger than memory",
    "api.md": "Python API",
    "ALGORITHMS.md": "Specification: the algorithms",
    "STREAMING.md": "Specification: streams",
    "SYNTACTIC.md": "Specification: syntactic models",
    "DESIGN.md": "Design notes",
    "OPENDP_NOTES.md": "OpenDP calls, verified",
}


def docs_folder() -> Path | None:
    """The docs/ folder beside the package (a source checkout or bundle), or None."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "docs", here / "docs"):
        if candidate.is_dir():
            return candidate
    return None


def doc_files() -> list[Path]:
    folder = docs_folder()
    if folder is None:
        return []
    known = [folder / name for name in DOC_TITLES if (folder / name).is_file()]
    return known + sorted(p for p in folder.glob("*.md") if p.name not in DOC_TITLES)


def doc_title(path: Path) -> str:
    """The menu's words for a document: its known title, else its first heading (never a bare file name)."""
    if path.name in DOC_TITLES:
        return DOC_TITLES[path.name]
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("# "):
                    return line[2:].strip().split(":")[0][:60]
    except OSError:
        pass
    return path.stem.replace("_", " ").replace("-", " ").capitalize()


class HelpWindow(QtWidgets.QDialog):
    """A non-modal window showing the guide (HTML) or one Markdown document."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("helpWindow")
        self.setModal(False)
        self.resize(820, 680)
        lay = QtWidgets.QVBoxLayout(self)
        self.browser = QtWidgets.QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.browser.setAccessibleName("Help text")
        lay.addWidget(self.browser)
        close = QtWidgets.QPushButton("Close")
        close.setAccessibleName("Close help")
        close.clicked.connect(self.close)
        lay.addWidget(close, 0, QtCore.Qt.AlignRight)
        self.shown: Path | None = None

    def show_guide(self) -> None:
        self.setWindowTitle("Getting started")
        self.shown = None
        self.browser.setHtml(GUIDE)

    def show_doc(self, path: Path) -> None:
        self.setWindowTitle(doc_title(path))
        self.shown = path
        self.browser.setMarkdown(path.read_text(encoding="utf-8"))

    def _follow(self, url: QtCore.QUrl) -> None:
        """Links between the docs open here; nothing goes to the network."""
        if self.shown is None or url.scheme() not in ("", "file"):
            return
        target = (self.shown.parent / url.path()).resolve()
        if target.suffix == ".md" and target.is_file():
            self.show_doc(target)
