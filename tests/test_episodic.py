"""Episodic index policies and private Thompson sampling against tests/reference.py.

* indices and divergences against plain formulas and brute force;
* the plug-in point: a user's @njit index runs in the engine, which is
  compiled once (first-class function type) for every index;
* distribution: the engine's N_a(T) and pseudo-regret (at T/3 and T) against
  the per-pull references, two-sample chi-square at ALPHA = 1e-3, with a
  negative control (ε 30 % too large must be rejected);
* exact bookkeeping: with deterministic rewards the regret path at every t
  equals the reference's, including horizons that cut an episode; sparse
  checkpoints equal the dense path;
* privacy: every plan states Laplace noise of scale 1/ε on reward sums of
  sensitivity 1 (DP-TS: 2/ε = 1/(ε/2) on each half), and the noise the
  engines actually add has that law (exact first-decision probabilities).
"""
import dataclasses
import math

import numpy as np
import pytest
from numba import njit
from scipy import optimize, stats

from bandsim.algorithms import episodic as EP
from bandsim.kernels import episodic as E
from bandsim.registry import get_algorithm
from bandsim.kernels import indices as I
from bandsim.kernels import thompson
from tests import reference_beyond as R
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample


def _arrays(means, runs, cps):
    means = np.asarray(means, dtype=float)
    K = means.size
    gaps = np.ascontiguousarray(np.broadcast_to(means.max() - means, (runs, K)))
    rpar = np.ascontiguousarray(np.broadcast_to(means[None, :, None], (runs, K, 1)))
    cps = np.asarray(cps, dtype=np.int64)
    return (gaps, 0, rpar, cps, np.zeros((runs, cps.size)), np.zeros((runs, K), np.int64),
            np.zeros((runs, K), np.int64))


def _engine(plan, means, horizon, runs, cps, seed=7):
    """Call ``plan.run_shard`` as the runner does, on one shard."""
    gaps, rcode, rpar, cps, out, pulls, elim = _arrays(means, runs, cps)
    from bandsim.kernels.shard import make_shard

    plan.run_shard(np.random.default_rng(seed),
                   make_shard(gaps, rcode, rpar, horizon, cps, out, pulls, elim))
    return out, pulls, elim


def _plan(name, **params):
    return EP.PLANS[name](params, 3, 1000)


# ------------------------------------------------------------------ indices

@pytest.mark.parametrize("x", [0.0, 0.1, 0.5, 0.93, 1.0])
@pytest.mark.parametrize("level", [1e-4, 0.05, 0.7, 40.0])
def test_kl_upper_is_the_largest_q_within_the_level(x, level):
    q = I.kl_upper(x, level, 1.0)
    assert x <= q <= 1.0
    assert I.kl_bernoulli(x, q) <= level
    if q < 1.0:
        assert I.kl_bernoulli(x, min(1.0, q + 1e-12)) > level
        root = optimize.brentq(lambda y: R._kl(x, y) - level, x, 1 - 1e-15, xtol=1e-15)
        assert q == pytest.approx(root, abs=1e-12)


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 4.0])
@pytest.mark.parametrize("x, y", [(0.1, 0.3), (0.2, 0.9), (0.5, 0.55), (0.0, 0.7),
                                  (0.6, 1.0), (0.3, 0.3), (0.7, 0.2)])
