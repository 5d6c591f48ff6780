"""A plug-in mechanism's release hook in the whole-run audit's many-run checks.

The hook (``DataDependent.release``) is code bandsim has never read. Its batches are
``batch`` releases of the elimination engine: check (g) tests them per release class
(n, scale), pooled over the recorded runs, against the declared release law given each
recorded count k; check (h) pairs each batch with the next (consecutive batches of a
stage are the arms' batches at one time; one arm's batches follow each other across
stages). The hook here is the truncated geometric mechanism — clamp(k + Z, 0, n) with
P(Z = z) ∝ α^|z|, α = e^{−ε}, ε-DP (Ghosh, Roughgarden & Sundararajan, "Universally
Utility-Maximizing Privacy Mechanisms", STOC 2009) — drawn by inverting its cdf at a
uniform u. Two realistic mistakes, each invisible to the sampled audit (f):

* *antithetic*: every second batch reuses the previous batch's uniform as 1 − u (a
  variance-reduction trick): every release still has exactly its declared law given k,
  consecutive batches are perfectly anti-correlated — only (h) sees it;
* *thin above one*: α² instead of α (half the noise) once k ≥ 2 — honest at the counts
  k = 0, 1 a per-batch sampled audit looks at, under-noised at the counts a run
  releases — (g) sees it in the batch classes.
"""
import math

import numba
import numpy as np
import pytest

import bandsim
from bandsim import registry
from bandsim.plugin import EPSILON, GROWTH, P, DataDependent, ReleaseBatch, plan_protocol
from bandsim.wholerun import audit


@numba.njit
def _geometric(alpha, u):
    """Two-sided geometric Z (P(Z = z) ∝ α^|z|) by inversion of its cdf at u ∈ (0, 1)."""
    if u * (1 + alpha) < alpha:  # Z ≤ −1: P(Z ≤ −m) = α^m / (1 + α)
        return -math.floor(math.log(u * (1 + alpha)) / math.log(alpha))
    return max(0.0, math.ceil(math.log((1 - u) * (1 + alpha)) / math.log(alpha)) - 1)


@numba.njit
def honest(rng, n, k, fpar):
    return min(max(k + _geometric(fpar[0], rng.random()), 0.0), float(n))


@numba.njit
def antithetic(rng, n, k, fpar):
    """fpar[2], fpar[3] (padding the declaration leaves free): the last u, and whether the
    next call reuses it."""
    if fpar[3] == 1.0:
        u = 1.0 - fpar[2]
        fpar[3] = 0.0
    else:
        u = rng.random()
        fpar[2], fpar[3] = u, 1.0
    return min(max(k + _geometric(fpar[0], u), 0.0), float(n))


@numba.njit
def thin_above_one(rng, n, k, fpar):
    a = fpar[0] if k < 2 else fpar[0] * fpar[0]
    return min(max(k + _geometric(a, rng.random()), 0.0), float(n))


def tgeom_logpmf(n, k, fpar):
    """The exact law of clamp(k + Z, 0, n), in logs (values 0 … n)."""
    a = fpar[0]
    j = np.arange(n + 1)
    lp = np.log((1 - a) / (1 + a)) + np.abs(j - k) * np.log(a)
    lp[0] = k * np.log(a) - np.log1p(a)  # P(Z ≤ −k)
    lp[n] = (n - k) * np.log(a) - np.log1p(a)  # P(Z ≥ n − k)
    return j.astype(float), lp


def _batch(name):
    def batch(n, epsilon):
        a = math.exp(-epsilon)
        return ReleaseBatch(name=name, n=n, fpar=(a,), sigma=math.sqrt(2 * a) / (1 - a) + 1,
                            privacy=dict(guarantee="central ε-DP", epsilon=epsilon))
    return batch


HOOKS = {"tg-honest": honest, "tg-antithetic": antithetic, "tg-thin": thin_above_one}


@pytest.fixture(scope="module")
def hooks():
    registry.algorithms()  # built-ins first
    for name, hook in HOOKS.items():
        bandsim.register(DataDependent(
            name=name, summary="truncated geometric mechanism (a test plug-in)",
            trust="central ε-DP", source="Ghosh, Roughgarden & Sundararajan (STOC 2009)",
            release=hook, release_logpmf=tgeom_logpmf, batch=_batch(name)), replace=True)
        bandsim.register(bandsim.Algorithm(
            name=f"{name}-se", summary="batched SE over it (a test plug-in)",
            trust="central ε-DP", source="Chowdhury & Zhou (ICLR 2023), Algorithm 1",
            params=(EPSILON, P, GROWTH), mechanism=name,
            plan=lambda prm, arms, horizon, name=name: plan_protocol(name, prm, arms, horizon)),
            replace=True)
    yield
    registry.unregister(*HOOKS, *(f"{n}-se" for n in HOOKS))


def _audit(name):
    return audit(f"{name}-se", {"epsilon": 1.0})


def test_an_honest_hook_passes_with_its_batches_in_g_and_h(hooks):
    r = _audit("tg-honest")
    assert r.verdict == "PASS", (r.failures, r.reason)
    assert r.sampled_sizes  # (f) sampled it at recorded sizes too
    pw = r.power
    assert pw["classes"] >= 5 and pw["min_draws"] >= 1000  # every batch size n, pooled
    assert pw["pairs"] >= 2 and pw["correlation"] < 0.05  # across arms; one arm's next


def test_a_hook_correlated_across_batches_fails_h_only(hooks):
    r = _audit("tg-antithetic")
    assert r.verdict == "FAIL"
    assert r.failures and all(f.startswith("(h) independence: pair class ") and "(batch)" in f
                              and "\n" not in f for f in r.failures), r.failures
    assert any("Spearman ρ = -0.4" in f for f in r.failures), r.failures


def test_a_hook_under_noised_above_the_counts_sampled_fails_g_in_its_classes(hooks):
    r = _audit("tg-thin")
    lines = [f for f in r.failures if f.startswith("(g) law: release class batch (n = ")]
    assert r.verdict == "FAIL" and lines, r.failures
    assert all("release hook does not follow tg-thin's declared release law given the "
               "count k" in f and "\n" not in f for f in lines), lines
    assert not [f for f in r.failures if f.startswith(("(a)", "(b)", "(c)", "(d)"))]
