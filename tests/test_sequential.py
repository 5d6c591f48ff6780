"""Per-step engines (UCB1, SE, DP-UCB) and the DP-SE 2 SVT engine against tests/reference.py."""
import numpy as np
import pytest
from numba import njit
from scipy import stats

import bandsim
from bandsim.algorithms.per_step import dp_ucb_constants, tree_levels
from bandsim.kernels.sequential import laplace, run_se_shard, run_ucb_shard, tree_insert
from tests import reference
from tests.conftest import ALPHA
from tests.stats import chi2_two_sample


def _kernel(fn, seed, means, horizon, *args, sigma=None):
    means = np.asarray(means, dtype=float)
    K = means.size
    gaps = (means.max() - means)[None]
    if sigma is None:
        rcode, rpar = 0, means[None, :, None].copy()
    else:
        rcode = 1
        rpar = np.zeros((1, K, 4))
        rpar[0, :, 0], rpar[0, :, 1] = means, sigma
    cps = np.arange(1, horizon + 1, dtype=np.int64)
    out = np.zeros((1, horizon))
    pulls = np.zeros((1, K), np.int64)
    elim = np.zeros((1, K), np.int64)
    from bandsim.kernels.shard import make_shard

    fn(np.random.default_rng(seed), make_shard(gaps, rcode, rpar, horizon, cps, out, pulls, elim),
       *args, None)
    return out[0], pulls[0], elim[0]


UCB_CASES = [
    ([0.7, 0.6, 0.55], 3_000, 1, None),
    ([0.5, 0.5, 0.4, 0.5], 3_000, 2, None),      # exact ties in the index
    ([0.9, 0.1], 500, 3, None),
    ([0.6, 0.55, 0.5], 3_000, 4, 0.1),             # clipped Gaussian rewards
    ([0.75, 0.7, 0.7, 0.7, 0.7], 150_000, 5, None),  # long windows and brackets
]


@pytest.mark.parametrize("means, horizon, seed, sigma", UCB_CASES)
def test_ucb1_pulls_the_same_arms_as_the_reference_with_the_same_uniforms(means, horizon,
                                                                          seed, sigma):
    out, pulls, elim = _kernel(run_ucb_shard, seed, means, horizon, 0.0, 0.0, sigma=sigma)
    ref, ref_pulls, seq = reference.ucb(np.random.default_rng(seed), means, horizon,
                                        range(1, horizon + 1), sigma=sigma)
    assert pulls.tolist() == ref_pulls.tolist()
    gaps = max(means) - np.asarray(means)
    # the regret path pins down the whole pull sequence (distinct gaps) ...
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(out, np.cumsum(gaps[seq]), rtol=1e-9, atol=1e-9)
    assert elim.tolist() == [-1] * len(means)


@pytest.mark.parametrize("means, horizon, seed, eps", [
    ([0.7, 0.6, 0.55], 20_000, 1, 1.0),
    ([0.5, 0.5, 0.3], 5_000, 2, 0.5),
    ([0.9, 0.2], 3_000, 3, 50.0),  # little noise: the index is decided by the means
])
def test_dp_ucb_pulls_the_same_arms_as_the_reference_with_the_same_stream(means, horizon,
                                                                          seed, eps):
    c = dp_ucb_constants(len(means), horizon, eps, 1.0 / horizon)
    out, pulls, _ = _kernel(run_ucb_shard, seed, means, horizon, c["gamma"], c["node_scale"])
    ref, ref_pulls, seq = reference.ucb(np.random.default_rng(seed), means, horizon,
                                        range(1, horizon + 1), c["gamma"], c["node_scale"])
    assert pulls.tolist() == ref_pulls.tolist()
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("means, horizon, seed, sigma", [
    ([0.7, 0.6, 0.55], 20_000, 1, None),
    ([0.9, 0.5, 0.5, 0.1], 7_777, 2, None),  # horizon cuts a cycle
    ([0.6, 0.5, 0.45], 20_000, 3, 0.1),
])
def test_se_matches_the_reference_pull_for_pull(means, horizon, seed, sigma):
    out, pulls, elim = _kernel(run_se_shard, seed, means, horizon, np.log(horizon),
                               sigma=sigma)
    ref, ref_pulls = reference.se(np.random.default_rng(seed), means, horizon,
                                  range(1, horizon + 1), sigma=sigma)
    assert pulls.tolist() == ref_pulls.tolist()
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)
    assert (elim > 0).sum() >= 1