def test_d_eps_closed_form_equals_the_brute_force_infimum(eps, x, y):
    zs = np.linspace(min(x, y), max(x, y), 20_001)
    vals = [eps * abs(zi - x) + R._kl(zi, y) for zi in zs]
    brute = min(vals)
    got = I.d_eps(x, y, eps)
    if y <= x:
        assert got == 0.0
    else:
        assert got <= brute + 1e-12
        assert got == pytest.approx(brute, abs=1e-6)
    assert got == pytest.approx(R._d_eps(x, y, eps), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("x", [0.0, 0.2, 0.5, 0.8])
@pytest.mark.parametrize("level", [1e-3, 0.02, 0.3, 5.0])
def test_d_eps_upper_inverts_d_eps(eps, x, level):
    y = I.d_eps_upper(x, level, eps)
    assert x <= y <= 1.0
    if y < 1.0:
        assert I.d_eps(x, y, eps) == pytest.approx(level, rel=1e-9, abs=1e-12)
    else:
        assert I.d_eps(x, 1.0, eps) <= level + 1e-12
    assert y == pytest.approx(R._d_eps_ucb(x, level, eps), abs=1e-12)


def test_kernel_indices_equal_the_reference_formulas():
    rng = np.random.default_rng(3)
    for _ in range(300):
        stat = rng.uniform(-0.5, 1.5)
        lead = max(stat, rng.uniform(-0.5, 1.5))
        n = int(rng.integers(1, 10**6))
        t = int(rng.integers(n + 1, 10**8))
        alpha, eps = rng.uniform(1.0, 4.0), rng.uniform(0.05, 5.0)
        c = np.array([lead, alpha, eps])
        lt = math.log(t)
        assert I.adap_ucb_index(stat, n, t, c) == pytest.approx(
            stat + math.sqrt(alpha * lt / (2 * n)) + alpha * lt / (eps * n), rel=1e-12)
        x = R._clip01(stat + alpha * lt / (eps * n))
        assert I.adap_klucb_index(stat, n, t, c) == pytest.approx(
            R._kl_ucb(x, alpha * lt / n), abs=1e-12)
        c2 = np.array([lead, eps])
        assert I.dp_klucb_index(stat, n, t, c2) == pytest.approx(
            R._d_eps_ucb(R._clip01(stat), lt / n, eps), abs=1e-12)
        assert I.dp_imed_index(stat, n, t, c2) == pytest.approx(
            -(n * R._d_eps(R._clip01(stat), R._clip01(lead), eps) + math.log(n)), rel=1e-12)


@pytest.mark.parametrize("ratio", [1.1, 1.5, 2.0, 3.7])
@pytest.mark.parametrize("rule", [E.GEOMETRIC, E.GRID])
def test_episode_lengths_equal_exact_rational_arithmetic(ratio, rule):
    for N in list(range(1, 300)) + [10**6, 123_456_789, 10**10]:
        want = R._next_target(N, ratio, rule == E.GRID) - N
        assert E.episode_length(N, ratio, rule) == want, (N, ratio, rule)
    assert [E.episode_length(2**k, 2.0, E.GEOMETRIC) for k in range(5)] == [1, 2, 4, 8, 16]


# ------------------------------------------------------------ the plug-in point

@njit
def _greedy(stat, n, t, c):
    return stat


def test_a_user_index_plugs_in_and_the_engine_compiles_once_for_all_indices():
    plan = _plan("adap-ucb", epsilon=1.0, alpha=3.1)
    plan.index = _greedy
    out, pulls, elim = _engine(plan, [0.9, 0.1], 500, 50, [500])
    assert (pulls.sum(axis=1) == 500).all() and (elim == -1).all()
    assert E.as_index(_greedy) is E.as_index(_greedy)
    before = len(E._run_shard.signatures)
    _engine(_plan("adap-klucb", epsilon=1.0, alpha=3.1), [0.9, 0.1], 500, 5, [500])
    _engine(_plan("dp-imed", epsilon=1.0), [0.9, 0.1], 500, 5, [500])
    sigs = E._run_shard.signatures
    assert len(sigs) == before  # the same machine code serves every index function
    assert all("FunctionType" in str(s[2]) for s in sigs)  # typed by signature: cacheable


def test_an_index_of_the_wrong_signature_is_refused():
    @njit
    def bad(stat, n):
        return stat

    with pytest.raises(TypeError, match="does not compile"):
        E.as_index(bad)


# ------------------------------------------------- distribution vs the references

MEANS = [0.7, 0.5, 0.4]

CASES = {
    "adap-ucb": (dict(epsilon=1.0, alpha=3.1), R.adap, {}, 2000),
    "adap-klucb": (dict(epsilon=1.0, alpha=3.1), R.adap, dict(kl=True), 2000),
    "dp-klucb": (dict(epsilon=1.0, alpha=1.5), R.dp_kl, {}, 2000),
    "dp-imed": (dict(epsilon=1.0, alpha=1.5), R.dp_kl, dict(imed=True), 2000),
    "dp-klucb-grid": (dict(epsilon=1.0, alpha=1.5, grid=True), R.dp_kl, dict(grid=True), 2000),
    "lazy-dp-ts": (dict(epsilon=1.0), R.lazy_dp_ts, {}, 1000),
    "dp-ts": (dict(epsilon=5.0), R.dp_ts, {}, 1000),
}


def _p_values(engine, ref):
    (er, ep), (rr, rp) = engine, ref
    return ([chi2_two_sample(er[:, c], rr[:, c]) for c in range(er.shape[1])]
            + [chi2_two_sample(ep[:, a], rp[:, a]) for a in range(ep.shape[1])])


@pytest.fixture(scope="module")
def reference_samples():
    cache = {}

    def get(case):
        if case not in cache:
            params, fn, extra, T = CASES[case]
            per_round = "ts" in case
            n_ref = 200 if per_round else 400
            rng = np.random.default_rng(2024)
            kw = {k: v for k, v in params.items() if k != "grid"}
            runs = [fn(rng, MEANS, T, checkpoints=[T // 3, T], **kw, **extra)
                    for _ in range(n_ref)]
            cache[case] = (np.array([r[0] for r in runs]), np.array([r[1] for r in runs]))
        return cache[case]

    return get


def _engine_sample(case, epsilon_factor=1.0):
    params, _, _, T = CASES[case]
    name = case.replace("-grid", "")
    params = {**params, "epsilon": params["epsilon"] * epsilon_factor}
    plan = EP.PLANS[name](params, len(MEANS), T)
    runs = 5_000 if "ts" in case else 20_000
    out, pulls, _ = _engine(plan, MEANS, T, runs, [T // 3, T])
    assert np.unique(out[:, -1]).size > 5  # random, so the test has power
    return out, pulls


@pytest.mark.parametrize("case", list(CASES))
def test_engine_matches_the_per_pull_reference_in_distribution(case, reference_samples):
    p = _p_values(_engine_sample(case), reference_samples(case))
    assert min(p) > ALPHA, p


@pytest.mark.parametrize("case", list(CASES))
def test_negative_control_epsilon_30_percent_too_large_is_rejected(case, reference_samples):
    p = _p_values(_engine_sample(case, epsilon_factor=1.3), reference_samples(case))
    assert min(p) < ALPHA, p


# ------------------------------------------------------------- exact bookkeeping

EPISODIC = ["adap-ucb", "adap-klucb", "dp-klucb", "dp-imed"]
REF_OF = {"adap-ucb": (R.adap, {}), "adap-klucb": (R.adap, dict(kl=True)),
          "dp-klucb": (R.dp_kl, {}), "dp-imed": (R.dp_kl, dict(imed=True))}


@pytest.mark.parametrize("name", EPISODIC)
@pytest.mark.parametrize("horizon", [1000, 1023, 1024, 1025, 1337, 4099])
def test_regret_path_at_every_t_equals_the_reference_with_deterministic_rewards(name,
                                                                                horizon):
    # rewards 1 and 0 are deterministic and ε = 1e9 makes the noise ~1e-9: the
    # pull sequence is fixed, so the paths must agree exactly at every t,
    # whichever pull of an episode the horizon cuts
    means = [1.0, 0.0]
    params = dict(epsilon=1e9, alpha=3.1 if name.startswith("adap") else 2.0)
    plan = EP.PLANS[name](params, 2, horizon)
    cps = np.arange(1, horizon + 1)
    out, pulls, _ = _engine(plan, means, horizon, 1, cps)
    fn, extra = REF_OF[name]
    ref, ref_pulls = fn(np.random.default_rng(1), means, horizon, checkpoints=cps, **params,
                        **extra)
    assert pulls[0].tolist() == ref_pulls.tolist()
    assert pulls[0].sum() == horizon
    np.testing.assert_array_equal(out[0], ref)
    assert out[0, -1] == pulls[0, 1]  # Σ Δ_a N_a(T)


def test_adap_episodes_double_and_the_horizon_cuts_the_last_one():
    # rewards 1 (arm 0) and 0 (arm 1): the dense regret path shows which arm
    # each pull went to; every block of consecutive pulls of one arm ends with
    # a power-of-two count (episodes 1, 1, 2, 4, ...), except the one cut at T
    horizon = 3000
    out, pulls, _ = _engine(_plan("adap-ucb", epsilon=1e9, alpha=3.1), [1.0, 0.0], horizon, 1,
                            np.arange(1, horizon + 1))
    arms = np.diff(np.concatenate([[0.0], out[0]])).round().astype(int)
    ends = np.flatnonzero(np.diff(arms)) + 1
    counts = [0, 0]
    for block in np.split(arms, ends)[:-1]:
        counts[block[0]] += block.size
        assert counts[block[0]] & (counts[block[0]] - 1) == 0, counts
    last = np.split(arms, ends)[-1]
    before = counts[last[0]]
    counts[last[0]] += last.size
    assert counts == pulls[0].tolist() and sum(counts) == horizon
    assert last.size < max(before, 1) * 2 ** 12  # a doubling run, cut at T
    assert counts[last[0]] & (counts[last[0]] - 1) != 0  # 3000 is not a power-of-two split


def _defaults(name):
    """The declared defaults of an algorithm's parameters (ε left out: it is required)."""
    return {p.name: p.default for p in get_algorithm(name).params if not p.required}


@pytest.mark.parametrize("name", list(EP.PLANS))
def test_sparse_checkpoints_equal_the_dense_path(name):
    params = _defaults(name)
    plan = EP.PLANS[name]({**params, "epsilon": 0.7}, 3, 2000)
    dense = np.arange(1, 2001)
    sparse = np.array([1, 2, 3, 4, 17, 500, 1023, 1024, 1999, 2000])
    od, pd, _ = _engine(plan, MEANS, 2000, 20, dense, seed=5)
    os_, ps, _ = _engine(plan, MEANS, 2000, 20, sparse, seed=5)
    np.testing.assert_array_equal(pd, ps)
    np.testing.assert_allclose(os_, od[:, sparse - 1], rtol=0, atol=1e-9)
    gaps = max(MEANS) - np.asarray(MEANS)
    steps = np.diff(np.concatenate([np.zeros((20, 1)), od], axis=1), axis=1)
    assert np.all(np.min(np.abs(steps[..., None] - gaps), axis=-1) < 1e-9)  # one pull per t
    np.testing.assert_allclose(od[:, -1], pd @ gaps, atol=1e-9)
    assert (pd.sum(axis=1) == 2000).all()


@pytest.mark.parametrize("name", list(EP.PLANS))
def test_a_horizon_shorter_than_the_initial_pulls(name):
    params = _defaults(name)
    plan = EP.PLANS[name]({**params, "epsilon": 1.0}, 4, 3)
    out, pulls, elim = _engine(plan, [0.2, 0.9, 0.5, 0.6], 3, 4, [1, 2, 3])
    assert pulls.tolist() == [[1, 1, 1, 0]] * 4
    np.testing.assert_allclose(out, [[0.7, 0.7, 1.1]] * 4)
    assert (elim == -1).all()


# ------------------------------------------------------------------- privacy

@pytest.mark.parametrize("name", list(EP.PLANS))
def test_every_plan_states_laplace_one_over_epsilon_on_sums_of_sensitivity_one(name):
    eps = 0.37
    params = _defaults(name)
    plan = EP.PLANS[name]({**params, "epsilon": eps}, 5, 10**6)
    claim = plan.privacy
    assert claim["sensitivity"] == 1.0 and claim["epsilon"] == eps
    assert claim["guarantee"].startswith("ε-DP")
    assert get_algorithm(name).trust == "central ε-DP"
    if name == "dp-ts":
        # ε/2 on the completed epochs, ε/2 on the binary mechanism of the current one
        assert plan.chunk_scale == pytest.approx(1 / (0.5 * eps))
        assert plan.node_scale == pytest.approx(1 / (0.5 * eps))  # × (r + 1) = log2 2^(r+1)
        assert claim["noise_scale"] == plan.chunk_scale
    else:
        assert plan.noise_scale == pytest.approx(1 / eps) == claim["noise_scale"]


def _p_first_pick(b):
    """P(arm 1 is picked at t = 3) for greedy on m_0 = 1 + Lap(b), m_1 = 0 + Lap(b).

    D = L_1 − L_0 (two i.i.d. Lap(b)) has P(D > x) = ½ e^{−x/b} (1 + x/(2b)), x ≥ 0.
    """
    return 0.5 * math.exp(-1 / b) * (1 + 1 / (2 * b))


@pytest.mark.parametrize("name", EPISODIC)
def test_the_episode_noise_the_engine_adds_is_laplace_one_over_epsilon(name):
    # greedy plug-in index at t = 3 on rewards 1 and 0: arm 1 is pulled iff
    # L_1 − L_0 > 1, whose probability pins the Laplace scale down
    eps, runs = 1.0, 100_000
    for factor, accept in ((1.0, True), (1.3, False)):
        params = _defaults(name)
        plan = EP.PLANS[name]({**params, "epsilon": eps * factor}, 2, 3)
        plan.index = _greedy
        _, pulls, _ = _engine(plan, [1.0, 0.0], 3, runs, [3], seed=11)
        k = int((pulls[:, 1] == 2).sum())
        p = stats.binomtest(k, runs, _p_first_pick(1 / eps)).pvalue
        assert (p > ALPHA) == accept, (factor, k / runs, _p_first_pick(1 / eps))


def _first_pick_reference(name, eps, n=2_000_000):
    """P(arm 1 at t = 3), rewards 1 and 0, vectorised from the paper's first decision."""
    rng = np.random.default_rng(99)
    if name == "lazy-dp-ts":  # m̃ = X + Lap(1/ε), shift 3 ln(3)/(ε·1)
        b, shift = 1 / eps, 3 * math.log(3) / eps
    else:  # C = X + Lap(1/(0.5ε)), shift 6√8 log2(2) log2(3)/(ε·1)
        b, shift = 2 / eps, 6 * math.sqrt(8) * math.log2(2) * math.log2(3) / eps
    m0 = np.clip(1 + rng.laplace(0, b, n) + shift, 0, 1)
    m1 = np.clip(rng.laplace(0, b, n) + shift, 0, 1)
    return (rng.beta(m1 + 1, 2 - m1) > rng.beta(m0 + 1, 2 - m0)).astype(float)


@pytest.mark.parametrize("name, eps", [("lazy-dp-ts", 3.0), ("dp-ts", 30.0)])
def test_the_thompson_engines_first_noise_is_laplace_of_the_stated_scale(name, eps):
    ref = _first_pick_reference(name, eps)
    for factor, accept in ((1.0, True), (1.3, False)):
        plan = EP.PLANS[name](dict(epsilon=eps * factor), 2, 3)
        _, pulls, _ = _engine(plan, [1.0, 0.0], 3, 200_000, [3], seed=13)
        p = chi2_two_sample((pulls[:, 1] == 2).astype(float), ref)
        assert (p > ALPHA) == accept, (factor, (pulls[:, 1] == 2).mean(), ref.mean())


# ---------------------------------------------- the per-round posterior-sampler hook

@njit
def _lazy_as_plugin(rng, mean, n, t, c):  # Lazy-DP-TS's sampler, but a plug-in's function
    return thompson.lazy_dp_ts_sample(rng, mean, n, t, c)


@pytest.mark.parametrize("means, sigma", [([0.7, 0.6, 0.55, 0.5], None), ([0.6, 0.5], 0.1)])
def test_lazy_dp_ts_through_the_sample_hook_equals_its_inlined_sampler(means, sigma):
    """Lazy-DP-TS is declared through the ``sample`` hook; its engine inlines the built-in
    sampler. The same sampler called as a plug-in's first-class hook takes the same draws
    and decisions: bit-identical paths (the per-round engine; the default event-driven one
    needs Beta quantiles, tests/test_lazy_events.py)."""
    plan = EP.PLANS["lazy-dp-ts"](dict(epsilon=0.5, engine="per-round"), len(means), 3000)
    assert get_algorithm("lazy-dp-ts").sample is thompson.lazy_dp_ts_sample
    assert plan.sample is thompson.lazy_dp_ts_sample
    hooked = dataclasses.replace(plan, sample=_lazy_as_plugin)
    a = _engine(plan, means, 3000, 6, np.arange(1, 3001))
    b = _engine(hooked, means, 3000, 6, np.arange(1, 3001))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    # a sampler that ignores the shift is a different policy (the test can fail)
    plain = dataclasses.replace(plan, c=np.array([0.0, 0.0]))
    assert not np.array_equal(_engine(plain, means, 3000, 6, np.arange(1, 3001))[0], a[0])


def test_a_posterior_sampler_of_the_wrong_signature_is_refused_at_registration():
    from bandsim.errors import ConfigError
    from bandsim.plugin import EPSILON, ThompsonSampler, check

    @njit
    def bad(mean, n):
        return mean

    with pytest.raises(ConfigError, match="sample.*does not compile"):
        check(ThompsonSampler(name="bad-ts", summary="s", source="s", params=(EPSILON,),
                              sample=bad))
    from bandsim.kernels import hooks
    from bandsim.kernels.shard import make_shard

    gaps, rcode, rpar, cps, out, pulls, elim = _arrays([0.5, 0.4], 1, [10])
    with pytest.raises(ValueError, match="unknown sampler kind"):
        thompson.run_lazy_dp_ts_shard(
            np.random.default_rng(0), make_shard(gaps, rcode, rpar, 10, cps, out, pulls, elim),
            7, hooks.as_hook("sample", _lazy_as_plugin), np.zeros(2), 1.0, None)
