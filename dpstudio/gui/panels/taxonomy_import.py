"""The Taxonomy panel's imports: a taxonomy file for one attribute (asking before it replaces a tree drawn or
edited here, and saying what it covers), or a folder of them matched to the attributes by name. The trees
are public inputs; their provenance names the file."""

from __future__ import annotations

from pathlib import Path

from dpstudio.core.taxonomy import Taxonomy, TaxonomyError
from dpstudio.core.taxonomy_merge import Merged
from dpstudio.gui.panels import host
from dpstudio.gui.widgets.yes_no import ask_choice
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import (
    authored_here,
    merged_provenance,
)


def merge_words(attr: str, name: str, merged: Merged) -> str:
    """What a merge did, in words: what it added, and the leaves it kept where the tree made here has them."""
    added = list(merged.added_leaves)
    text = f"merged {name} into the tree of {attr} made here: "
    text += f"added {len(added)} value{'s' if len(added) != 1 else ''}" + (
        f" ({', '.join(added[:8])}" + (", ..." if len(added) > 8 else "") + ")" if added else ""
    )
    if merged.added_groups:
        text += f" and the group{'s' if len(merged.added_groups) != 1 else ''} {', '.join(merged.added_groups[:6])}"
    for leaf, here, there in merged.kept_elsewhere[:5]:
        text += f"; kept {leaf} under {here} (the file puts it under {there})"
    if len(merged.kept_elsewhere) > 5:
        text += f"; and {len(merged.kept_elsewhere) - 5} more kept where your tree has them"
    return text


def import_file(panel, path, attribute: str | None = None, format: str | None = None) -> bool:
    """Read a taxonomy file into ``attribute`` (default: the selected one). False + message on error.

    When the attribute's tree was drawn or edited here, the user is asked first (``exec_dialog`` shows the
    question): replace it, keep it (the default; nothing is imported), or, for categorical trees, merge
    (``core.taxonomy_merge``: the tree made here gains the values and groups the file adds)."""
    from dpstudio.core.taxonomy_merge import merge_trees
    from dpstudio.io.taxonomy_formats import read_taxonomy

    attr = attribute or panel._need_attribute()
    if attr is None:
        return False
    path = Path(path)
    try:  # numeric when every label is an interval (the reader's detection)
        tax = read_taxonomy(path, attribute=attr, format=format)
    except TaxonomyError as exc:
        panel.show_error(f"could not import the taxonomy of {attr}: {exc}")
        return False
    if attr != panel.current_attribute():
        panel.select_attribute(attr)  # the tree asked about, or replaced, is the one in view
    mine = panel.project.taxonomies.get(attr)
    prov = panel.project.provenance_of(pv.key(pv.TAXONOMY, attr)) if mine is not None else None
    answer = "replace"
    if authored_here(prov) and mine is not None and prov is not None:
        choices = {"replace": f"Replace with {path.name}", "keep": "Keep mine"}
        words = f"Replace replaces it (Undo brings it back); Keep mine imports nothing for {attr}"
        if not (mine.is_numeric or tax.is_numeric):
            choices["merge"] = f"Merge in {path.name}"
            words += f"; Merge keeps yours and adds the values and groups {path.name} has and yours lacks"
        answer = ask_choice(
            panel,
            "Replace a tree made here?",
            f"The taxonomy of {attr} was {prov.source}. {words}.",
            choices,
            "keep",
            panel.exec_dialog,
            keep_as="replace_question",
        )
    if answer == "keep":
        panel.last_error = f"kept the tree of {attr} made here; {path.name} was not imported"
        panel.kept.append(attr)
        return False
    if answer == "merge" and mine is not None and prov is not None:
        merged = merge_trees(mine, tax)
        panel.merged[attr] = merged
        panel._replace(attr, Taxonomy(merged.root, attr), f"Merge {path.name}", None)
        panel.project.restore_provenance(pv.key(pv.TAXONOMY, attr), merged_provenance(prov, path.name))
        panel._show_source(attr)
        panel.last_merge = panel.merges[attr] = merge_words(attr, path.name, merged)
        win = host(panel)
        if win is not None:
            win.show_info(panel.last_merge)
    else:
        panel._replace(attr, tax, f"Import {path.name}", path.name)
    panel.clear_error()
    if panel.offer_bar.isVisible():  # the offer names only the attributes still without a tree
        panel.offer_folder_beside_data()
    return True


def import_folder(panel, folder) -> list[str]:
    """Import every file in ``folder`` named after an attribute (``age.csv``, ``adult_hierarchy_age.csv``;
    ``model.taxonomy_folder``). Returns the attributes imported; errors are shown, others go on. The
    summary (what matched, what did not, which attributes still lack a taxonomy) is in ``summary_label``
    and ``last_summary``."""
    from dpstudio.model.project.taxonomy_folder import match_folder

    folder = Path(folder)
    if not folder.is_dir():
        panel.show_error(f"{folder} is not a folder")
        return []
    try:
        found = match_folder(
            folder, panel.attributes(), exclude=[panel.project.data_path] if panel.project.data_path else []
        )
    except OSError as exc:
        panel.show_error(f"could not read {folder}: {exc}")
        return []
    done, failed, errors = [], [], []
    panel.kept = []
    panel.merges = {}
    for attr, path in found.matched.items():
        if panel.import_file(path, attribute=attr):
            done.append(attr)
        elif attr not in panel.kept:
            failed.append(attr)
            errors.append(panel.last_error)
    panel.offer_bar.hide()
    panel.last_summary = found.summary(done, failed, panel.without_taxonomy())
    if panel.kept:
        panel.last_summary += f"; kept the trees made here: {', '.join(panel.kept)}"
    merges = [panel.merges[a] for a in done if a in panel.merges]
    if merges:
        panel.last_summary += "; " + "; ".join(merges)
    panel.summary_label.setText(panel.last_summary)
    panel.summary_label.show()
    if errors:
        panel.show_error("; ".join(errors))
    elif not done:
        panel.show_error(f"no file in {folder} is named after an attribute ({', '.join(panel.attributes())})")
    return done