def _compare(algo, ref_fn, ref_kwargs, sim_kwargs, means, horizon, n_ref=300, runs=20_000):
    rng = np.random.default_rng(2024)
    cps = [horizon // 3, horizon]
    ref = [ref_fn(rng, means, horizon, checkpoints=cps, **ref_kwargs) for _ in range(n_ref)]
    ref_regret = np.array([r[0] for r in ref])
    ref_pulls = np.array([r[1] for r in ref])
    res = bandsim.simulate(algo, means=means, horizon=horizon, runs=runs, seed=7,
                           checkpoints=cps, **sim_kwargs)
    for c in range(2):
        assert chi2_two_sample(res.pseudo_regret[:, c], ref_regret[:, c]) > ALPHA
    for a in range(len(means)):
        assert chi2_two_sample(res.pulls[:, a], ref_pulls[:, a]) > ALPHA
    assert np.unique(res.pseudo_regret[:, -1]).size > 1  # random, so the test has power
    return res, ref_regret


def test_ucb1_runner_matches_reference_in_distribution():
    _compare("ucb1", reference.ucb, {}, {}, [0.7, 0.6, 0.55], 1_000, n_ref=200, runs=5_000)


def test_dp_ucb_runner_matches_reference_in_distribution():
    c = dp_ucb_constants(3, 1_000, 2.0, 1e-3)
    _compare("dp-ucb", reference.ucb, dict(gamma=c["gamma"], scale=c["node_scale"]),
             dict(epsilon=2.0), [0.7, 0.6, 0.55], 1_000, n_ref=200, runs=5_000)


def test_se_runner_matches_reference_in_distribution():
    _compare("se", reference.se, {}, {}, [0.9, 0.6, 0.55], 2_000, n_ref=200, runs=5_000)


def test_dp_se2_matches_reference_in_distribution():
    # halting at r = 2048 is random here (about 6 % of runs do not halt)
    _compare("dp-se2", reference.dp_se2, dict(epsilon=1.0, beta=0.1),
             dict(epsilon=1.0, beta=0.1), [0.9, 0.26, 0.25], 8_000, n_ref=300)


def test_dp_se2_modified_matches_reference_in_distribution():
    _compare("dp-se2-modified", reference.dp_se2, dict(epsilon=1.0, beta=0.1, modified=True),
             dict(epsilon=1.0, beta=0.1), [0.95, 0.6, 0.2], 6_000, n_ref=300)


def test_a_wrong_svt_engine_would_be_caught():
    # power check: the standard halting rule is rejected against the modified one
    rng = np.random.default_rng(5)
    means, T = [0.95, 0.6, 0.2], 6_000
    ref = np.array([reference.dp_se2(rng, means, T, 1.0, 0.1, [T])[0][0] for _ in range(300)])
    res = bandsim.simulate("dp-se2-modified", means=means, horizon=T, runs=20_000, seed=7,
                           checkpoints=[T], epsilon=1.0, beta=0.1)
    assert chi2_two_sample(res.pseudo_regret[:, -1], ref) < ALPHA


# ------------------------------------------------------------- tree mechanism

@njit
def _released_noise(seed_rng, n_trees, counts, scale):
    """Noise of the released sums O_n (all inputs 0) at the given counts, per tree."""
    out = np.zeros((n_trees, counts.size))
    alpha = np.zeros(64)
    cum = np.zeros(64)
    for r in range(n_trees):
        c = 0
        for n in range(1, counts[-1] + 1):
            o = tree_insert(alpha, cum, n, 0.0, scale, seed_rng)
            if n == counts[c]:
                out[r, c] = o
                c += 1
    return out


def test_tree_noise_has_the_variance_and_covariance_its_levels_imply():
    eps, T = 0.5, 1000
    b = tree_levels(T) / eps  # Lap(b) per node, b = (⌈log₂ T⌉ + 1)/ε
    counts = np.array([1, 6, 7, 8, 255, 256], np.int64)
    N = 20_000
    x = _released_noise(np.random.default_rng(3), N, counts, b)
    # O_n sums one fresh node per set bit of n: Var = popcount(n) · 2b²
    nodes = np.array([bin(n).count("1") for n in counts])
    var = nodes * 2 * b**2
    kappa4 = nodes * 12 * b**4  # fourth cumulant of a sum of Laplace(b)
    se = np.sqrt((kappa4 + 2 * var**2) / N)
    z = (x.var(axis=0, ddof=1) - var) / se
    assert np.all(np.abs(z) < stats.norm.isf(ALPHA / 2 / counts.size))
    # power: one node more or less per release would be caught
    z_wrong = (x.var(axis=0, ddof=1) - (nodes + 1) * 2 * b**2) / se
    assert np.all(np.abs(z_wrong) > stats.norm.isf(ALPHA / 2))
    # O_6 = α̂[5..6] + α̂[1..4] and O_7 adds the fresh α̂[7]: they share 2 nodes;
    # O_8 is one new node (fresh noise): independent of O_7
    cov67 = np.cov(x[:, 1], x[:, 2])[0, 1]
    cov78 = np.cov(x[:, 2], x[:, 3])[0, 1]
    se_cov = np.sqrt(var[1] * var[2] / N) * 2
    assert abs(cov67 - 2 * 2 * b**2) < stats.norm.isf(ALPHA / 2) * se_cov
    assert abs(cov78) < stats.norm.isf(ALPHA / 2) * se_cov


@njit
def _laplace_draws(rng, n, scale):
    out = np.empty(n)
    for i in range(n):
        out[i] = laplace(rng, scale)
    return out


def test_laplace_sampler_is_laplace():
    x = _laplace_draws(np.random.default_rng(11), 50_000, 2.5)
    assert stats.kstest(x, stats.laplace(scale=2.5).cdf).pvalue > ALPHA
    assert stats.kstest(x, stats.laplace(scale=2.6).cdf).pvalue < ALPHA  # power


def test_dp_ucb_gamma_follows_the_union_bound():
    c = dp_ucb_constants(5, 50_000_000, 0.25, 1 / 50_000_000)
    m = 27  # ⌈log₂ 5e7⌉ + 1
    assert c["levels"] == m and c["node_scale"] == m / 0.25
    assert c["gamma"] == pytest.approx(m**2 * np.log(5 * 5e7 * m * 5e7) / 0.25)


# ---------------------------------------------------- runner integration

def _same(a, b):
    return (np.array_equal(a.pseudo_regret, b.pseudo_regret)
            and np.array_equal(a.pulls, b.pulls)
            and np.array_equal(a.elimination_time, b.elimination_time))


@pytest.mark.parametrize("algo, extra", [("ucb1", {}), ("se", {}), ("dp-ucb", dict(epsilon=1.0)),
                                         ("dp-se2-modified", dict(epsilon=1.0))])
def test_bit_identical_for_any_thread_count(algo, extra):
    kw = dict(instance="C2", arms=4, horizon=100_000, runs=90, seed=3, **extra)
    one = bandsim.simulate(algo, threads=1, **kw)
    assert one.config["shard_runs"] < 90  # several shards
    for threads in (2, 3):
        assert _same(one, bandsim.simulate(algo, threads=threads, **kw))


def test_per_step_plans_use_one_run_per_shard_at_thesis_scale():
    from bandsim.runner import prepare

    prep = prepare("dp-ucb", instance="C2", arms=5, epsilon=0.25, horizon=5e7, runs=30, seed=1)
    assert prep.config["shard_runs"] == 1
    assert prep.config["stages"][0]["gamma"] > 0
    assert prepare("dp-se2", instance="C2", arms=5, epsilon=0.25, horizon=5e7,
                   runs=30, seed=1).config["shard_runs"] == 64


def test_progress_is_reported_per_run_for_per_step_algorithms():
    seen = []
    bandsim.simulate("ucb1", instance="C1", arms=3, horizon=5_000_000, runs=3, seed=1,
                     threads=1, checkpoints=8, progress=seen.append)
    assert seen == [1, 2, 3]


def test_regret_is_gap_weighted_pulls_and_pulls_sum_to_horizon():
    for algo, extra in (("ucb1", {}), ("se", {}), ("dp-ucb", dict(epsilon=0.5)),
                        ("dp-se2", dict(epsilon=0.5))):
        res = bandsim.simulate(algo, instance="C3", arms=5, horizon=200_000, runs=20,
                               seed=2, **extra)
        assert np.all(res.pulls.sum(axis=1) == 200_000)
        gaps = res.means.max(1, keepdims=True) - res.means
        np.testing.assert_allclose(res.pseudo_regret[:, -1], (res.pulls * gaps).sum(1),
                                   rtol=1e-9)
        assert np.all(np.diff(res.pseudo_regret, axis=1) >= -1e-9)


def test_dp_ucb_gamma_reading_is_a_parameter():
    """gamma="levels" (default: log T = ⌈log₂T⌉ + 1 tree levels) or "ln" (natural logs)."""
    T, K, eps = 50_000_000, 5, 0.25
    lev = dp_ucb_constants(K, T, eps, 1 / T)
    ln = dp_ucb_constants(K, T, eps, 1 / T, gamma="ln")
    lt = np.log(T)
    assert ln["gamma"] == pytest.approx(lt**2 * np.log(K * T * lt * T) / eps)
    assert ln["node_scale"] == lev["node_scale"] and ln["gamma"] < lev["gamma"] / 2
    kw = dict(instance="C1", arms=3, epsilon=0.5, horizon=20_000, runs=4, seed=3)
    default = bandsim.simulate("dp-ucb", **kw)
    assert default.config["params"]["gamma"] == "levels"
    assert np.array_equal(default.pulls, bandsim.simulate("dp-ucb", gamma="levels", **kw).pulls)
    other = bandsim.simulate("dp-ucb", gamma="ln", **kw)
    assert other.config["stages"][0]["gamma_reading"] == "ln"
    assert other.config["stages"][0]["gamma"] < default.config["stages"][0]["gamma"]


# ---------------------------------------------------------- the per-step index hook

@njit
def _ucb_as_plugin(stat, n, t, c):  # DP-UCB's index, but a plug-in's function
    return (stat + c[0]) / n + np.sqrt(2.0 * np.log(t)) * (1.0 / np.sqrt(n))


@pytest.mark.parametrize("means, horizon, seed, sigma", UCB_CASES[:4])
@pytest.mark.parametrize("eps", [None, 1.0])
def test_the_index_hook_engine_equals_the_ucb_engine_on_the_ucb_index(means, horizon, seed,
                                                                      sigma, eps):
    """DP-UCB and UCB1 are declared through the per-step ``index`` hook; the built-in index
    runs on run_ucb_shard (leader windows, L brackets). The same index as a plug-in's
    function runs on run_index_shard, which evaluates every index at every pull: the same
    draws and decisions, bit for bit."""
    from bandsim.kernels.episodic import as_index
    from bandsim.kernels.sequential import run_index_shard

    gamma, scale = 0.0, 0.0
    if eps is not None:
        c = dp_ucb_constants(len(means), horizon, eps, 1.0 / horizon)
        gamma, scale = c["gamma"], c["node_scale"]
    fast = _kernel(run_ucb_shard, seed, means, horizon, gamma, scale, sigma=sigma)
    hooked = _kernel(run_index_shard, seed, means, horizon, as_index(_ucb_as_plugin),
                     np.array([gamma]), scale, sigma=sigma)
    assert np.array_equal(fast[0], hooked[0]) and np.array_equal(fast[1], hooked[1])
    assert hooked[2].tolist() == [-1] * len(means)


def test_dp_ucb_is_declared_through_the_index_hook_and_a_plugin_index_is_compiled_at_check():
    from bandsim.errors import ConfigError
    from bandsim.kernels import sequential
    from bandsim.plugin import EPSILON, PerStepIndex, check, get_algorithm

    assert get_algorithm("dp-ucb").index is sequential.ucb_index
    plan = bandsim.runner.prepare("dp-ucb", means=[0.6, 0.5], epsilon=1.0, horizon=1000,
                                  runs=1, seed=0).plan
    assert plan.index is sequential.ucb_index and plan.gamma == plan.c[0] > 0

    @njit
    def bad(stat, n):
        return stat

    with pytest.raises(ConfigError, match="index.*does not compile"):
        check(PerStepIndex(name="bad-ucb", summary="s", source="s", params=(EPSILON,),
                           index=bad))
    with pytest.raises(ConfigError, match="default plan needs epsilon"):
        PerStepIndex(name="no-eps-ucb", summary="s", source="s", params=(),
                     index=sequential.ucb_index)


def test_the_tree_exact_audit_composes_m_nodes_and_fails_nodes_20_percent_too_narrow(
        monkeypatch):
    """dp-ucb's (and every PerStepIndex's) exact audit: ≤ m nodes of Lap(m/ε), each audited
    exactly, add up to ε at every m ≤ 63; with every node's Laplace 20 % narrower the same
    composition gives ε/0.8 and FAILs."""
    from bandsim.algorithms import per_step
    from bandsim.privacy.audit import audit as exact_audit

    r = exact_audit("dp-ucb", 0.5, 16)
    assert r.passed and r.rows[0].exact == pytest.approx(0.5, rel=1e-9)
    real = per_step.audit_laplace
    monkeypatch.setattr(per_step, "audit_laplace",
                        lambda scale, eps, n: real(0.8 * scale, eps, n))
    bad = exact_audit("dp-ucb", 0.5, 16)
    assert not bad.passed and bad.rows[0].exact == pytest.approx(0.5 / 0.8, rel=1e-9)
