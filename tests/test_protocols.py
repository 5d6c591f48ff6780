"""The protocol P = (R, S, A) of seed 003: exact pmfs, per-user = batched, edges.

The analyzer output for n Bernoulli(μ) rewards is z = W(g·B + Σ η)/g with
B ~ Binomial(n, μ) and W the representative in the window [−τ, n g + τ]
(Algorithm 3). Its exact pmf is the convolution of the scaled binomial with
the total-noise pmf (scipy.stats: dlaplace, skellam, nbinom; normalized
exp(−k²/2σ²) for the discrete Gaussian), folded mod m.
"""
import math

import numpy as np
import pytest
from scipy import stats

import bandsim
from bandsim.mechanisms import secagg as protocols
from tests.conftest import SECAGG_NAMES
from bandsim.errors import ConfigError
from bandsim.kernels import rewards, secagg
from bandsim.kernels.hooks import unbound
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_gof, chi2_two_sample

SIZE = 20_000


def noise_pmf(mech, k, per_user=False):
    """Exact pmf of the total noise Σ η_i at integers k (what the path draws)."""
    k = np.asarray(k)
    if mech.name in ("dist-dp", "central", "dist-dp-shuffle"):
        eps = mech.epsilon / 2 if mech.name == "dist-dp-shuffle" else mech.epsilon
        return stats.dlaplace.pmf(k, eps / mech.g)
    if mech.name == "dist-rdp":
        return stats.skellam.pmf(k, mech.fpar[0], mech.fpar[0])
    if mech.name == "local":
        j = np.arange(0, 20_000)
        nb = stats.nbinom.pmf(j, mech.n, mech.fpar[0])
        # P(X − Y = k) = Σ_j nb(j + |k|) nb(j) for X, Y iid (the full convolution's
        # terms, same truncation), only at the k asked for: O(|k| N), not O(N²)
        a = np.abs(k)
        u, inv = np.unique(a, return_inverse=True)
        d = np.array([nb[:j.size - i] @ nb[i:] if i < j.size else 0.0 for i in u])
        return d[inv].reshape(k.shape)
    # dist-cdp: batched = one N_Z(0, g²/ε²); per user = n-fold convolution
    s2 = mech.fpar[0] / (mech.n if per_user else 1)
    r = int(14 * math.sqrt(mech.fpar[0])) + 5
    x = np.arange(-r, r + 1)
    w = np.exp(-x.astype(float) ** 2 / (2 * s2))
    w /= w.sum()
    pmf = w
    if per_user:
        for _ in range(mech.n - 1):
            pmf = np.convolve(pmf, w)
    off = (pmf.size - 1) // 2
    idx = k + off
    return np.where((idx >= 0) & (idx < pmf.size), pmf[np.clip(idx, 0, pmf.size - 1)], 0.0)


def output_pmf(mech, mu, per_user=False):
    """Exact pmf of g·z on the analyzer window [−τ, n g + τ] (Bernoulli rewards)."""
    n, g, tau, m = mech.n, mech.g, mech.tau, mech.m
    r = int(40 * math.sqrt(mech.noise_variance)) + 50
    k = np.arange(-r, r + 1)
    eta = noise_pmf(mech, k, per_user)
    xs = np.zeros(n * g + 1)
    xs[::g] = stats.binom.pmf(np.arange(n + 1), n, mu)
    total = np.convolve(xs, eta)  # values −r … n g + r
    values = np.arange(-r, n * g + r + 1)
    window = np.arange(-tau, n * g + tau + 1)
    folded = np.bincount((values + tau) % m, weights=total, minlength=m)
    if mech.name == "dist-dp-shuffle":
        q = mech.fpar[2]
        folded = (1 - q) * folded + q / m
    return window, folded


CASES = [  # (mechanism, n, ε, p, s): small n so that wrap-around happens
    ("dist-dp", 4, 0.5, 0.1, 1.0),
    ("dist-dp", 16, 1.0, 0.3, 1.0),
    ("dist-dp", 9, 2.0, 0.05, 1.0),
    ("central", 16, 0.5, 0.1, 1.0),
    ("dist-rdp", 4, 0.5, 0.1, 1.0),
    ("dist-rdp", 16, 1.0, 0.2, 3.0),
    ("dist-cdp", 4, 0.5, 0.1, 1.0),
    ("dist-cdp", 9, 1.0, 0.2, 2.0),
    ("local", 4, 0.5, 0.1, 1.0),
    ("local", 16, 1.0, 0.3, 1.0),
    ("dist-dp-shuffle", 16, 1.0, 0.1, 1.0),
]


