"""The sampled audit of the real kernels, and the negative controls that make the audits FAIL.

Every mechanism with batch kernels passes the sampled audit (10⁶ draws per path and
input, α = 10⁻⁶: a correct implementation fails with probability ≤ 10⁻⁶ per test,
and the seeds are fixed); under-noised twins FAIL the exact audit wherever the claim
is tight enough to tell; the inverted Pólya scale fails the sampled audit (kernel bug)
and both audits (parameter bug).
"""
import dataclasses
import functools

import numpy as np
import pytest

from bandsim.cli import main
from bandsim.mechanisms import batch
from bandsim.privacy import controls as C
from bandsim.privacy.audit import audit_of
from bandsim.privacy.sampled import (ALPHA, DRAWS, epsilon_lower_bound, g_test,
                                     kernel_mechanisms, sampled, sampled_audit)
from bandsim.registry import get_mechanism

N, EPS = 8, 0.5
#: Every built-in mechanism with batch kernels, and the parameters its batch takes.
KERNEL_MECHANISMS = {
    "dist-dp": {}, "central": {}, "local": {}, "dist-dp-shuffle": {},
    "dist-rdp": dict(scale=10.0), "dist-cdp": dict(scale=10.0), "laplace": {},
    "binary-summation": dict(delta=1e-6),
}


def derive(name, n=N, eps=EPS):
    return batch(name, n, epsilon=eps, **KERNEL_MECHANISMS[name])


def test_the_list_covers_every_builtin_mechanism_with_kernels():
    """Built-ins (no plug-in kernels of their own); plug-ins: tests/test_plugins.py."""
    assert set(KERNEL_MECHANISMS) == {m for m in kernel_mechanisms()
                                      if not get_mechanism(m).kernels}


@functools.lru_cache(maxsize=None)
def sampled_of(name):
    """The sampled audit of a built-in mechanism's batch (deterministic: computed once)."""
    return sampled_audit(derive(name))


