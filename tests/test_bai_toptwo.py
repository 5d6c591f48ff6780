"""Top-two identification (adap-tt, adap-tt-star, tt-ucb): law against the per-pull reference,
error rate, censoring, the recorded releases, plug-in hooks.

References: Azize, Jourdan, Al Marjani & Basu (NeurIPS 2023), Algorithm 1 (AdaP-TT);
Azize's PhD thesis (2024) §5.4, Algorithm 10, Eqs. 5.9-5.14; the per-pull oracle is
``tests.reference.top_two_bai`` (plain Python, one Bernoulli reward per pull). The
release-batched engine is exact in law, not bit-identical (another random stream), so
the comparisons are two-sample Kolmogorov–Smirnov tests at 10⁻⁴, with negative controls
(a stopping threshold 20 % too low, 20 % too little noise) that the same tests must catch.
"""
import numpy as np
import pytest
from scipy import stats

from bandsim.bai import declarations, simulate_bai
from tests.reference import top_two_bai

MU = [0.9, 0.6, 0.3]
LEVEL = 1e-4


def engine(name, mu, params, runs, seed=0, budget=10**7, fpar=1.0, cs=1.0, rec=None,
           plan=None):
    """Runs of the engine through the declaration's plan; ``fpar``/``cs`` scale the noise
    and the stopping constants (negative controls)."""
    plan = plan or declarations.get(name).plan(params, len(mu), budget)
    t = plan.tables
    c = t.cs.copy()
    c[2 if t.kinds[2] == 0 else 0:] *= cs
    plan.tables = t._replace(fpar=t.fpar * fpar, cs=c)
    m = np.asarray(mu, float)
    rpar = np.ascontiguousarray(np.broadcast_to(m[None, :, None], (runs, m.size, 1)))
    tau, arm = np.zeros(runs, np.int64), np.zeros(runs, np.int64)
    st = np.zeros(runs, np.bool_)
    plan.run_shard(np.random.default_rng(seed), 0, rpar, tau, arm, st, rec)
    return tau, arm, st


def reference(mu, runs, seed, **kw):
    rng = np.random.default_rng(seed)
    out = np.array([top_two_bai(rng, mu, 0.01, **kw) for _ in range(runs)])
    return out[:, 0], out[:, 1], out[:, 2].astype(bool)


@pytest.mark.parametrize("name, kw, n_ref", [
    ("adap-tt", dict(epsilon=1.0), 60),
    ("adap-tt", dict(epsilon=0.5, threshold="heuristic"), 60),
    ("adap-tt-star", dict(epsilon=1.0), 60),
    ("tt-ucb", dict(), 300)])
def test_stopping_time_law_matches_the_per_pull_reference(name, kw, n_ref):
    # 400 engine runs against n_ref per-pull runs (≈1 s of Python each); all stop, all right
    params = dict(dict(delta=0.01, beta=0.5), **kw)
    if name == "adap-tt":
        params.setdefault("threshold", "eq-5.11")
    tau, arm, st = engine(name, MU, params, 400)
    ref, ref_arm, ref_st = reference(MU, n_ref, 1, threshold=kw.get("threshold", "eq-5.14" if
                                     name == "adap-tt-star" else "eq-5.11"),
                                     epsilon=kw.get("epsilon"))
    assert st.all() and ref_st.all() and (arm == 0).all() and (ref_arm == 0).all()
    assert np.unique(tau).size >= 5  # not a degenerate law
    assert stats.ks_2samp(tau, ref).pvalue > LEVEL
    # negative control: the stopping constants 20 % too low change the law, and KS sees it
    low, _, _ = engine(name, MU, params, 400, cs=0.8)
    assert stats.ks_2samp(low, ref).pvalue < LEVEL


def test_error_rate_at_most_delta_and_a_zero_threshold_errs():
    mu, delta, runs = [0.6, 0.45], 0.1, 600
    params = dict(epsilon=1.0, delta=delta, beta=0.5, threshold="heuristic")
    _, arm, st = engine("adap-tt", mu, params, runs, seed=3)
    assert st.all()
    assert stats.binomtest(int((arm != 0).sum()), runs).proportion_ci(0.999).low <= delta
    # negative control: stop as soon as the released means are ordered (threshold 0)
    _, bad, st0 = engine("adap-tt", mu, params, runs, seed=3, cs=0.0)
    assert st0.all()
    assert stats.binomtest(int((bad != 0).sum()), runs).proportion_ci(0.999).low > delta


def test_a_small_budget_censors_and_the_summary_counts_it():
    res = simulate_bai("adap-tt", means=MU, epsilon=1.0, delta=0.01, runs=10, budget=500,
                       seed=1, threads=1)
    s = res.summary()
    assert s["censored"] == 10 and (res.tau == 500).all() and (res.recommended == -1).all()


