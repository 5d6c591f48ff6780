"""Accounting for returning users: composition with dp-accounting and its inverse."""
import math

import pytest

pytest.importorskip("dp_accounting")

import dp_accounting  # noqa: E402
from dp_accounting import dp_event  # noqa: E402

from bandsim.privacy.accountant import (advanced_composition, calibrate, compose,  # noqa: E402
                                        rdp_to_dp)


def by_method(rows):
    return {r.method.split(" (")[0].split(",")[0]: r for r in rows}


def test_rdp_conversion_is_dp_accountings_example():
    """dp-accounting's own test: constant RDP 1.1 on α = 2…32 is (1.32783806176, 1e-5)-DP."""
    orders = range(2, 33)
    assert rdp_to_dp([1.1] * len(orders), 1e-5, orders) == pytest.approx(1.32783806176)


def test_discrete_laplace_composition_is_dp_accountings_example():
    """dp-accounting's own test: 3× DL(1, Δ=1) + 2× DL(0.5, Δ=1) is 4-DP; ours composes the
    simulator's DL(ε/g, g) the same way: B batches of ε-DP cost Bε."""
    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(dp_event.DiscreteLaplaceDpEvent(1, 1), 3)
    acc.compose(dp_event.DiscreteLaplaceDpEvent(0.5, 1), 2)
    assert acc.get_epsilon(0.0) == pytest.approx(4, abs=1e-6)
    rows = by_method(compose("dist-dp-se", 0.5, 1024, 8, 1e-9))
    assert rows["basic composition"].epsilon == pytest.approx(4.0)
    assert rows["PLD accountant"].epsilon == pytest.approx(4.0, abs=1e-3)
    assert rows["PLD accountant"].epsilon <= 4.0 + 1e-9
    # the audited views compose like the claims (exact ε per batch = ε at n = 1024)
    assert rows["PLD of the audited view"].epsilon == pytest.approx(4.0, abs=1e-3)
    assert rows["advanced composition"].epsilon > 4.0  # loose for small B


def test_pure_dp_at_delta_zero_is_basic_composition():
    rows = compose("cdp-se", 0.25, 64, 4, 0.0)
    assert [r.method for r in rows] == ["basic composition (B ε)"]
    assert rows[0].epsilon == pytest.approx(1.0)


def test_zcdp_composition_matches_the_rdp_curve_and_the_gaussian():
    """ZCDpEvent(ρ)×B through RdpAccountant = the curve Bρα through compute_epsilon;
    and (dp-accounting's test) ZCDp(1/(2σ²)) is the Gaussian mechanism's curve."""
    from bandsim.mechanisms import secagg as protocols

    B, delta = 16, 1e-6
    claimed, audited = compose("dist-cdp-se", 0.5, 256, B, delta)
    rho = protocols.mechanism("dist-cdp", 256, 0.5, 0.1, 10.0).privacy["rho"]
    curve = [B * rho * a for a in range(2, 65)]
    assert claimed.method.startswith("RdpAccountant")
    assert claimed.epsilon == pytest.approx(rdp_to_dp(curve, delta), rel=1e-9)
    assert audited.basis == "exact" and audited.epsilon <= claimed.epsilon * (1 + 1e-9)
    a1 = dp_accounting.rdp.RdpAccountant(orders=[2.71828])
    a1.compose(dp_event.GaussianDpEvent(3.14159))
    a2 = dp_accounting.rdp.RdpAccountant(orders=[2.71828])
    a2.compose(dp_event.ZCDpEvent(1 / (2 * 3.14159**2)))
    assert a1._rdp[0] == pytest.approx(a2._rdp[0])


def test_skellam_composition_and_appendix_h_scaling():
    """B batches of RDP cost O(ε√(B log 1/δ)), far below Bε for large B (Appendix H)."""
    rows = compose("dist-rdp-se", 0.1, 1024, 100, 1e-6)
    claimed, audited = rows
    assert audited.basis == "exact" and audited.epsilon <= claimed.epsilon
    assert claimed.epsilon < 0.6 * 100 * 0.1
    e = 0.1 * math.sqrt(100 * 2 * math.log(1e6))  # the Gaussian rate ε√(2B log(1/δ))
    assert 0.8 * e < claimed.epsilon < 1.2 * e


def test_advanced_composition_formula_and_shuffle_rows():
    e, d = advanced_composition(0.1, 1e-8, 50, 1e-6)
    assert e == pytest.approx(0.1 * math.sqrt(100 * math.log(1e6)) + 50 * 0.1 * math.expm1(0.1))
    assert d == pytest.approx(50e-8 + 1e-6)
    rows = by_method(compose("sdp-ae", 0.5, 1024, 10, 1e-6, batch_delta=1e-8))
    assert rows["advanced composition"].epsilon == pytest.approx(
        advanced_composition(0.5, 1e-8, 10, 1e-6 - 1e-7)[0])
    # the exact view of Algorithm 3 is much more private than its (ε, δ) claim
    assert rows["PLD of the exact view pmfs"].epsilon < 0.5 * rows["advanced composition"].epsilon


@pytest.mark.parametrize("algo", ["dist-dp-se", "dist-cdp-se", "dist-rdp-se", "sdp-ae", "dp-se"])
def test_calibration_meets_the_target_tightly(algo):
    B, te, td = 10, 1.0, 1e-6
    cals = calibrate(algo, B, te, td, 256)
    assert cals
    for c in cals:
        assert c.total_epsilon <= te * (1 + 1e-9), c
        if c.method.startswith("Appendix H"):
            continue
        over = compose(algo, c.epsilon_per_batch * 1.001, 256, B, td,
                       batch_delta=c.delta_per_batch or None, exact=False)
        total = {r.method: r.epsilon for r in over}[c.method]
        assert total > te, (c.method, total)  # tight: a hair more per batch breaks the target


def test_appendix_h_shuffle_recipe():
    cals = {c.method.split(" (")[0]: c for c in calibrate("vb-sdp-ae", 20, 1.0, 1e-6, 128)}
    h = cals["Appendix H recipe"]
    assert h.epsilon_per_batch == pytest.approx(1.0 / (2 * math.sqrt(40 * math.log(2e6))))
    assert h.delta_per_batch == pytest.approx(1e-6 / 40)
    assert h.epsilon_per_batch < cals["advanced composition"].epsilon_per_batch


def test_bad_input():
    from bandsim.errors import ConfigError

    with pytest.raises(ConfigError, match="returning"):
        compose("dist-dp-se", 0.5, 64, 0, 1e-6)
    with pytest.raises(ConfigError, match="delta"):
        compose("sdp-ae", 0.5, 64, 4, 1e-6)
    with pytest.raises(ConfigError, match="target_delta"):
        calibrate("sdp-ae", 4, 1.0, 0.0, 64)
