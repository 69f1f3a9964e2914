"""A tree editor for one taxonomy: add, rename, delete, drag to re-parent, undo and redo.

The editor edits a mutable ``Node`` tree. Every edit is a ``QUndoCommand`` holding the tree before and
after (taxonomies are small, so a snapshot is simpler and safer than inverse operations); undo and redo
swap snapshots and rebuild the view. Nodes are addressed by their *path*: the tuple of child positions
from the root, e.g. ``()`` is the root and ``(0, 2)`` the third child of the first child.

Edits may leave the tree temporarily invalid (a numeric parent whose children do not partition it yet);
``problem`` then says what is wrong, ``changed`` is still emitted, and the owner decides what to keep
(the Taxonomy panel only hands valid trees to the project).
"""

from __future__ import annotations

import copy

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.core.taxonomy import NUMERIC, Node, Taxonomy, TaxonomyError, check_tree, parse_interval

Qt = QtCore.Qt
PATH_ROLE = Qt.UserRole + 1

Path_ = tuple[int, ...]


class EditError(ValueError):
    """An edit that cannot be made (moving a node under itself, deleting the root, an empty label...)."""


def copy_tree(root: Node | None) -> Node | None:
    return None if root is None else copy.deepcopy(root)


def node_at(root: Node, path: Path_) -> Node:
    node = root
    for i in path:
        node = node.children[i]
    return node


def count_nodes(root: Node | None) -> int:
    if root is None:
        return 0
    n, stack = 0, [root]
    while stack:
        x = stack.pop()
        n += 1
        stack.extend(x.children)
    return n


def is_numeric_tree(root: Node | None) -> bool:
    return root is not None and root.lo is not None and root.hi is not None


class _Snapshot(QtGui.QUndoCommand):
    def __init__(
        self, editor: TaxonomyEditor, before: Node | None, after: Node | None, text: str, select: Path_ | None
    ):
        super().__init__(text)
        self.editor, self.before, self.after, self.select = editor, before, after, select
        # what was selected before the edit: undo selects it again (or its nearest ancestor, or the root),
        # so that Add child, Rename and Delete are at hand at once
        self.selected_before = editor.selected_path() or ()

    def redo(self) -> None:  # the stack moves its index after this returns
        self.editor.step = self.editor.undo_stack.index() + 1
        self.editor._show(copy_tree(self.after), self.select if self.select is not None else ())

    def undo(self) -> None:
        self.editor.step = self.editor.undo_stack.index() - 1
        self.editor._show(copy_tree(self.before), self.selected_before)


class TaxonomyTreeView(QtWidgets.QTreeView):
    """A tree view whose drops become re-parent edits of the editor (with undo), not model moves."""

    def __init__(self, editor: TaxonomyEditor):
        super().__init__()
        self.editor = editor
        self.setDragDropMode(QtWidgets.QAbstractItemView.InternalMove)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditKeyPressed | QtWidgets.QAbstractItemView.DoubleClicked)
        self.setHeaderHidden(True)

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        source = self.editor.selected_path()
        target_index = self.indexAt(event.position().toPoint())
        event.setDropAction(Qt.IgnoreAction)
        event.accept()
        if source is None:
            return
        pos = self.dropIndicatorPosition()
        if not target_index.isValid():
            parent, row = (), None
        else:
            target = tuple(target_index.data(PATH_ROLE))
            if pos == QtWidgets.QAbstractItemView.OnItem:
                parent, row = target, None
            elif not target:
                parent, row = (), None
            else:
                parent, row = target[:-1], target[-1] + (1 if pos == QtWidgets.QAbstractItemView.BelowItem else 0)
        try:
            self.editor.move(source, parent, row)
        except EditError as exc:
            self.editor.error.emit(str(exc))