def test_every_episode_sum_is_one_recorded_laplace_release():
    # the recorded releases: law Laplace, scale 1/ε on the episode sum, sizes 1, 1, 2, 4, …
    # per arm; z = (value − true)·ε follows Lap(0, 1) by the whole-run audit's exact tests,
    # and the same tests detect an engine with its episode noise at 80 %.
    from bandsim.kernels import codes, record
    from bandsim.wholerun.laws import ALPHA
    from bandsim.wholerun.noise import laplace_pvalues

    eps, runs = 1.0, 120
    params = dict(epsilon=eps, delta=0.01, beta=0.5, threshold="eq-5.11")

    def recorded(fpar):
        rec = record.recorder(codes.RECORD, 20000)
        tau, _, st = engine("adap-tt", MU, params, runs, seed=7, fpar=fpar, rec=rec)
        n = int(rec.counts[record.N_RELEASES])
        assert st.all() and n <= rec.rel.shape[0]
        return tau, rec.rel[:n], rec.val[:n]

    tau, rel, val = recorded(1.0)
    assert (rel[:, record.REL_LAW] == codes.LAW_LAPLACE).all()
    assert np.allclose(val[:, record.VAL_SCALE], 1 / eps)
    for r in range(runs):
        mine = rel[rel[:, record.REL_RUN] == r]
        assert mine[:, record.REL_T].max() == tau[r]  # stopped right after a release
        for a in range(len(MU)):
            sizes = mine[mine[:, record.REL_ARM] == a, record.REL_N]
            assert list(sizes) == [1] + [2 ** j for j in range(sizes.size - 1)]
    z = (val[:, record.VAL_VALUE] - val[:, record.VAL_TRUE]) * eps
    assert min(p if np.isscalar(p) else p.pvalue for p in laplace_pvalues(z)) > ALPHA
    _, _, weak = recorded(0.8)
    zw = (weak[:, record.VAL_VALUE] - weak[:, record.VAL_TRUE]) * eps  # the declared 1/ε
    assert laplace_pvalues(zw)[0] < ALPHA


def test_declarations_are_the_one_place():
    d = declarations.ALGORITHMS
    assert {"adap-tt", "adap-tt-star", "tt-ucb"} <= set(d)
    assert d["adap-tt-star"].provisional and not d["adap-tt"].provisional
    assert d["adap-tt"].param("threshold").choices == ("eq-5.11", "heuristic")


# --- plug-in hooks: a researcher's top-two rule, no engine of its own --------------------
import numba  # noqa: E402

from bandsim.bai.toptwo import TopTwoBAI  # noqa: E402
from bandsim.kernels import toptwo as kt  # noqa: E402


@numba.njit
def my_leader(mt, nt, cnt, t, c):
    """The built-in UCB leader, written out as a plug-in."""
    g = np.log(max(t, 1))
    best, arg = -np.inf, 0
    for a in range(mt.shape[0]):
        u = mt[a] + np.sqrt(g / nt[a]) + g * c[0] / nt[a]
        if u > best:
            best, arg = u, a
    return arg


@numba.njit
def my_challenger(b, mt, cnt, c):
    return kt.tc_challenger(b, mt, cnt, c)


@numba.njit
def my_stop(mt, nt, c):
    return kt.glr_stop(mt, nt, c)


@numba.njit
def eb_leader(mt, nt, cnt, t, c):
    """Empirical-best leader (EB-TC), a different rule."""
    return np.argmax(mt)


def test_plugin_hooks_reproduce_the_builtin_rules_bit_for_bit():
    from bandsim import registry, validation

    base = declarations.get("adap-tt")
    params = dict(epsilon=1.0, delta=0.01, beta=0.5, threshold="eq-5.11")
    stop_c = base.plan(params, 3, 10**7).tables.cs
    mine = TopTwoBAI(name="my-tt", summary="plug-in copy of adap-tt", source="test",
                     params=base.params, leader=my_leader, challenger=my_challenger,
                     stop=my_stop, constants=lambda p, k, b: dict(stop=stop_c))
    validation.check(mine, registry.mechanisms(), kernel_keys=registry.KERNEL_KEYS,
                     reward_models=registry.REWARD_MODELS, costs=registry.COSTS)  # compiles
    plan = mine.plan(params, 3, 10**7)
    assert (plan.tables.kinds == kt.HOOK).all()
    got = engine("my-tt", MU, params, 50, seed=4, plan=plan)
    want = engine("adap-tt", MU, params, 50, seed=4)
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    eb = TopTwoBAI(name="eb-tt", summary="EB leader", source="test", params=base.params,
                   leader=eb_leader)
    tau, arm, st = engine("eb-tt", MU, params, 50, seed=4, plan=eb.plan(params, 3, 10**7))
    assert st.all() and (arm == 0).all() and not np.array_equal(tau, want[0])


def test_cli_passes_the_threshold_reading_on(tmp_path, capsys):
    from bandsim.bai import BAIResult
    from bandsim.cli import main

    out = tmp_path / "h.parquet"
    assert main(["bai", "adap-tt", "--means", "0.9,0.6,0.3", "--epsilon", "1", "--delta",
                 "0.01", "--runs", "4", "--seed", "1", "--threshold", "heuristic",
                 "--out", str(out)]) == 0
    assert BAIResult.from_parquet(out).config["params"]["threshold"] == "heuristic"
    assert main(["bai", "adap-tt", "--means", "0.9,0.6,0.3", "--epsilon", "1", "--delta",
                 "0.01", "--runs", "4", "--threshold", "eq-5.12"]) == 2
    assert "threshold" in capsys.readouterr().err
