"""Class labels of a test table read against the declared classes (UCI adult.test's trailing dots)."""

import pandas as pd
import pytest

from dpstudio.io.class_labels import ClassLabelError, normalise_class_labels

CLASSES = ("<=50K", ">50K")


def test_one_trailing_dot_and_spaces_are_dropped_and_said():
    labels = pd.Series([" <=50K.", ">50K.", "<=50K", ">50K ", "<=50K."])
    out, note = normalise_class_labels(labels, CLASSES, "adult.test")
    assert list(out) == ["<=50K", ">50K", "<=50K", ">50K", "<=50K"]
    assert note == "adult.test: class labels '<=50K.', '>50K.' read as '<=50K', '>50K' (one trailing '.' removed)"


def test_labels_already_declared_give_no_note():
    out, note = normalise_class_labels(pd.Series(["<=50K", ">50K"]), CLASSES)
    assert list(out) == ["<=50K", ">50K"] and note is None


def test_a_declared_class_ending_in_a_dot_is_kept():
    out, note = normalise_class_labels(pd.Series(["yes.", "no"]), ("yes.", "no"))
    assert list(out) == ["yes.", "no"] and note is None


def test_only_one_dot_is_dropped():
    with pytest.raises(ClassLabelError, match="no class label of the test file matches"):
        normalise_class_labels(pd.Series(["<=50K..", ">50K.."]), CLASSES)


def test_labels_matching_no_class_or_only_some_are_errors():
    with pytest.raises(
        ClassLabelError,
        match=r"no class label of t\.csv matches a declared class: labels 'high', "
        r"'low'; declared classes '<=50K', '>50K'",
    ):
        normalise_class_labels(pd.Series(["high", "low", "high"]), CLASSES, "t.csv")
    with pytest.raises(ClassLabelError, match="has class labels that are not declared classes: 'medium'"):
        normalise_class_labels(pd.Series(["<=50K.", "medium"]), CLASSES)
