"""The discrete noise samplers against their exact laws, with tests that bite.

Goodness of fit. Each test draws ``N`` = 2·10⁶ fixed-seed values (10⁶ for
the totals of :func:`kernels.secagg.draw_total_noise`) in a Numba loop and
compares them with the exact pmf (``scipy.stats.nbinom`` and ``dlaplace``;
:mod:`bandsim.privacy.pmf` for the Skellam, discrete Gaussian and sum of
discrete Gaussians; the difference of two negative binomials by exact
convolution) with Pearson's chi-square test at significance ``ALPHA`` = 10⁻⁶. Cells: consecutive values are merged from the left until a
cell holds probability ≥ max(50/N, (1 − p_max)/30), p_max the largest atom;
the first cell is the whole left tail and the last the whole right tail
(tail binning), so no cell expects fewer than 50 draws.

Negative control. The same test applied to draws from the same sampler
with a 2 % variance error — Pólya r × 1.02, discrete Laplace (and its sum)
scale b × 1.01, Skellam μ × 1.02, discrete Gaussian σ² × 1.02 — must reject.
Power: under the alternative the Pearson statistic is approximately
noncentral χ²(df, λ), λ = N Σ_cells (p₁ − p₀)²/p₀; every test computes the
power P(χ²(df, λ) > χ²_{1−α}(df)) and requires it to be ≥ 0.999. The
values (``python -m tests.test_samplers --power``; miss = 1 − power):

=======================================  =====  ======  =====  ==========
case (null law; alternative)             N      df      λ      miss
=======================================  =====  ======  =====  ==========
polya(0.25, 0.8); r × 1.02               2·10⁶   8      272    5·10⁻²⁵
polya(1/16, 0.95); r × 1.02              2·10⁶  13      137    2·10⁻⁷
discrete_laplace b = 0.7; b × 1.01       2·10⁶   4      216    5·10⁻²⁰
discrete_laplace b = 25; b × 1.01        2·10⁶  25      179    2·10⁻⁹
discrete_laplace_sum n = 10, b = 4       2·10⁶  23      316    6·10⁻²⁵
skellam μ = 0.3, 4, 200; μ × 1.02        2·10⁶  4–24    261+   < 10⁻²⁵
discrete_gaussian σ² = 0.3, 2.5, 10⁴     2·10⁶  2–27    336+   < 10⁻²⁵
totals, n = 4 users, per-user path:
  DIST_DP (Pólya pairs) → Lap_Z(2)       10⁶    10       95    3·10⁻⁴
  DIST_RDP → Skellam(μ = 4)              10⁶    10      164    6·10⁻¹¹
  DIST_CDP → Σ of 4 N_Z(0, 2)            10⁶    10      166    4·10⁻¹¹
  LOCAL → NB(4, q) − NB(4, q), b = 1.5   10⁶    14      151    10⁻⁸
=======================================  =====  ======  =====  ==========

(The batched totals are tested against their exact laws too; their
samplers' controls are the rows above.) So a 2 % variance error in any
sampler is caught with probability ≥ 0.999, while a correct sampler fails a
test with probability 10⁻⁶. Injecting those errors into
:mod:`kernels.samplers` makes every one of these tests fail.

Fail closed: a Hypothesis property test draws random valid parameters (every
output an int64 of magnitude < 2^53) and random invalid ones (NaN, ±inf,
≤ 0, β ≥ 1, q ∉ [2^−46, 1], rates beyond 2^52): ``ValueError`` naming the
parameter.

Golden draws: 20 fixed-seed draws of each sampler and of the Numba
``Generator`` methods the kernels use, stored per Numba version (major.minor)
in ``tests/data/golden_draws.json``; ``python -m tests.test_samplers
--update-golden`` records them for the installed version.
"""
import json
import math
import re
import sys
import zlib
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from scipy import special, stats

from bandsim.privacy import pmf as laws
from bandsim.kernels import samplers, secagg
from bandsim.kernels.hooks import unbound

UNBOUND = unbound()

ALPHA = 1e-6
N = 2_000_000
MIN_EXPECTED = 50
CELLS = 30
MIN_POWER = 0.999
GOLDEN = Path(__file__).parent / "data" / "golden_draws.json"

