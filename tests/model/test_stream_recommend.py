"""model/stream_recommend: the recommendation uses public inputs only, compares like with like, and its
figures equal an independent computation of w v (v the discrete Laplace variance 2 e^(-1/b) / (1 - e^(-1/b))^2)."""

from __future__ import annotations

import math

import pytest

from dpstudio.model.stream.recommend import EVENT_LEVEL, GUARANTEE, recommend, same_guarantee


def dl_variance(b: float) -> float:
    a = math.exp(-1.0 / b)
    return 2 * a / (1 - a) ** 2


@pytest.mark.parametrize("T,w,eps,K", [(1163, 200, 1, 1), (100, 10, 0.5, 3), (52, 4, 2, 1)])
def test_figures_and_choice(T, w, eps, K):
    rec = recommend(T, w, eps, K)
    assert set(rec.figures) == {"tpm", "swm", "uniform"}  # user-level, closed form; never binary
    assert rec.figures["tpm"] == pytest.approx(w * dl_variance(K * T / eps), rel=1e-9)
    assert rec.figures["swm"] == pytest.approx(w * dl_variance(K * w * (T - w + 1) / eps), rel=1e-9)
    assert rec.mechanism == "tpm" and f"T = {T}, w = {w}" in rec.reason
    assert ("K = " in rec.reason) is (K != 1)


def test_a_tie_names_tpm_and_binary_stays_with_its_own_guarantee():
    assert recommend(50, 1, 1).mechanism == "tpm"  # w = 1: SWM's noise equals TPM's
    event = recommend(50, 5, 1, guarantee=EVENT_LEVEL)
    assert event.mechanism == "binary" and set(event.figures) == {"binary"}
    assert same_guarantee("binary") == ["binary"]
    assert "binary" not in same_guarantee("tpm") and GUARANTEE["asm"] == GUARANTEE["tpm"]