class TaxonomyEditor(QtWidgets.QWidget):
    """See the module docstring. ``changed`` is emitted after every edit, undo and redo."""

    changed = QtCore.Signal()
    error = QtCore.Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.root: Node | None = None
        self.kind: str | None = None
        self.problem: str = ""
        self._loading = False
        self.undo_stack = QtGui.QUndoStack(self)
        # "undo" / "redo" while ``changed`` is emitted for one (a new edit: None); the history's index the
        # tree shown belongs to (already the new one while ``changed`` is emitted); what the owner wants
        # restored with each step (the panel keeps each step's provenance here)
        self.replaying: str | None = None
        self.step = 0
        self.step_notes: dict[int, object] = {}
        self.model = QtGui.QStandardItemModel(self)
        self.model.itemChanged.connect(self._on_item_changed)
        self.view = TaxonomyTreeView(self)
        self.view.setAccessibleName("Taxonomy tree")
        self.view.setModel(self.model)

        bar = QtWidgets.QToolBar()
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        self.act_add = self._act("Add child", self._add_clicked, "Ins", "Add a child under the selected node")
        self.act_rename = self._act("Rename", self._rename_clicked, "F2", "Rename the selected node")
        self.act_delete = self._act(
            "Delete", self._delete_clicked, QtGui.QKeySequence.Delete, "Delete the selected node and its subtree"
        )
        self.act_undo = self._act("Undo", self.undo, QtGui.QKeySequence.Undo, "Undo the last edit")
        self.act_redo = self._act("Redo", self.redo, QtGui.QKeySequence.Redo, "Redo")
        self.act_undo.setEnabled(False)
        self.act_redo.setEnabled(False)
        self.undo_stack.canUndoChanged.connect(self.act_undo.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.act_redo.setEnabled)
        self.undo_stack.undoTextChanged.connect(lambda t: self.act_undo.setToolTip(f"Undo {t}" if t else "Undo"))
        self.undo_stack.redoTextChanged.connect(lambda t: self.act_redo.setToolTip(f"Redo {t}" if t else "Redo"))
        for act in (self.act_add, self.act_rename, self.act_delete, self.act_undo, self.act_redo):
            bar.addAction(act)
        self.toolbar = bar
        self.problem_label = QtWidgets.QLabel()
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color:#c62828;")
        self.problem_label.hide()
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bar)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.problem_label)
        self._update_actions()
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._update_actions())

    def _act(self, text, slot, shortcut, tip) -> QtGui.QAction:
        act = QtGui.QAction(text, self)
        act.setShortcut(QtGui.QKeySequence(shortcut))
        act.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        act.setToolTip(f"{tip} ({act.shortcut().toString()})")
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    # -- loading ------------------------------------------------------------------------------------------
    def set_taxonomy(self, taxonomy: Taxonomy | None, reset_history: bool = True) -> None:
        """Show ``taxonomy`` (a copy); by default the undo history starts afresh."""
        root = None if taxonomy is None else taxonomy.to_node()
        self.kind = None if taxonomy is None else taxonomy.kind
        if reset_history:
            self.undo_stack.clear()
            self.step_notes.clear()
            self.step = 0
        self._show(root, None, emit=False)

    def set_root(self, root: Node | None, text: str = "Replace tree") -> None:
        """Replace the whole tree as one undoable edit (import, generate)."""
        self._push(copy_tree(root), text, ())

    def taxonomy(self, attribute: str = "") -> Taxonomy:
        """The edited tree as a validated Taxonomy; TaxonomyError says what is wrong."""
        if self.root is None:
            raise TaxonomyError("the taxonomy is empty")
        root = copy_tree(self.root)
        kind = NUMERIC if is_numeric_tree(root) else None
        check_tree(root, kind=kind)
        return Taxonomy(root, attribute)

    # -- edits (public, each one undoable) ------------------------------------------------------------------
    def add_child(self, parent: Path_, label: str) -> Path_:
        label = self._clean_label(label)
        new = copy_tree(self.root)
        if new is None:
            new = self._make_node(label)
            self._push(new, f"Add {label}", ())
            return ()
        p = node_at(new, parent)
        p.children.append(self._make_node(label))
        path = tuple(parent) + (len(p.children) - 1,)
        self._push(new, f"Add {label}", path)
        return path

    def add_children(self, parent: Path_, labels) -> None:
        new = copy_tree(self.root)
        if new is None:
            raise EditError("create a root node first")
        p = node_at(new, parent)
        labels = [self._clean_label(lab) for lab in labels]
        for lab in labels:
            p.children.append(self._make_node(lab))
        self._push(new, f"Add {len(labels)} leaves", tuple(parent))

    def rename(self, path: Path_, label: str) -> None:
        label = self._clean_label(label)
        new = copy_tree(self.root)
        if new is None:
            raise EditError("the taxonomy is empty")
        node = node_at(new, path)
        if node.label == label:
            return
        old = node.label
        if is_numeric_tree(new):
            interval = parse_interval(label)
            if interval is None:
                raise EditError(f"{label!r} is not an interval: numeric nodes are named [lo,hi), e.g. [17,30)")
            node.lo, node.hi = interval
        node.label = label
        self._push(new, f"Rename {old} to {label}", tuple(path))

    def delete(self, path: Path_) -> None:
        if self.root is None:
            raise EditError("the taxonomy is empty")
        path = tuple(path)
        new = copy_tree(self.root)
        if not path:
            self._push(None, "Delete the tree", None)
            return
        parent = node_at(new, path[:-1])
        gone = parent.children.pop(path[-1])
        self._push(new, f"Delete {gone.label}", path[:-1])

    def move(self, source: Path_, new_parent: Path_, row: int | None = None) -> Path_:
        """Re-parent the node at ``source`` under ``new_parent`` (at ``row``, default last)."""
        source, new_parent = tuple(source), tuple(new_parent)
        if self.root is None:
            raise EditError("the taxonomy is empty")
        if not source:
            raise EditError("the root cannot be moved")
        if new_parent[: len(source)] == source:
            raise EditError("a node cannot be moved under itself or its own descendants")
        new = copy_tree(self.root)
        old_parent = node_at(new, source[:-1])
        target = node_at(new, new_parent)  # look up before removing: paths shift after the pop
        node = old_parent.children.pop(source[-1])
        if row is None or row > len(target.children):
            row = len(target.children)
        if target is old_parent and row > source[-1]:
            row -= 1
        target.children.insert(row, node)
        # the new path: recompute by identity
        path = self._path_of(new, node)
        if path == source:
            return path
        self._push(new, f"Move {node.label}", path)
        return path

    def undo(self) -> None:
        self._replay("undo", self.undo_stack.undo)

    def redo(self) -> None:
        self._replay("redo", self.undo_stack.redo)

    def _replay(self, what: str, step) -> None:
        self.replaying = what
        try:
            step()
        finally:
            self.replaying = None

    # -- selection ---------------------------------------------------------------------------------------
    def selected_path(self) -> Path_ | None:
        idx = self.view.currentIndex()
        if not idx.isValid():
            sel = self.view.selectionModel().selectedIndexes()
            if not sel:
                return None
            idx = sel[0]
        data = idx.data(PATH_ROLE)
        return None if data is None else tuple(data)

    def select(self, path: Path_) -> None:
        """Select the node at ``path``, or its nearest ancestor that exists."""
        path = tuple(path)
        item = self._item_at(path)
        while item is None and path:
            path = path[:-1]
            item = self._item_at(path)
        if item is not None:
            idx = self.model.indexFromItem(item)
            self.view.setCurrentIndex(idx)
            self.view.scrollTo(idx)

    def labels(self) -> list[str]:
        """Labels in preorder (what the view shows)."""
        out, stack = [], [self.root] if self.root is not None else []
        while stack:
            n = stack.pop()
            out.append(n.label)
            stack.extend(reversed(n.children))
        return out

    # -- internals ------------------------------------------------------------------------------------------
    def _clean_label(self, label) -> str:
        text = str(label).strip()
        if not text:
            raise EditError("a node needs a non-empty label")
        if "\n" in text:
            raise EditError("a label cannot span lines")
        return text

    def _make_node(self, label: str) -> Node:
        if self.root is not None and is_numeric_tree(self.root):
            interval = parse_interval(label)
            if interval is None:
                raise EditError(f"{label!r} is not an interval: numeric nodes are named [lo,hi), e.g. [17,30)")
            return Node(label, [], interval[0], interval[1])
        if self.root is None:
            interval = parse_interval(label, dash=False)
            if interval is not None:
                return Node(label, [], interval[0], interval[1])
        return Node(label)

    def _push(self, new_root: Node | None, text: str, select: Path_ | None) -> None:
        self.undo_stack.push(_Snapshot(self, copy_tree(self.root), copy_tree(new_root), text, select))

    def _path_of(self, root: Node, target: Node) -> Path_:
        stack = [(root, ())]
        while stack:
            n, p = stack.pop()
            if n is target:
                return p
            stack.extend((c, p + (i,)) for i, c in enumerate(n.children))
        raise EditError("node not found")

    def _item_at(self, path: Path_):
        item = self.model.invisibleRootItem().child(0)
        for i in path:
            if item is None:
                return None
            item = item.child(i)
        return item

    def _show(self, root: Node | None, select: Path_ | None, emit: bool = True) -> None:
        self._loading = True
        try:
            self.root = root
            self.model.clear()
            if root is not None:
                numeric = is_numeric_tree(root)
                big = count_nodes(root) > 2000
                parent_items = [(root, self.model.invisibleRootItem(), ())]
                while parent_items:
                    node, parent_item, path = parent_items.pop()
                    item = QtGui.QStandardItem(node.label)
                    item.setData(path, PATH_ROLE)
                    item.setEditable(True)
                    item.setDropEnabled(True)
                    item.setDragEnabled(bool(path))
                    if not node.children:
                        item.setForeground(QtGui.QColor("#1b5e20" if not numeric else "#0d47a1"))
                    parent_item.appendRow(item)
                    for i in reversed(range(len(node.children))):
                        parent_items.append((node.children[i], item, path + (i,)))
                if big:
                    self.view.expandToDepth(1)
                else:
                    self.view.expandAll()
        finally:
            self._loading = False
        self._validate()
        if select is not None and root is not None:
            self.select(select)
        self._update_actions()
        if emit:
            self.changed.emit()

    def _validate(self) -> None:
        self.problem = ""
        if self.root is not None:
            try:
                self.taxonomy()
            except TaxonomyError as exc:
                self.problem = str(exc)
        self.problem_label.setText(f"Not valid yet: {self.problem}" if self.problem else "")
        self.problem_label.setVisible(bool(self.problem))

    def _update_actions(self) -> None:
        has = self.selected_path() is not None
        self.act_add.setEnabled(has or self.root is None)
        # an empty tree gets its root first: the first label typed is the top of the tree, and says so
        self.act_add.setText("Add root" if self.root is None else "Add child")
        self.act_add.setToolTip(
            "Add the top node of the tree" if self.root is None else "Add a child under the selected node"
        )
        self.act_rename.setEnabled(has)
        self.act_delete.setEnabled(has)

    def _on_item_changed(self, item: QtGui.QStandardItem) -> None:
        if self._loading:
            return
        path = tuple(item.data(PATH_ROLE) or ())
        text = item.text()
        try:
            self.rename(path, text)
        except EditError as exc:
            self.error.emit(str(exc))
            QtCore.QTimer.singleShot(0, lambda: self._show(self.root, path, emit=False))

    def _add_clicked(self) -> None:
        path = self.selected_path()
        numeric = is_numeric_tree(self.root)
        hint = "an interval [lo,hi), e.g. [17,30)" if numeric else "a value or a group name"
        if self.root is None:
            title, prompt = "Add root", "Label of the top node, which holds every value (e.g. * or Any):"
        else:
            title, prompt = "Add child", f"Label ({hint}):"
        label, ok = QtWidgets.QInputDialog.getText(self, title, prompt)
        if not ok:
            return
        try:
            self.add_child(path if path is not None else (), label)
        except EditError as exc:
            self.error.emit(str(exc))

    def _rename_clicked(self) -> None:
        path = self.selected_path()
        if path is None:
            return
        item = self._item_at(path)
        if item is not None:
            self.view.edit(self.model.indexFromItem(item))

    def _delete_clicked(self) -> None:
        path = self.selected_path()
        if path is None:
            return
        try:
            self.delete(path)
        except EditError as exc:
            self.error.emit(str(exc))