POLYA, DLAP, DLAP_SUM, SKELLAM, DGAUSS = 0, 1, 2, 3, 4
CODE = {"polya": POLYA, "discrete_laplace": DLAP, "discrete_laplace_sum": DLAP_SUM,
        "skellam": SKELLAM, "discrete_gaussian": DGAUSS}


@njit
def _draw(rng, which, a, b, size):
    out = np.empty(size, np.int64)
    for i in range(size):
        if which == POLYA:
            out[i] = samplers.polya(rng, a, b)
        elif which == DLAP:
            out[i] = samplers.discrete_laplace(rng, a)
        elif which == DLAP_SUM:
            out[i] = samplers.discrete_laplace_sum(rng, np.int64(b), a)
        elif which == SKELLAM:
            out[i] = samplers.skellam(rng, a)
        else:
            out[i] = samplers.discrete_gaussian(rng, a)
    return out


def q_of(b):
    """Success probability q = 1 − e^{−1/b} of the geometrics of Lap_Z(b)."""
    return -math.expm1(-1.0 / b)


def sampler_args(name, params):
    """(a, b) arguments of :func:`_draw` for a law given in natural units."""
    if name == "polya":
        return params
    if name == "discrete_laplace":
        return q_of(params[0]), 0.0
    if name == "discrete_laplace_sum":
        n, b = params
        return q_of(b), float(n)
    return params[0], 0.0


def draw(name, params, size=N, seed=0):
    a, b = sampler_args(name, params)
    return _draw(np.random.default_rng(seed), CODE[name], a, b, size)


# --- exact laws -------------------------------------------------------------

def _nb_pmf(n, p, hi):
    return stats.nbinom.pmf(np.arange(hi + 1), n, p)


def support(name, params):
    """A window of consecutive integers outside which the law has mass < 1e-15."""
    if name == "polya":
        r, beta = params
        return np.arange(int(stats.nbinom.isf(1e-18, r, 1 - beta)) + 2)
    sd = math.sqrt(variance(name, params))
    K = int(40 * sd) + 40
    return np.arange(-K, K + 1)


def variance(name, params):
    if name == "polya":
        r, beta = params
        return r * beta / (1 - beta) ** 2
    if name == "discrete_laplace":
        beta = math.exp(-1 / params[0])
        return 2 * beta / (1 - beta) ** 2
    if name == "discrete_laplace_sum":
        return params[0] * variance("discrete_laplace", params[1:])
    if name == "skellam":
        return 2 * params[0]
    if name == "dgauss_sum":
        return params[0] * params[1]
    return params[0]


def exact_pmf(name, params, k):
    """Exact P(X = k) (float64 array) of the law ``name`` at ``params``."""
    if name == "polya":
        r, beta = params
        return stats.nbinom.pmf(k, r, 1 - beta)
    if name == "discrete_laplace":
        return stats.dlaplace.pmf(k, 1 / params[0])
    if name == "discrete_laplace_sum":  # NB(n, q) − NB(n, q), exact convolution
        n, b = params
        q = q_of(b)
        hi = int(stats.nbinom.isf(1e-18, n, q)) + 2
        nb = _nb_pmf(n, q, hi)
        diff = np.convolve(nb, nb[::-1])  # index i ↔ value i − hi
        inside = np.abs(k) <= hi
        return np.where(inside, diff[np.clip(k + hi, 0, 2 * hi)], 0.0)
    if name == "skellam":
        return np.exp(laws.Skellam(params[0]).logpmf(k))
    if name == "discrete_gaussian":
        law = laws.DiscreteGaussian(params[0])
    elif name == "dgauss_sum":
        law = laws.DiscreteGaussianSum(*params)
    else:
        raise ValueError(name)
    wide = support(name, params)
    assert laws.window(law, wide[0], wide[-1]).dropped < 1e-15
    return np.exp(law.logpmf(k) - special.logsumexp(law.logpmf(wide)))


def perturbed(name, params):
    """The same law with a 2 % variance error (scale 1 % larger for Laplace)."""
    if name == "polya":
        return params[0] * 1.02, params[1]
    if name == "discrete_laplace":
        return (params[0] * 1.01,)
    if name == "discrete_laplace_sum":
        return params[0], params[1] * 1.01
    if name == "dgauss_sum":
        return params[0], params[1] * 1.02
    return (params[0] * 1.02,)


# --- the test ---------------------------------------------------------------

