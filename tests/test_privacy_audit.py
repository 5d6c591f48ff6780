"""Exact per-batch audits: correct parameterizations pass, under-noised ones fail."""
import dataclasses
import json
import math

import numpy as np
import pytest

from bandsim.mechanisms import secagg as protocols
from bandsim.privacy import pmf as P
from bandsim.privacy.audit import audit, audit_laplace, audit_mechanism, audit_shuffle, auditable
from bandsim.registry import algorithms
from tests.conftest import SECAGG_NAMES

SCALED = ("dist-rdp", "dist-cdp")


def mech(name, n, eps, scale=10.0):
    return protocols.mechanism(name, n, eps, 0.1, scale if name in SCALED else 1.0)


def under_noised(m, factor=100.0):
    """The same batch with a noise scale ``factor`` times too small (as a bug would)."""
    if m.name in SCALED:  # fpar[0] is a variance (Skellam: the Poisson mean μ = σ²/2)
        return dataclasses.replace(m, fpar=(m.fpar[0] / factor**2,) + tuple(m.fpar[1:]))
    beta = m.fpar[1] ** factor  # Lap_Z(g/ε) → Lap_Z(g/(100ε)): β = e^{−ε/g} → β^100
    return dataclasses.replace(m, fpar=(1.0 - beta, beta) + tuple(m.fpar[2:]))


@pytest.mark.parametrize("name", SECAGG_NAMES)
@pytest.mark.parametrize("n,eps", [(16, 1.0), (64, 0.5)])
def test_correct_parameters_pass_and_100x_less_noise_fails(name, n, eps):
    good = audit_mechanism(mech(name, n, eps))
    assert good.passed, good.verdict()
    assert good.verdict().startswith("PASS")
    bad = audit_mechanism(under_noised(mech(name, n, eps)))
    assert not bad.passed and bad.failures, bad.verdict()
    assert bad.verdict().startswith("FAIL")
    assert bad.worst_ratio > 5


def test_dp_se_and_shuffle_audits_fail_when_under_noised():
    assert audit("dp-se", 0.5, 100).passed
    bad = audit_laplace(2.0 / 100, 0.5, 100)  # b = 1/ε, 100× too small
    assert not bad.passed and bad.rows[0].exact == pytest.approx(50.0)
    from bandsim.mechanisms.binary_summation import BinarySummation

    m = BinarySummation(0.5, 1e-6)
    assert audit_shuffle(m, 256).passed
    m.tau /= 100.0**2  # noise sd ∝ √τ: 100× too small
    bad = audit_shuffle(m, 256)
    assert not bad.passed and bad.rows[0].exact > 1e-6


def test_exact_epsilon_of_dist_dp_is_the_claim_at_large_n():
    """With m ≫ the noise scale the fold changes nothing: exact ε = ε (to 1e-9)."""
    r = audit("dist-dp-se", 0.5, 1024)
    assert r.rows[0].exact == pytest.approx(0.5, abs=1e-9)
    assert r.params["g"] == 16 and r.params["m"] == 16 * 1024 + 2 * 96 + 1


def test_audit_uses_the_simulators_parameters():
    """g, τ, m of the report are those of protocols.mechanism; the names match the plans."""
    for algo in algorithms().values():
        proto = algo.mechanism
        if proto not in SECAGG_NAMES:
            continue
        r = audit(algo.name, 0.5, 64)
        prm = algo.resolve({"epsilon": 0.5}, 10**7)
        m = protocols.mechanism(proto, 64, 0.5, prm["p"], prm.get("scale", 1.0))
        assert (r.params["g"], r.params["tau"], r.params["m"]) == (m.g, m.tau, m.m)
        plan = algo.plan(prm, 2, 10_000)
        assert plan.privacy["mechanism"] == proto


def test_worst_shift_is_the_whole_range():
    """Rényi audits use d = g; smaller shifts of the encoded reward are never worse."""
    for law, m, g in ((P.Skellam(50.0), 301, 10), (P.DiscreteGaussianSum(8, 12.5), 257, 10)):
        view = P.fold(law, m)
        full = P.renyi(view.shift(g), view, [2, 8, 64])
        for d in range(1, g):
            assert np.all(P.renyi(view.shift(d), view, [2, 8, 64]) <= full + 1e-12)


