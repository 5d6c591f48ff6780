"""The returning-user accountant (bandsim.privacy.accountant) against an independent
dp-accounting composition, for every private built-in.

The independent side is built here from the declarations alone — the participation's
releases (a Laplace release as dp-accounting's ``LaplaceDpEvent``, an SVT instance as
a pure ε-DP privacy-loss distribution), a batch's derived noise
law and claimed guarantee — and composed B times by dp-accounting's own accountants,
never through the accountant's code. An accountant that composes a wrong count of
batches or releases, or the wrong per-batch guarantee, differs."""
import math

import pytest

pytest.importorskip("dp_accounting")

import dp_accounting  # noqa: E402
from dp_accounting import dp_event  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

from bandsim import registry  # noqa: E402
from bandsim.guarantees import Guarantee  # noqa: E402
from bandsim.privacy import accountcheck  # noqa: E402
from bandsim.privacy.accountant import ORDERS, accountable, compose  # noqa: E402
from bandsim.privacy.participation import cases, declares_releases, releases_of  # noqa: E402

B, EPS, N, DELTA, BATCH_DELTA, HORIZON = 5, 0.5, 1024, 1e-5, 1e-7, 10**5
PRIVATE = sorted(n for n, a in registry.algorithms().items() if a.private)


def _row(rows, prefix):
    return next(r for r in rows if r.method.startswith(prefix))


def _independent_releases(algo, prm):
    """(basic ε, PLD ε at DELTA) of B participations from the declared releases: Laplace
    releases as dp-accounting's ``LaplaceDpEvent`` composed by its ``PLDAccountant``; with
    an SVT instance (a pure ε-DP block, which no dp-accounting event describes), the PLDs
    of dp-accounting's ``from_laplace_mechanism`` and ``from_privacy_parameters``."""
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as PLD

    basic, pld = 0.0, 0.0
    for rs in cases(releases_of(algo, prm, HORIZON)).values():
        eps_each = sum(r.count * r.sensitivity / r.scale if r.law == "laplace" else
                       r.count * (r.sensitivity / r.scale + 2 * r.sensitivity / r.query_scale)
                       for r in rs)
        if any(r.law == "svt" for r in rs):
            one = None
            for r in rs:
                for _ in range(r.count):
                    x = (PLD.from_laplace_mechanism(r.scale, sensitivity=r.sensitivity,
                                                    value_discretization_interval=1e-4)
                         if r.law == "laplace" else PLD.from_privacy_parameters(
                             common.DifferentialPrivacyParameters(
                                 r.sensitivity / r.scale + 2 * r.sensitivity / r.query_scale, 0.0),
                             value_discretization_interval=1e-4))
                    one = x if one is None else one.compose(x)
            got = one.self_compose(B).get_epsilon_for_delta(DELTA)
        else:
            events = [dp_event.LaplaceDpEvent(r.scale / r.sensitivity)
                      for r in rs for _ in range(r.count)]
            acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
            acc.compose(dp_event.SelfComposedDpEvent(dp_event.ComposedDpEvent(events), B))
            got = acc.get_epsilon(DELTA)
        basic, pld = max(basic, B * eps_each), max(pld, got)
    return basic, pld


def test_every_private_builtin_is_accountable():
    assert set(accountable()) >= {n for n in PRIVATE if registry.is_builtin(n, "algorithm")}


@pytest.mark.parametrize("name", [n for n in PRIVATE if registry.is_builtin(n, "algorithm")])
def test_the_accountant_is_an_independent_dp_accounting_composition(name):
    """Every row of compose() against this test's own composition and against the
    product's check (bandsim.privacy.accountcheck)."""
    algo = registry.get_algorithm(name)
    spec = registry.get_mechanism(algo.mechanism)
    kw = dict(batch_delta=BATCH_DELTA) if algo.param("delta") is not None else {}
    rows = compose(name, EPS, N, B, DELTA, horizon=HORIZON, **kw)
    # the product's check (what `bandsim audit --returning` runs) finds nothing either
    assert accountcheck.check(name, rows, EPS, N, B, DELTA, horizon=HORIZON, **kw) == []
    if declares_releases(algo):
        prm = algo.resolve({"epsilon": EPS}, HORIZON)
        basic, pld = _independent_releases(algo, prm)
        want = accountcheck.expected(name, EPS, N, B, DELTA, horizon=HORIZON, **kw)
        assert want[0].epsilon == pytest.approx(basic, rel=1e-12)  # and is this test's own
        assert want[1].epsilon == pytest.approx(pld, rel=2e-3, abs=2e-3)
        assert _row(rows, "basic composition").epsilon == pytest.approx(basic, rel=1e-12)
        assert _row(rows, "PLD accountant").epsilon == pytest.approx(pld, rel=2e-3, abs=2e-3)
        return
    prm = algo.resolve(dict({"epsilon": EPS}, **({"delta": BATCH_DELTA} if kw else {})),
                       HORIZON)
    b = spec.derive(N, prm)
    if spec.kind is Guarantee.PURE:  # discrete Laplace Lap_Z(g/ε) on a sum of sensitivity g
        law = spec.noise_law(b.extra.get("mech", b))
        relax = 2 * B * b.privacy["epsilon_relaxation"] if "relax_q" in b.extra else 0.0
        acc = dp_accounting.pld.PLDAccountant(value_discretization_interval=1e-4)
        acc.compose(dp_event.SelfComposedDpEvent(
            dp_event.DiscreteLaplaceDpEvent(-law.log_beta, b.g), B))
        assert _row(rows, "basic composition").epsilon == pytest.approx(B * b.privacy["epsilon"])
        assert _row(rows, "PLD accountant").epsilon == pytest.approx(
            acc.get_epsilon(DELTA) + relax, rel=2e-3, abs=2e-3)
    elif spec.kind is Guarantee.RDP:  # the claimed curve, B-fold, converted by dp-accounting
        curve = [B * spec.claim(b, a)[0] for a in ORDERS]
        assert _row(rows, "claimed RDP").epsilon == pytest.approx(
            rdp.compute_epsilon(list(ORDERS), curve, DELTA)[0], rel=1e-9)
    elif spec.kind is Guarantee.ZCDP:  # ρ-zCDP composes to Bρ: one event of Bρ
        acc = dp_accounting.rdp.RdpAccountant(orders=list(ORDERS))
        acc.compose(dp_event.ZCDpEvent(B * b.privacy["rho"]))
        assert _row(rows, "RdpAccountant").epsilon == pytest.approx(acc.get_epsilon(DELTA),
                                                                    rel=1e-9)
    else:  # (ε, δ) per batch: Dwork–Rothblum–Vadhan advanced composition at δ' = δ − Bδ_b
        e, d = b.privacy["epsilon"], b.privacy["delta"]
        slack = DELTA - B * d
        want = math.sqrt(2 * B * math.log(1 / slack)) * e + B * e * math.expm1(e)
        row = _row(rows, "advanced composition")
        assert row.epsilon == pytest.approx(want, rel=1e-9) and row.delta == pytest.approx(DELTA)