def cell_ends(p, size=N):
    """End indices of the cells over a pmf window (module docstring)."""
    t = max(MIN_EXPECTED / size, (1.0 - p.max()) / CELLS)
    ends, acc = [], 0.0
    for i, pi in enumerate(p):
        acc += pi
        if acc >= t:
            ends.append(i + 1)
            acc = 0.0
    if acc > 0.0:  # the remainder joins the last cell (right tail)
        ends[-1] = len(p)
    return np.array(ends)


def cell_probs(p, ends):
    return np.add.reduceat(p, np.concatenate([[0], ends[:-1]]))


def chi2_pvalue(x, k, ends, p0):
    """Pearson's chi-square p-value of draws ``x`` against ``p0`` on the cells."""
    upper = k[ends[:-1] - 1]  # largest value of every cell but the last
    observed = np.bincount(np.searchsorted(upper, x, side="left"), minlength=len(ends))
    expected = x.size * cell_probs(p0, ends)
    stat = ((observed - expected) ** 2 / expected).sum()
    return stats.chi2.sf(stat, len(ends) - 1)


def power(ends, p0, p1, size=N):
    """(df, λ, power) of the test at ALPHA against the alternative ``p1``."""
    c0, c1 = cell_probs(p0, ends), cell_probs(p1, ends)
    df = len(ends) - 1
    lam = size * ((c1 - c0) ** 2 / c0).sum()
    return df, lam, stats.ncx2.sf(stats.chi2.isf(ALPHA, df), df, lam)


def check(x, y, law, params, size=N):
    """x must fit ``law(params)``; y (drawn with a 2 % variance error) must not."""
    k = support(law, params)
    p0 = exact_pmf(law, params, k)
    ends = cell_ends(p0, size)
    assert cell_probs(p0, ends).min() * size >= MIN_EXPECTED
    df, lam, pw = power(ends, p0, exact_pmf(law, perturbed(law, params), k), size)
    assert pw >= MIN_POWER, f"power {pw:.4f} (df {df}, λ {lam:.0f}) too low"
    assert chi2_pvalue(x, k, ends, p0) > ALPHA
    assert chi2_pvalue(y, k, ends, p0) < ALPHA, "a 2 % variance error went unnoticed"


SAMPLER_CASES = [
    ("polya", (0.25, 0.8)), ("polya", (1 / 16, 0.95)),
    ("discrete_laplace", (0.7,)), ("discrete_laplace", (25.0,)),
    ("discrete_laplace_sum", (10, 4.0)),
    ("skellam", (0.3,)), ("skellam", (4.0,)), ("skellam", (200.0,)),
    ("discrete_gaussian", (0.3,)), ("discrete_gaussian", (2.5,)),
    ("discrete_gaussian", (1e4,)),
]


@pytest.mark.parametrize("name,params", SAMPLER_CASES,
                         ids=[f"{n}{p}" for n, p in SAMPLER_CASES])
def test_sampler_fits_its_exact_law_and_a_2pct_variance_error_does_not(name, params):
    x = draw(name, params, seed=1)
    y = draw(name, perturbed(name, params), seed=2)
    check(x, y, name, params)


def test_discrete_laplace_pmf_is_chowdhury_zhou_definition_4():
    # pmf (e^{1/b} − 1)/(e^{1/b} + 1) e^{−|x|/b} (Chowdhury & Zhou, Definition 4)
    for b in (0.7, 2.0, 25.0):
        k = np.arange(-50, 51)
        a = 1 / b
        seed = (math.exp(a) - 1) / (math.exp(a) + 1) * np.exp(-np.abs(k) * a)
        assert np.allclose(exact_pmf("discrete_laplace", (b,), k), seed, rtol=1e-12, atol=0)


# --- per-user and batched totals of kernels.secagg ---------------------------

USERS = 4
#: Draws per path of a total (≥ 10⁶; the power at this size is still ≥ 0.999).
N_TOTAL = 1_000_000


def _fpar(mech, scale):
    """fpar of :mod:`kernels.secagg` for a total noise of the given scale."""
    if mech in (secagg.DIST_DP, secagg.LOCAL):  # Lap_Z(b): [q, β]
        return np.array([q_of(scale), math.exp(-1 / scale), 0.0, 0.0])
    return np.array([scale, 0.0, 0.0, 0.0])  # Skellam μ or discrete Gaussian σ²