@pytest.mark.parametrize("name,n,eps,p,s", CASES)
def test_batched_and_per_user_paths_match_each_other_and_the_exact_pmf(name, n, eps, p, s):
    mech = protocols.mechanism(name, n, eps, p, s)
    mu = 0.3
    zb = mech.estimates(mu, size=SIZE, rng=1)
    zu = mech.estimates(mu, size=SIZE, rng=2, path="per-user")
    assert chi2_two_sample(zb, zu) > ALPHA
    window, pmf = output_pmf(mech, mu)
    kb = np.round(zb * mech.g).astype(np.int64)
    ku = np.round(zu * mech.g).astype(np.int64)
    assert np.all((kb >= -mech.tau) & (kb <= n * mech.g + mech.tau))
    assert chi2_gof(kb, window, pmf) > ALPHA
    _, pmf_u = output_pmf(mech, mu, per_user=True)
    assert chi2_gof(ku, window, pmf_u) > ALPHA


def test_the_exact_pmf_test_has_power():
    # the same test rejects a mechanism whose noise is 30 % too small
    mech = protocols.mechanism("dist-dp", 16, 1.0, 0.3)
    wrong = protocols.mechanism("dist-dp", 16, 1.3, 0.3)
    z = mech.estimates(0.3, size=SIZE, rng=1)
    window, pmf = output_pmf(mech, 0.3)
    assert chi2_gof(np.round(z * mech.g).astype(np.int64), window, pmf) > ALPHA
    zw = secagg.draw(np.random.default_rng(3), mech.code, rewards.BERNOULLI,
                     np.array([0.3, 0, 0, 0]), mech.n,
                     np.array([*wrong.fpar, 0, 0]), np.array(mech.ipar), SIZE, False,
                     unbound())
    assert chi2_gof(np.round(zw * mech.g).astype(np.int64), window, pmf) < ALPHA


def test_per_user_kernel_matches_the_plain_python_reference():
    for name, s in (("dist-dp", 1.0), ("dist-rdp", 2.0), ("local", 1.0), ("central", 1.0),
                    ("dist-cdp", 1.0)):
        mech = protocols.mechanism(name, 8, 0.5, 0.1, s)
        x = np.linspace(0, 1, 8)
        zk = mech.outputs(x, size=5000, rng=4, path="per-user")
        rng = np.random.default_rng(5)
        zr = np.array([reference.ref_protocol(rng, mech, x) for _ in range(5000)])
        assert chi2_two_sample(zk, zr) > ALPHA, name


@pytest.mark.parametrize("name", SECAGG_NAMES)
def test_fixed_inputs_batched_equals_per_user(name):
    mech = protocols.mechanism(name, 12, 0.8, 0.1, 1.5)
    x = np.random.default_rng(0).random(12)  # real rewards: randomized rounding matters
    zb = mech.outputs(x, size=SIZE, rng=6)
    zu = mech.outputs(x, size=SIZE, rng=7, path="per-user")
    assert chi2_two_sample(zb, zu) > ALPHA


@pytest.mark.parametrize("name,n,eps,s", [("dist-dp", 64, 0.5, 1), ("dist-rdp", 64, 0.5, 10),
                                          ("dist-cdp", 64, 0.5, 2), ("local", 64, 0.5, 1),
                                          ("dist-dp-shuffle", 64, 1.0, 1)])
def test_total_noise_has_the_variance_its_theorem_requires(name, n, eps, s):
    mech = protocols.mechanism(name, n, eps, 0.1, s)
    g = mech.g
    if name in ("dist-dp", "dist-dp-shuffle"):  # Lap_Z(g/ε'): 2β/(1−β)², β = e^{−ε'/g}
        e = eps / 2 if name == "dist-dp-shuffle" else eps
        beta = math.exp(-e / g)
        assert mech.noise_variance == pytest.approx(2 * beta / (1 - beta) ** 2, rel=1e-12)
    elif name == "local":
        beta = math.exp(-eps / g)
        assert mech.noise_variance == pytest.approx(2 * n * beta / (1 - beta) ** 2, rel=1e-12)
    else:  # Sk(0, g²/ε²); Σ of n N_Z(0, g²/(nε²)) has variance g²/ε² (1 − O(e^{−2π²s²}))
        assert mech.noise_variance == pytest.approx(g * g / eps**2, rel=1e-12)
    k = np.arange(-int(30 * math.sqrt(mech.noise_variance)), int(30 * math.sqrt(mech.noise_variance)) + 1)
    pmf = noise_pmf(mech, k)
    exact_var = float((k.astype(float) ** 2 * pmf).sum())
    tol = 1e-6 if name != "dist-cdp" else 1e-5
    assert exact_var == pytest.approx(mech.noise_variance, rel=tol)
    z = stats.norm.isf(ALPHA / 2)
    mu4 = float((k.astype(float) ** 4 * pmf).sum())
    for path in ("batched", "per-user"):
        x = mech.total_noise(size=SIZE, rng=8, path=path).astype(float)
        se = math.sqrt((mu4 - exact_var**2) / x.size)
        assert abs(np.mean(x**2) - exact_var) < z * se, path


