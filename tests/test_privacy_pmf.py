"""The exact pmf toolkit of the privacy audits: laws, folding, convolution, divergences."""
import math

import numpy as np
import pytest
from scipy import stats

from bandsim.privacy import pmf as P


def brute_fold(logp, lo, m):
    """Sum exp(logp) over residues mod m (plain floats; bulk values only)."""
    out = np.zeros(m)
    np.add.at(out, (lo + np.arange(len(logp))) % m, np.exp(logp))
    return out / out.sum()


def dgauss_sum_brute(n, s2, J=60):
    j = np.arange(-J, J + 1)
    p1 = np.exp(-j * j / (2 * s2))
    p1 /= p1.sum()
    pn = p1
    for _ in range(n - 1):
        pn = np.convolve(pn, p1)
    return -n * J, pn


def test_skellam_matches_scipy_in_the_bulk():
    law = P.Skellam(8.0)
    k = np.arange(-60, 61)
    ref = stats.skellam.pmf(k, 8.0, 8.0)
    got = np.exp(law.logpmf(k))
    assert np.allclose(got, ref, rtol=1e-12, atol=0)


def test_skellam_far_tail_matches_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    mu = 16.0
    law = P.Skellam(mu)
    for k in (40, 200, 2048, 10_000):  # ive underflows from ~k = 150 on: Debye expansion
        ref = float(mpmath.log(mpmath.besseli(k, 2 * mu)) - 2 * mu)
        assert law.logpmf(np.array([k]))[0] == pytest.approx(ref, rel=1e-12, abs=1e-8)


@pytest.mark.parametrize("n,s2", [(1, 1.0), (2, 1.0), (3, 0.8), (6, 0.9), (16, 1.0), (7, 0.3),
                                  (4, 0.1)])
def test_discrete_gaussian_sum_equals_the_n_fold_convolution(n, s2):
    """Poisson-summation form (σ² large) and direct form (σ² small) vs brute force."""
    lo, pn = dgauss_sum_brute(n, s2)
    law = P.DiscreteGaussianSum(n, s2)
    w = P.window(law, -30, 30)
    sel = slice(-30 - lo, 31 - lo)
    ref = pn[sel] / pn[sel].sum()
    live = ref > 1e-290
    assert np.max(np.abs(np.log(ref[live]) - w.logp[live])) < 1e-11
    assert law.method == ("poisson-summation" if s2 >= 0.8 else "direct")


def test_discrete_gaussian_sum_modulation_is_the_kls_distance():
    """For σ ≥ 1 the sum is N_Z(0, nσ²) up to a modulation of order n e^{−2π²σ²}."""
    law = P.DiscreteGaussianSum(1024, 1.0)
    assert 0 < law.modulation < 1024 * 2 * math.exp(-2 * math.pi**2 * (1 - 1 / 1024)) * 1.01
    assert P.DiscreteGaussianSum(1024, 100.0).modulation == 0.0


def test_fold_matches_brute_force():
    for law, m in ((P.Skellam(20.0), 31), (P.DiscreteGaussianSum(5, 2.0), 17),
                   (P.DiscreteLaplace(0.8), 23), (P.Binomial(50, 0.3), 7)):
        lo, hi = -400, 400
        k = np.arange(lo, hi + 1)
        ref = brute_fold(law.logpmf(k), lo, m)
        f = P.fold(law, m)
        assert f.modulus == m and f.rel_err < 1e-20
        assert np.allclose(f.pmf(), ref, rtol=1e-12, atol=0)


def test_fold_keeps_far_tails_relative():
    """The smallest folded value of a wide modulus is exact in log space (no underflow)."""
    law = P.DiscreteGaussian(4.0)
    m = 201  # f(100) ∝ e^{−100²/8} = e^{−1250}: far below double precision
    f = P.fold(law, m)
    lz = math.log(sum(math.exp(-j * j / 8) for j in range(-40, 41)))
    assert f.logp[100] == pytest.approx(-1250 - lz, abs=1e-9)  # k = 100 (−101: e^{−1275})


def test_convolution_of_skellams_is_skellam():
    a = P.window(P.Skellam(3.0), -80, 80)
    b = P.window(P.Skellam(5.0), -80, 80)
    c = P.convolve(a, b)
    ref = P.window(P.Skellam(8.0), c.lo, c.hi)
    inner = np.abs(c.support) <= 40  # beyond, the inputs' own windows (±80) matter
    assert np.max(np.abs(c.logp[inner] - ref.logp[inner])) < 1e-10  # relative, down to e^{−41}
    assert ref.logp[inner].min() < -40


def test_fft_convolution_bounds_its_error(monkeypatch):
    monkeypatch.setattr(P, "DIRECT_CONV_MAX", 10)
    a = P.window(P.Skellam(3.0), -80, 80)
    b = P.window(P.Skellam(5.0), -80, 80)
    c = P.convolve(a, b)
    ref = P.window(P.Skellam(8.0), c.lo, c.hi)
    bulk = ref.logp > math.log(1e-10)
    assert np.max(np.abs(np.exp(c.logp[bulk]) - np.exp(ref.logp[bulk]))) < 1e-11
    assert 0 < c.dropped < 1e-9  # the tails below the FFT's error were dropped, and counted
    assert np.all(np.isinf(c.logp[ref.logp < math.log(1e-20)]))