#: mechanism → (scale, law of the batched total, law of the per-user total)
TOTAL_CASES = {
    "DIST_DP": (2.0, ("discrete_laplace", (2.0,)), ("discrete_laplace", (2.0,))),
    "DIST_RDP": (4.0, ("skellam", (4.0,)), ("skellam", (4.0,))),
    "DIST_CDP": (8.0, ("discrete_gaussian", (8.0,)), ("dgauss_sum", (USERS, 8.0 / USERS))),
    "LOCAL": (1.5, ("discrete_laplace_sum", (USERS, 1.5)),
              ("discrete_laplace_sum", (USERS, 1.5))),
}


@pytest.mark.parametrize("mech", list(TOTAL_CASES))
def test_total_noise_per_user_and_batched_fit_their_exact_laws(mech):
    code = getattr(secagg, mech)
    scale, batched_law, per_user_law = TOTAL_CASES[mech]
    # the alternative: every user's noise with a 2 % variance error (1 % scale for Laplace)
    wrong = scale * (1.01 if mech in ("DIST_DP", "LOCAL") else 1.02)
    tot = secagg.draw_total_noise
    check(tot(np.random.default_rng(3), code, USERS, _fpar(code, scale), N_TOTAL, True, UNBOUND),
          tot(np.random.default_rng(4), code, USERS, _fpar(code, wrong), N_TOTAL, True, UNBOUND),
          *per_user_law, size=N_TOTAL)
    x = tot(np.random.default_rng(5), code, USERS, _fpar(code, scale), N_TOTAL, False, UNBOUND)
    k = support(*batched_law)
    p0 = exact_pmf(*batched_law, k)
    assert chi2_pvalue(x, k, cell_ends(p0, N_TOTAL), p0) > ALPHA


def test_central_total_is_zero_and_unknown_codes_fail_closed():
    fpar = _fpar(secagg.CENTRAL, 2.0)
    rng = np.random.default_rng(0)
    for per_user in (False, True):
        assert not secagg.draw_total_noise(rng, secagg.CENTRAL, USERS, fpar, 100, per_user,
                                           UNBOUND).any()
        for bad in (0, 1, 8, 10, -1):
            with pytest.raises(ValueError, match="unknown mechanism"):
                secagg.draw_total_noise(rng, bad, USERS, fpar, 3, per_user, UNBOUND)
    with pytest.raises(ValueError, match="unknown mechanism"):
        secagg.central_noise(rng, 9, fpar, 101)
    assert secagg.central_noise(rng, secagg.DIST_DP, fpar, 101) == 0


# --- fail closed: random valid and invalid parameters -----------------------

def _finite(name, a, b):
    x = _draw(np.random.default_rng(0), CODE[name], a, b, 16)
    assert x.dtype == np.int64
    assert np.all(np.abs(x) < 2**53), x  # no int64 overflow sentinel, exact in float64
    if name == "polya":
        assert np.all(x >= 0)