@pytest.mark.parametrize("name", SECAGG_NAMES)
def test_no_wrap_around_error_inside_the_analyzer_window(name):
    # A decodes every true sum S ∈ [−τ, n g + τ] exactly, whatever S mod m is
    mech = protocols.mechanism(name, 16, 0.5, 0.1, 1.0)
    n, g, tau, m = mech.n, mech.g, mech.tau, mech.m
    for S in range(-tau, n * g + tau + 1):
        assert secagg.analyze(S % m, n, g, tau, m) == S / g
    # sums near 0 (all rewards 0) and near n g (all rewards 1): outputs stay in
    # the window and follow the folded noise pmf; no output is off by ±m/g
    for x in (np.zeros(n), np.ones(n)):
        for path in ("batched", "per-user"):
            z = mech.outputs(x, size=SIZE, rng=19, path=path)
            k = np.round(z * g).astype(np.int64)
            assert np.all((k >= -tau) & (k <= n * g + tau))
            if name in ("dist-dp", "central", "dist-rdp", "local"):
                r = int(40 * math.sqrt(mech.noise_variance)) + 50
                v = np.arange(-r, r + 1)
                folded = np.bincount((v + int(x.sum()) * g + tau) % m,
                                     weights=noise_pmf(mech, v), minlength=m)
                assert chi2_gof(k, np.arange(-tau, n * g + tau + 1), folded) > ALPHA


def test_dist_dp_analyzer_error_is_within_tau_over_g_with_probability_1_minus_p():
    # Theorem 1 proof, eq. (6): P(|A(ŷ) − Σx̂/g| > τ/g) ≤ p
    mech = protocols.mechanism("dist-dp", 256, 0.5, 0.05)
    x = np.full(256, 0.5)
    z = mech.outputs(x, size=SIZE, rng=10)
    frac_out = np.mean(np.abs(z - 128) > mech.tau / mech.g)
    assert frac_out <= 0.05 + stats.norm.isf(ALPHA) * math.sqrt(0.05 * 0.95 / SIZE)


def test_int64_is_safe_up_to_horizon_1e10():
    n = 10**10
    for name in SECAGG_NAMES:
        for eps in (0.01, 1.0, 10.0):
            for s in (1.0, 100.0):
                mech = protocols.mechanism(name, n, eps, 1e-10, s)
                assert 0 < mech.m <= protocols.MAX_MODULUS
                assert mech.m == n * mech.g + 2 * mech.tau + 1
                assert mech.bits == math.ceil(math.log2(mech.m))
    # one batch of 10^10 users runs without overflow and decodes to ≈ μ n
    mech = protocols.mechanism("dist-rdp", n, 10.0, 1e-10, 100.0)
    z = mech.estimates(0.5, size=20, rng=11)
    assert np.all(np.abs(z / n - 0.5) < 1e-3)
    with pytest.raises(ConfigError, match="int64"):  # g = ⌈sε√n⌉ = 10⁹: m ≈ 10¹⁹
        protocols.mechanism("dist-rdp", n, 1e4, 0.1, 1.0)
    with pytest.raises(ConfigError, match="2\\^52"):  # Skellam μ ≈ s²n/2 = 5·10¹⁵
        protocols.mechanism("dist-rdp", n, 1000.0, 0.1, 1000.0)
    for algo in ("dist-dp-se", "dist-rdp-se", "dist-cdp-se", "cdp-se", "ldp-se",
                 "dist-dp-se-shuffle"):
        prep = bandsim.runner.prepare(algo, instance="C1", arms=3, epsilon=1.0,
                                      horizon=10**10, runs=1, seed=1)
        assert max(st["m"] for st in prep.config["stages"]) < 2**62


@pytest.mark.parametrize("kw,field", [(dict(scale=0.5), "scale"), (dict(epsilon=0.0), "epsilon"),
                                      (dict(epsilon=-1.0), "epsilon"), (dict(p=0.0), "p"),
                                      (dict(p=1.0), "p"), (dict(p=1.5), "p"), (dict(n=0), "n")])