def test_an_accountant_that_composes_half_the_batches_differs():
    """The comparison bites: B/2 compositions are far from the independent B-fold one."""
    algo = registry.get_algorithm("dp-ucb")
    basic, pld = _independent_releases(algo, algo.resolve({"epsilon": EPS}, HORIZON))
    half = compose("dp-ucb", EPS, N, B // 2, DELTA, horizon=HORIZON)
    assert _row(half, "PLD accountant").epsilon < 0.8 * pld
    assert _row(half, "basic composition").epsilon < 0.5 * basic


def test_an_accountant_mutated_to_compose_one_batch_less_fails_the_comparison(monkeypatch):
    """A count-off-by-one inside the accountant (B − 1 compositions of the declared
    releases), not a smaller B asked for: the independent composition tells it."""
    from bandsim.privacy import accountant

    orig = accountant.compose_releases
    monkeypatch.setattr(accountant, "compose_releases",
                        lambda releases, returning, delta: orig(releases, returning - 1, delta))
    algo = registry.get_algorithm("dp-se")
    basic, pld = _independent_releases(algo, algo.resolve({"epsilon": EPS}, HORIZON))
    rows = compose("dp-se", EPS, N, B, DELTA, horizon=HORIZON)
    assert _row(rows, "basic composition").epsilon != pytest.approx(basic, rel=1e-12)
    assert _row(rows, "PLD accountant").epsilon != pytest.approx(pld, rel=2e-3, abs=2e-3)


def test_audit_returning_exits_1_naming_an_accountant_that_composes_one_batch_less(
        monkeypatch, capsys):
    """Negative control of the product check: the accountant mutated to compose B − 1
    participations makes `bandsim audit dp-se --returning B` exit 1 with one line naming
    the algorithm, the check and both numbers."""
    from bandsim.cli import main
    from bandsim.privacy import accountant

    orig = accountant.compose_releases
    monkeypatch.setattr(accountant, "compose_releases",
                        lambda releases, returning, delta: orig(releases, returning - 1, delta))
    argv = ["audit", "dp-se", "--epsilon", str(EPS), "--returning", str(B), "--target-delta",
            str(DELTA)]
    assert main(argv) == 1
    lines = [x for x in capsys.readouterr().out.splitlines() if x.startswith("FAIL accountant")]
    basic = [x for x in lines if "basic composition" in x]
    assert len(basic) == 1 and "dp-se" in basic[0] and "accountant vs dp-accounting" in basic[0]
    assert f"{(B - 1) * EPS:.9g}" in basic[0] and f"{B * EPS:.9g}" in basic[0]
    monkeypatch.setattr(accountant, "compose_releases", orig)
    assert main(argv) == 0


def test_a_calibration_that_composes_one_batch_less_fails_the_check(monkeypatch):
    """calibrate's per-batch ε, bisected on B − 1 compositions, overshoots the target
    under the independent B-fold composition."""
    from bandsim.privacy import accountant

    orig = accountant.compose_releases
    monkeypatch.setattr(accountant, "compose_releases",
                        lambda releases, returning, delta: orig(releases, returning - 1, delta))
    cal = accountant.calibrate("dp-se", B, 1.0, DELTA, N, horizon=HORIZON)
    bad = accountcheck.check_calibration("dp-se", cal, B, 1.0, DELTA, N, horizon=HORIZON)
    assert len(bad) == len(cal) and all(m.independent > 1.0 for m in bad)