def test_truncate_reports_the_dropped_mass():
    w = P.window(P.DiscreteLaplace(0.9), -200, 200)
    t = P.truncate(w, 1e-3)
    kept = np.exp(w.logp[t.lo - w.lo:t.hi - w.lo + 1]).sum()
    assert t.dropped == pytest.approx(w.dropped + (1 - kept) / kept, rel=1e-9)
    assert t.dropped <= 1e-3 * 1.01 and len(t.logp) < len(w.logp)


@pytest.mark.parametrize("eps,g", [(0.1, 1), (0.5, 16), (1.0, 32), (2.0, 7)])
def test_exact_epsilon_of_discrete_laplace_with_sensitivity_g(eps, g):
    law = P.DiscreteLaplace(math.exp(-eps / g))
    W = 50 * g
    p = P.window(law, -W, W + g)
    q = P.window(law, -W - g, W).shift(g)  # X + g on the same support
    assert P.max_log_ratio(p, q) == pytest.approx(eps, abs=1e-9)
    assert P.max_log_ratio(q, p) == pytest.approx(eps, abs=1e-9)


@pytest.mark.parametrize("s2,delta", [(100.0, 10), (4.0, 3), (1.0, 1)])
def test_renyi_of_discrete_gaussian_is_the_closed_form(s2, delta):
    """D_α(N_Z(Δ, σ²) ‖ N_Z(0, σ²)) = αΔ²/(2σ²) exactly for integer Δ (CKS20)."""
    law = P.DiscreteGaussian(s2)
    W = int(70 * delta + 40 * math.sqrt(s2)) + 70 * delta
    p = P.window(law, -W, W)
    q = P.window(law, -W - delta, W - delta).shift(delta)
    alphas = np.array([2, 3, 8, 16, 32, 64])
    assert np.allclose(P.renyi(q, p, alphas), alphas * delta**2 / (2 * s2), rtol=1e-9)


def test_renyi_of_skellam_matches_high_precision_and_the_akl_bound():
    mpmath = pytest.importorskip("mpmath")
    from bandsim.mechanisms import secagg as protocols

    mpmath.mp.dps = 60
    mu, d = 8.0, 4  # Sk(0, 16), shift 4: Δ²/σ² = 1 (ε = 1 with g = 4)
    x = mpmath.mpf(2 * mu)

    def pm(k):
        return mpmath.besseli(abs(k), x) * mpmath.exp(-x)

    law = P.Skellam(mu)
    p = P.window(law, -3000, 3000 + d)
    q = P.window(law, -3000 - d, 3000).shift(d)
    for a in (2, 8, 32):
        ref = mpmath.log(mpmath.fsum(pm(k - d) ** a * pm(k) ** (1 - a)
                                     for k in range(-400, 1200))) / (a - 1)
        got = P.renyi(q, p, [a])[0]
        assert got == pytest.approx(float(ref), rel=1e-9)
        # below the AKL21 bound quoted as Lemma 3 (seed 003)
        assert got <= protocols.skellam_rdp(a, 1.0, 1.0, g=d)


def test_hockey_stick_matches_the_shuffle_module_and_limits():
    from bandsim.mechanisms.binary_summation import BinarySummation, privacy_profile

    mech = BinarySummation(0.5, 1e-3)
    _, p, q, _ = mech.output_pmfs(4096)
    with np.errstate(divide="ignore"):
        lp = P.LogPmf(0, np.log(p), modulus=len(p))
        lq = P.LogPmf(0, np.log(q), modulus=len(p))
    for e in (0.0, 0.01, 0.05, 0.2):
        mine = max(P.hockey_stick(lp, lq, e), P.hockey_stick(lq, lp, e))
        assert mine == pytest.approx(privacy_profile(p, q, e), rel=1e-9, abs=1e-300)
    assert P.hockey_stick(lp, lq, 0.0) == pytest.approx(0.5 * np.abs(p - q).sum(), rel=1e-12)
    law = P.DiscreteLaplace(math.exp(-0.3))
    f = P.fold(law, 101)
    assert P.hockey_stick(f.shift(1), f, 0.3 * (1 + 1e-9)) == 0.0  # pure ε = 0.3: δ(ε) = 0


def test_divergences_are_lower_bounds_on_a_truncated_support():
    law = P.DiscreteGaussianSum(16, 0.01)  # tiny noise: direct method on a window
    f = P.fold(law, 400)
    assert not f.exact and f.log_missing < -1000
    moved = f.shift(20)
    assert 1000 < P.max_log_ratio(moved, f) < math.inf
    assert np.all(np.isfinite(P.renyi(moved, f, [2, 64])))