def test_bad_parameters_fail_with_clear_messages(kw, field):
    args = dict(n=16, epsilon=0.5, p=0.1, scale=1.0)
    args.update(kw)
    with pytest.raises(ConfigError) as e:
        protocols.mechanism("dist-rdp", args["n"], args["epsilon"], args["p"], args["scale"])
    assert e.value.field == field
    if field != "n":
        with pytest.raises(ConfigError) as e:
            sim = {k: v for k, v in args.items() if k != "n"}
            bandsim.simulate("dist-rdp-se", instance="C1", arms=3, horizon=1000, runs=2, **sim)
        assert e.value.field == field and "invalid" in str(e.value)
    with pytest.raises(ConfigError, match="mechanism"):
        protocols.mechanism("dist-xx", 16, 0.5)


# --------------------------------------------------------------------------
# The discrete Gaussian sum (batched dist-cdp) and its distance bound


def _dg(s2, r):
    x = np.arange(-r, r + 1)
    w = np.exp(-x.astype(float) ** 2 / (2 * s2))
    return w / w.sum()


@pytest.mark.parametrize("s2", [0.25, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("n", [2, 3, 6])
def test_discrete_gaussian_sum_distance_bound_holds(n, s2):
    r = int(12 * math.sqrt(n * s2)) + 20
    p1 = _dg(s2, r)
    conv = p1
    for _ in range(n - 1):
        conv = np.convolve(conv, p1)
    q = _dg(n * s2, (conv.size - 1) // 2)
    tv = 0.5 * np.abs(conv - q).sum()
    bound = protocols.dgauss_sum_tv_bound(n, s2)
    assert tv <= bound + 1e-15
    if tv > 1e-12:  # and the bound is informative (within a factor 20)
        assert bound <= 20 * tv


def test_discrete_gaussian_bound_is_negligible_at_the_algorithms_scale():
    # per-user σ² = g²/(nε²) ≥ s² ≥ 1 in dist-cdp-se
    for n in (4, 4**6, 4**12, 5 * 10**7):
        assert protocols.dgauss_sum_tv_bound(n, 1.0) < 1e-5
        assert protocols.dgauss_sum_tv_bound(n, 100.0) == 0.0


def test_rounding_variance_matches_monte_carlo():
    rng = np.random.default_rng(12)
    for mu, sigma, g in ((0.3, 0.1, 1), (0.5, 0.1, 7), (0.05, 0.1, 40)):
        x = np.clip(rng.normal(mu, sigma, 400_000), 0, 1)
        f = x * g - np.floor(x * g)
        v = f * (1 - f)
        se = v.std() / math.sqrt(v.size)
        assert abs(rewards.rounding_variance(mu, sigma, g) - v.mean()) < 5 * se


def test_gaussian_encoded_sum_clt_path_is_close_to_per_user():
    from bandsim.instances import clipped_gaussian_moments

    mu, sigma, g = 0.4, 0.1, 3
    n = rewards.GAUSSIAN_EXACT_MAX_N + 1
    m1, var = clipped_gaussian_moments(mu, sigma)
    par = np.array([mu, sigma, m1, var])
    rng = np.random.default_rng(13)
    clt = np.array([rewards.encoded_sum(rng, rewards.CLIPPED_GAUSSIAN, par, n, g)
                    for _ in range(SIZE)], float)
    x = np.clip(rng.normal(mu, sigma, (SIZE, n)), 0, 1) * g
    exact = (np.floor(x) + (rng.random(x.shape) < x - np.floor(x))).sum(1)
    vx = g * g * var + rewards.rounding_variance(mu, sigma, g)
    bound = 0.4748 * g / math.sqrt(n * vx)
    margin = 2 * math.sqrt(math.log(4 / ALPHA) / (2 * SIZE))
    assert stats.ks_2samp(clt, exact).statistic <= bound + margin
    z = stats.norm.isf(ALPHA / 2)
    for s in (clt, exact):
        assert abs(s.mean() - n * g * m1) < z * math.sqrt(n * vx / SIZE)
        assert abs(s.var() / (n * vx) - 1) < z * math.sqrt(2 / SIZE) * 1.5


def test_gaussian_rewards_batched_equals_per_user_below_the_clt_threshold():
    mech = protocols.mechanism("dist-rdp", 40, 0.5, 0.1, 2.0)
    zb = mech.estimates(0.6, size=SIZE, rng=14, rewards="gaussian")
    zu = mech.estimates(0.6, size=SIZE, rng=15, rewards="gaussian", path="per-user")
    assert chi2_two_sample(zb, zu) > ALPHA
