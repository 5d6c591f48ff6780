"""A plug-in release hook is sampled across its counts k, not only at the worst pair.

With ``report_probs`` declared every k reveals the same ε, so the worst pair is
(0, 1); a hook that draws the declared law there but flips half as often from
k = 2 on passed the sampled audit. Every k ≤ n (n ≤ 32; a spread including both
ends above) is now sampled against the declared law at that k.
"""
import dataclasses

import numba
import pytest

import bandsim
from bandsim.privacy.release import sampled_counts
from bandsim.privacy.sampled import sampled
from bandsim.registry import get_algorithm, get_mechanism, unregister
from tests.conftest import doc_example

NAMES = ("rr", "rr-se", "rr-weak", "rr-weak-se", "rr-high", "rr-high-se")


@numba.njit
def _honest_at_0_and_1(rng, n, k, fpar):
    flip = 1.0 if k <= 1 else 0.5
    ones = rng.binomial(k, 1.0 - fpar[0] * flip) + rng.binomial(n - k, fpar[0] * flip)
    return (ones - fpar[0] * n) / (1.0 - 2.0 * fpar[0])


@pytest.fixture(scope="module")
def rr_high():
    ns = doc_example("def rr_logpmf", "docs_rr_example")
    spec = get_mechanism("rr")
    bandsim.register(dataclasses.replace(spec, name="rr-high", release=_honest_at_0_and_1,
                                         batch=ns["rr_batch"]("rr-high")),
                     replace=True)
    bandsim.register(dataclasses.replace(
        get_algorithm("rr-se"), name="rr-high-se", mechanism="rr-high",
        plan=lambda prm, arms, horizon: ns["plan_protocol"]("rr-high", prm, arms, horizon)),
        replace=True)
    yield "rr-high-se"
    unregister(*NAMES)


def test_counts_sampled():
    assert sampled_counts(5) == [0, 1, 2, 3, 4, 5]
    big = sampled_counts(1000)
    assert {0, 1, 2, 998, 999, 1000} <= set(big) and len(big) <= 22 and big == sorted(big)


def test_a_hook_honest_at_k_0_and_1_only_fails_and_the_honest_one_passes(rr_high):
    good = sampled("rr-se", 1.0, 8, draws=200_000)
    assert good.code == 0, good.verdict()
    assert any(c.path == "release at k = 8" for c in good.checks)
    bad = sampled(rr_high, 1.0, 8, draws=200_000)
    assert bad.code == 1, bad.verdict()
    failed = {c.path for c in bad.checks if not c.passed}
    assert failed and not failed & {"release", "release (scale)"}, failed  # (0, 1) passes
    assert failed <= {f"release at k = {k}{t}" for k in range(2, 9) for t in ("", " (scale)")}