POS = dict(allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(r=st.floats(1e-6, 1e3, **POS), beta=st.floats(1e-12, 1 - 1e-6, **POS),
       q=st.floats(samplers.Q_MIN, 1.0, **POS), n=st.integers(0, 10_000),
       q_sum=st.floats(1e-6, 1.0, **POS), mu=st.floats(1e-300, samplers.POISSON_MAX, **POS),
       sigma2=st.floats(5e-324, samplers.SIGMA2_MAX, **POS))
def test_valid_parameters_give_exact_int64_draws(r, beta, q, n, q_sum, mu, sigma2):
    _finite("polya", r, beta)
    _finite("discrete_laplace", q, 0.0)
    _finite("discrete_laplace_sum", q_sum, float(n))
    _finite("skellam", mu, 0.0)
    _finite("discrete_gaussian", sigma2, 0.0)


NONPOSITIVE = (st.sampled_from([math.nan, -math.inf, 0.0, -0.0, -5e-324])
               | st.floats(max_value=0.0))
NOT_FINITE_POSITIVE = NONPOSITIVE | st.sampled_from([math.inf])
BAD_BETA = NONPOSITIVE | st.floats(min_value=1.0)
BAD_Q = NONPOSITIVE | st.floats(min_value=1.0, exclude_min=True) | st.floats(
    0.0, samplers.Q_MIN, exclude_max=True)
BAD_MU = NOT_FINITE_POSITIVE | st.floats(min_value=samplers.POISSON_MAX, exclude_min=True)
BAD_SIGMA2 = NOT_FINITE_POSITIVE | st.floats(min_value=samplers.SIGMA2_MAX, exclude_min=True)


def _raises(name, a, b, param):
    with pytest.raises(ValueError, match=f"{name}: {param} must lie in"):
        _draw(np.random.default_rng(0), CODE[name], a, b, 1)


@settings(max_examples=60, deadline=None)
@given(bad_r=NOT_FINITE_POSITIVE, bad_beta=BAD_BETA, bad_q=BAD_Q, bad_n=st.integers(-10**12, -1),
       bad_mu=BAD_MU, bad_sigma2=BAD_SIGMA2)
def test_invalid_parameters_raise_value_error(bad_r, bad_beta, bad_q, bad_n, bad_mu, bad_sigma2):
    _raises("polya", bad_r, 0.5, "r")
    _raises("polya", 0.5, bad_beta, "beta")
    _raises("discrete_laplace", bad_q, 0.0, "q")
    _raises("discrete_laplace_sum", bad_q, 3.0, "q")
    with pytest.raises(ValueError, match="discrete_laplace_sum: n must be >= 0"):
        _draw(np.random.default_rng(0), DLAP_SUM, 0.5, float(bad_n), 1)
    _raises("skellam", bad_mu, 0.0, "mu")
    _raises("discrete_gaussian", bad_sigma2, 0.0, "sigma2")


def test_polya_rate_beyond_two_to_the_52_raises():
    # β = 1 − 2^−52: Gamma(10⁴, β/(1 − β)) rates are ≈ 4.5·10¹⁹ > 2^52
    with pytest.raises(ValueError, match="polya: Poisson rate"):
        _draw(np.random.default_rng(0), POLYA, 1e4, 1 - 2.0**-52, 1)


# --- golden draws -----------------------------------------------------------

#: name → (kind, code, a, b): a Generator method the kernels use (``int`` or
#: ``float`` result; code of :func:`_method`), or a sampler of
#: :mod:`kernels.samplers` (code and arguments of :func:`_draw`).
GOLDEN_CASES = {
    "binomial(20, 0.4)": ("int", 0, 20.0, 0.4),        # inversion
    "binomial(1000, 0.3)": ("int", 0, 1000.0, 0.3),    # BTPE
    "binomial(10**6, 0.9)": ("int", 0, 1e6, 0.9),      # BTPE on 1 − p
    "poisson(3.5)": ("int", 1, 3.5, 0.0),              # multiplication
    "poisson(1e4)": ("int", 1, 1e4, 0.0),              # PTRS
    "geometric(0.5)": ("int", 2, 0.5, 0.0),            # search
    "geometric(0.01)": ("int", 2, 0.01, 0.0),          # inversion
    "negative_binomial(7, 0.2)": ("int", 3, 7.0, 0.2),
    "integers(0, 1000)": ("int", 4, 1000.0, 0.0),
    "random()": ("float", 5, 0.0, 0.0),
    "standard_normal()": ("float", 6, 0.0, 0.0),
    "standard_exponential()": ("float", 7, 0.0, 0.0),
    "laplace(0, 1)": ("float", 8, 0.0, 0.0),
    "gamma(0.25, 2)": ("float", 9, 0.25, 2.0),
    "gamma(3, 1)": ("float", 9, 3.0, 1.0),
    "polya(1/64, 0.95)": ("sampler", POLYA, 1 / 64, 0.95),
    "polya(0.25, 0.8)": ("sampler", POLYA, 0.25, 0.8),
    "discrete_laplace(b=2)": ("sampler", DLAP, q_of(2.0), 0.0),
    "discrete_laplace(b=25)": ("sampler", DLAP, q_of(25.0), 0.0),
    "discrete_laplace_sum(10, b=4)": ("sampler", DLAP_SUM, q_of(4.0), 10.0),
    "skellam(0.3)": ("sampler", SKELLAM, 0.3, 0.0),
    "skellam(250)": ("sampler", SKELLAM, 250.0, 0.0),
    "discrete_gaussian(0.4)": ("sampler", DGAUSS, 0.4, 0.0),
    "discrete_gaussian(1e4)": ("sampler", DGAUSS, 1e4, 0.0),
}
GOLDEN_SIZE = 20
GOLDEN_SEED = 20250101


@njit
def _method(rng, which, a, b, size):
    """``size`` draws of one Generator method, as float64 (integers below 2^53 are exact)."""
    out = np.empty(size)
    for i in range(size):
        if which == 0:
            out[i] = rng.binomial(np.int64(a), b)
        elif which == 1:
            out[i] = rng.poisson(a)
        elif which == 2:
            out[i] = rng.geometric(a)
        elif which == 3:
            out[i] = rng.negative_binomial(np.int64(a), b)
        elif which == 4:
            out[i] = rng.integers(0, np.int64(a))
        elif which == 5:
            out[i] = rng.random()
        elif which == 6:
            out[i] = rng.standard_normal()
        elif which == 7:
            out[i] = rng.standard_exponential()
        elif which == 8:
            out[i] = rng.laplace(0.0, 1.0)
        else:
            out[i] = rng.gamma(a, b)
    return out


def golden_draws():
    """name → list of GOLDEN_SIZE draws (each case from its own seeded Generator)."""
    out = {}
    for name, (kind, code, a, b) in GOLDEN_CASES.items():
        rng = np.random.default_rng([GOLDEN_SEED, zlib.crc32(name.encode())])
        if kind == "sampler":
            out[name] = _draw(rng, code, a, b, GOLDEN_SIZE).tolist()
        else:
            x = _method(rng, code, a, b, GOLDEN_SIZE)
            out[name] = x.astype(np.int64).tolist() if kind == "int" else x.tolist()
    return out


def numba_version():
    return ".".join(numba.__version__.split(".")[:2])


def test_golden_draws_are_unchanged():
    version = numba_version()
    data = json.loads(GOLDEN.read_text())
    assert (data["seed"], data["size"]) == (GOLDEN_SEED, GOLDEN_SIZE), \
        "golden_draws.json was recorded with another seed or size: re-record it"
    stored = data["draws"]
    if version not in stored:
        pytest.skip(f"no golden draws stored for numba {version} (have {', '.join(stored)}); "
                    f"record them with `python -m tests.test_samplers --update-golden`")
    want, got = stored[version], golden_draws()
    changed = sorted(name for name in set(want) | set(got) if want.get(name) != got.get(name))
    assert not changed, (f"the random streams changed (numba {version}): {', '.join(changed)}. "
                         f"Results are no longer bit-identical to earlier runs with this version")


def test_every_sampler_has_a_provenance_line():
    needed = {"binomial", "poisson", "gamma", "geometric", "uniform", "normal", "polya",
              "discrete_laplace", "discrete_laplace_sum", "skellam", "discrete_gaussian"}
    assert needed <= set(samplers.SAMPLERS)
    assert all(isinstance(v, str) and v and "\n" not in v for v in samplers.SAMPLERS.values())


def _update_golden():
    old = json.loads(GOLDEN.read_text())["draws"] if GOLDEN.exists() else {}
    old[numba_version()] = golden_draws()
    data = {"about": "Fixed-seed draws of the kernels' samplers and of the Numba Generator "
                     "methods they use (tests/test_samplers.py, GOLDEN_CASES), keyed by numba "
                     "major.minor; case NAME draws from default_rng([seed, crc32(NAME)]).",
            "seed": GOLDEN_SEED, "size": GOLDEN_SIZE, "draws": dict(sorted(old.items()))}
    text = json.dumps(data, indent=1)
    # one line per list of draws
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]",
                  lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(text + "\n")
    print(f"wrote numba {numba_version()} draws to {GOLDEN}")


def _print_power():
    cases = [(n, p, N) for n, p in SAMPLER_CASES]
    cases += [(*law, N_TOTAL) for _, _, law in TOTAL_CASES.values()]
    for name, params, size in cases:
        k = support(name, params)
        p0 = exact_pmf(name, params, k)
        df, lam, pw = power(cell_ends(p0, size), p0, exact_pmf(name, perturbed(name, params), k),
                            size)
        print(f"{name}{params} N={size}: df {df}, lambda {lam:.0f}, power {pw:.6f} "
              f"(miss {stats.ncx2.cdf(stats.chi2.isf(ALPHA, df), df, lam):.1e})")


if __name__ == "__main__":
    if "--update-golden" in sys.argv:
        _update_golden()
    if "--power" in sys.argv:
        _print_power()