@pytest.mark.parametrize("name", sorted(KERNEL_MECHANISMS))
def test_every_mechanism_with_kernels_passes_the_sampled_audit(name):
    r = sampled_of(name)
    assert r.code == 0, r.verdict()
    assert r.bounds and all(c.draws >= (DRAWS // 4 if "x₁" in c.path else DRAWS)
                            for c in r.checks)  # fractional neighbours: a quarter
    paths = {c.path for c in r.checks}
    if get_mechanism(name).family == "secagg":
        assert {"batched", "per-user"} <= paths  # both real kernel paths ran
    assert r.epsilon_lb <= r.claim["epsilon"]


def test_the_bound_is_tight_for_pure_dp():
    """ε_lb of discrete Laplace is within a few percent of ε: the test has power."""
    r = sampled_of("dist-dp")  # the same audit as the dist-dp case above: run once
    assert 0.9 * EPS < r.epsilon_lb <= EPS


def test_a_changed_sampler_parameter_fails_both_audits():
    b = derive("dist-dp")
    beta10 = b.fpar[1] ** 10
    bad = dataclasses.replace(b, fpar=(1 - beta10, b.fpar[1]))  # batched path: 10× less noise
    assert not audit_of(get_mechanism("dist-dp"))[0](bad, "dist-dp").passed
    r = sampled_audit(bad)
    assert r.code == 1 and r.epsilon_lb > 5 * EPS and all(c.passed for c in r.checks)


def test_inverted_polya_parameter_fails_both_audits():
    bad = C.inverted_polya_parameter(derive("dist-dp"))
    exact = audit_of(get_mechanism("dist-dp"))[0](bad, "dist-dp")
    assert not exact.passed and exact.failures[0].short == "ε per-user"
    r = sampled_audit(bad)
    assert r.code == 1 and max(b.epsilon_lb for b in r.bounds if b.path == "per-user") > 2


def test_inverted_polya_kernel_fails_the_sampled_audit():
    """The released-code bug, Gamma scale (1 − β)/β inside the Pólya sampler, rebound
    into the per-user kernel without editing the source: the exact audit certifies
    the (correct) parameters and cannot see it; the sampled audit rejects the draws."""
    name = C.inverted_polya_mechanism("dist-dp")
    b = get_mechanism(name).derive(N, dict(epsilon=EPS, p=0.1))
    assert audit_of(get_mechanism(name))[0](b, name).passed  # blind to code
    r = sampled_audit(b)
    assert r.code == 1
    per_user = [c for c in r.checks if c.path == "per-user"]
    assert per_user and all(c.p_value < ALPHA for c in per_user)
    assert all(c.passed for c in r.checks if c.path == "batched")


@pytest.mark.parametrize("f", [0.1, 0.3])
@pytest.mark.parametrize("name", sorted(KERNEL_MECHANISMS))
def test_under_noise_fails_the_exact_audit_where_the_claim_is_tight(name, f):
    b = derive(name)
    good = audit_of(get_mechanism(name))[0](b, name)
    bad = audit_of(get_mechanism(name))[0](C.under_noised(b, f), name)
    assert good.passed
    if name == "binary-summation":
        # the shuffle claim (Theorem A.1) is ~5× loose in ε: the exact ε at δ is below
        # a quarter of the claim, so 30 % less noise still meets it
        assert bad.passed and good.rows[1].exact < 0.25 * good.rows[1].claimed
    else:
        assert not bad.passed, bad.verdict()


def test_g_test_and_the_lower_bound_on_synthetic_draws():
    rng = np.random.default_rng(1)
    p = np.array([0.5, 0.3, 0.2])
    x = rng.choice(3, size=100_000, p=p)
    assert g_test(np.bincount(x, minlength=3), p)[1] > ALPHA
    assert g_test(np.bincount(x, minlength=3), [0.45, 0.35, 0.2])[1] < ALPHA
    # two coins P(1) = 0.5 vs 0.5 e^{-1}: the bound approaches log of the ratio = 1
    a = (rng.random(10**6) < 0.5).astype(np.int64)
    b = (rng.random(10**6) < 0.5 * np.exp(-1)).astype(np.int64)
    lb, est, _, _ = epsilon_lower_bound(a, b, 2)
    assert 0.9 < lb < 1.0 and abs(est - 1) < 0.02


def test_sampled_cli_exit_codes(capsys, monkeypatch):
    from bandsim import registry

    # exit codes of the command line; the audit's power at 10⁶ draws is tested above
    # through the API. 10⁵ draws keep a clear margin here: the weak twin's lower bound is
    # ε_lb ≈ 0.66 > ε = 0.5 (fixed seed 0), and the correct kernels pass.
    argv = ["audit", "dist-dp-se", "--epsilon", "0.5", "--batch-size", str(N), "--draws",
            "100000", "--sampled"]
    assert main(argv) == 0 and "PASS" in capsys.readouterr().out
    assert main(argv[:5] + ["2000000", "--sampled"]) == 2
    assert "CANNOT AUDIT" in capsys.readouterr().out
    spec = get_mechanism("dist-dp")
    weak = dataclasses.replace(spec, batch=lambda n, **kw: C.under_noised(spec.batch(n, **kw), .3))
    monkeypatch.setitem(registry._MECHANISMS, "dist-dp", weak)
    assert main(argv) == 1 and "FAIL" in capsys.readouterr().out
    assert main(argv[:-3]) == 1  # the exact audit too


def test_sampled_api_refuses_bad_input():
    from bandsim.errors import ConfigError

    with pytest.raises(ConfigError, match="draws"):
        sampled("dist-dp-se", 0.5, 8, draws=10)
    with pytest.raises(ConfigError, match="algorithm"):
        sampled("ucb1", 0.5, 8)


def test_the_epsilon_lower_bound_is_never_negative():
    """Two identical inputs: the empirical bound is below 0 before clipping (ε ≥ 0 says more)."""
    from bandsim.privacy.sampled_stats import epsilon_lower_bound

    cells = np.random.default_rng(5).integers(0, 8, size=20_000)
    lb, est, _, _ = epsilon_lower_bound(cells, cells.copy(), 8)
    assert lb == 0.0 and est >= 0.0