def test_relaxed_secagg_mixture_caps_the_view_and_is_added_to_2_eps_hat():
    m = mech("dist-dp-shuffle", 64, 1.0)
    r = audit_mechanism(m)
    assert r.rows[1].exact == pytest.approx(0.5 + r.rows[0].exact)
    assert r.rows[0].exact <= 0.5 + 1e-9


def test_dist_cdp_rows_and_lower_bounds():
    r = audit("dist-cdp-se", 1.0, 16, scale=1.0)
    assert r.passed
    rho = r.rows[0]
    assert rho.claimed == pytest.approx(mech("dist-cdp", 16, 1.0, 1.0).privacy["rho"])
    assert rho.exact == pytest.approx(0.5, rel=1e-6)  # ε²/2, up to the modulation
    bad = audit_mechanism(under_noised(mech("dist-cdp", 16, 1.0)))
    assert all(row.lower_bound for row in bad.rows) and bad.failures
    assert "≥" in bad.verdict()


def test_inconclusive_when_only_lower_bounds_below_the_claim():
    m = mech("dist-cdp", 16, 1.0)
    small = dataclasses.replace(m, fpar=(m.fpar[0] / 1e4,))
    r = audit_mechanism(small)
    for row in r.rows:  # pretend the claims were generous
        row.claimed = row.exact * 2
    assert not r.passed and not r.failures and r.verdict().startswith("INCONCLUSIVE")


def test_report_serializes_and_renders():
    from rich.console import Console

    r = audit("dist-rdp-se", 1.0, 64)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["passed"] and len(d["rows"]) == 63 and d["rows"][0]["status"] == "ok"
    console = Console(width=150, record=True)
    console.print(r.table())
    text = console.export_text()
    assert "ε(α), α = 64" in text and "Lemma 3" in text


def test_all_auditable_algorithms_run_fast_at_n_1024():
    for algo in auditable():
        r = audit(algo, 1.0, 1024, delta=1e-6)
        assert r.passed, r.verdict()
        assert r.seconds < 20  # generous: shared, noisy machine


def test_bad_input_fails_before_work():
    from bandsim.errors import ConfigError

    with pytest.raises(ConfigError, match="algorithm"):
        audit("ucb1", 0.5, 64)
    with pytest.raises(ConfigError, match="batch_size"):
        audit("dist-dp-se", 0.5, 0)
    with pytest.raises(ConfigError, match="delta"):
        audit("sdp-ae", 0.5, 64)
    with pytest.raises(ConfigError, match="epsilon"):
        audit("dist-dp-se", -1.0, 64)
    assert math.isfinite(audit("dist-dp-se", 0.5, 1).rows[0].exact)


@pytest.mark.parametrize("name", ["dist-dp", "dist-dp-shuffle"])
def test_laws_come_from_the_parameters_the_kernels_read(name):
    """The batched samplers read q = fpar[0], the per-user Pólya pairs β = fpar[1]: a
    change of either parameter alone makes the audit FAIL (one derivation)."""
    m = mech(name, 64, 0.5)
    q, beta = m.fpar[:2]
    assert audit_mechanism(m).passed
    b10 = beta**10
    batched = audit_mechanism(dataclasses.replace(m, fpar=(1 - b10, beta) + m.fpar[2:]))
    assert not batched.passed
    assert batched.failures[0].short in ("ε", "ε'") and batched.rows[-1].ok  # per-user fine
    per_user = audit_mechanism(dataclasses.replace(m, fpar=(q, b10) + m.fpar[2:]))
    assert not per_user.passed and [r.short for r in per_user.failures] == ["ε per-user"]


def test_discrete_laplace_from_q_keeps_full_precision():
    q = 1e-12  # β = 1 − q rounds, log1p(−q) does not
    law = P.DiscreteLaplace.from_q(q)
    assert law.log_beta == pytest.approx(-q, rel=1e-15)


def test_pass_tolerance_is_the_rows_error_bound():
    """exact ≤ claimed + error passes; the float error of a tiny ρ is not a FAIL."""
    r = audit("dist-cdp-se", 1e-3, 100_000)
    assert r.passed, r.verdict()
    h = r.rows[0]
    assert 0 < h.error < 1e-8 and h.exact <= h.claimed + h.tolerance
    from bandsim.privacy.report import Row

    assert Row("x", 1.0, 1.0 + 0.5e-10, error=1e-10).status == "ok"
    assert Row("x", 1.0, 1.0 + 2e-10, error=1e-10).status == "FAIL"
    assert Row("x", 1.0, math.nan, error=1e-10).status == "FAIL"
