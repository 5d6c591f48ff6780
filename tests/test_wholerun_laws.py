"""The many-run checks of the whole-run audit (bandsim.wholerun.laws, .pairs, .exact): every
release class's noise law given its true statistic, the independence of the noises of
different releases, and the power each verdict states.

Negative controls are the engines with one line of their release path changed (through
:func:`bandsim.kernels._jit.rebind`, the built-in sources untouched): each FAILs with one
line naming the release class (or pair class) and the check."""
import math

import numba
import numpy as np
import pytest

from bandsim.kernels import elimination, secagg, sequential, svt
from bandsim.kernels._jit import rebind
from bandsim.kernels.codes import LAW_LAPLACE, LAW_SVT_QUERY, LAW_SVT_THRESHOLD
from bandsim.kernels.record import release
from bandsim.wholerun import audit
from bandsim.wholerun.laws import ALPHA, rho_power, scale_power

# ------------------------------------------------------------------ mutated release paths


@numba.njit
def _previous(rec, run, t, arm, law, limit):
    """Index of the last recorded release of ``law`` in ``run`` (at time ``t`` if t ≥ 0,
    of ``arm`` if arm ≥ −1), searching ``limit`` releases back; −1 if none."""
    i = rec.counts[1] - 1
    stop = max(-1, i - limit)
    while i > stop:
        if i < rec.rel.shape[0] and rec.rel[i, 0] == run and rec.rel[i, 4] == law and (
                t < 0 or rec.rel[i, 1] == t) and (arm < -1 or rec.rel[i, 2] == arm):
            return i
        i -= 1
    return -1


@numba.njit
def _one_draw_per_stage(rec, run, t, arm, n, law, tag, true, scale, value):
    """(i) DP-SE: the stage's first arm draws its Laplace noise, every other arm reuses it."""
    if rec is not None and law == LAW_LAPLACE:
        j = _previous(rec, run, t, -2, law, 1)
        if j >= 0:
            value = true + (rec.val[j, 2] - rec.val[j, 0])
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


@numba.njit
def _no_query_noise(rec, run, t, arm, n, law, tag, true, scale, value):
    """(ii) DP-SE 2: the SVT's query noise set to 0 (the threshold noise kept)."""
    if law == LAW_SVT_QUERY:
        value = true
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


@numba.njit
def _same_node(rec, start, run, arm, tag, limit):
    """Index of the last Laplace release before ``start`` of ``arm`` at tree level ``tag``."""
    i = min(start, rec.rel.shape[0]) - 1
    stop = max(-1, i - limit)
    while i > stop:
        if (rec.rel[i, 0] == run and rec.rel[i, 4] == LAW_LAPLACE and rec.rel[i, 2] == arm
                and rec.rel[i, 5] == tag):
            return i
        i -= 1
    return -1


@numba.njit
def _shared_node_draw(rec, run, t, arm, n, law, tag, true, scale, value):
    """(iii) DP-UCB: sibling nodes of one tree level share one draw — a node reuses the noise
    of the arm's previous node of its level unless that one already reused its own
    predecessor's (every release is still Lap(b) on its own)."""
    if rec is not None and law == LAW_LAPLACE:
        j = _same_node(rec, rec.counts[1], run, arm, tag, 1 << 17)
        if j >= 0:
            nj = rec.val[j, 2] - rec.val[j, 0]
            k = _same_node(rec, j, run, arm, tag, 1 << 17)
            if k < 0 or rec.val[k, 2] - rec.val[k, 0] != nj:
                value = true + nj
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


@numba.njit
def _threshold_kept(rec, run, t, arm, n, law, tag, true, scale, value):
    """(iii) DP-SE 2: the threshold of SVT instance e ≥ 1 is instance e − 1's, not redrawn."""
    if rec is not None and law == LAW_SVT_THRESHOLD and tag > 0:
        j = _previous(rec, run, -1, -2, law, 1 << 20)
        if j >= 0:
            value = rec.val[j, 2]
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


@numba.njit
def _first_stage_weak(rec, run, t, arm, n, law, tag, true, scale, value):
    """DP-SE: the first stage's noise 25 % too small (the declared scale still recorded)."""
    if law == LAW_LAPLACE and t == n:
        value = true + 0.75 * (value - true)
    return release(rec, run, t, arm, n, law, tag, true, scale, value)


@numba.njit
def _window_from_the_true_sum(rng, mech, xhat_sum, n, fpar, ipar):
    """SecAgg's analyzer decoding ŷ to the representative nearest the true encoded sum
    Σx̂ instead of the window [−τ, n g + τ] of the declaration (the same draws)."""
    g, m = ipar[0], ipar[2]
    yhat = (xhat_sum + secagg.total_noise(rng, mech, n, fpar)) % m
    v = np.int64(np.rint(secagg.finish(rng, mech, yhat, n, fpar, ipar) * g))
    h = m // 2
    return (xhat_sum + (v - xhat_sum + h) % m - h) / g


@numba.njit
def _narrow_total_noise(rng, mech, n, fpar):
    """dist-dp: the batch of n = 64 draws its Lap_Z(g/ε) total with a scale 25 % too small
    (q from b' = 0.75 b); every other batch, and every recorded parameter, as declared."""
    if n == 64:
        q = -math.expm1(math.log1p(-fpar[0]) / 0.75)
        return (rng.geometric(q) - 1) - (rng.geometric(q) - 1)
    return secagg.total_noise(rng, mech, n, fpar)


@pytest.fixture
def mutate(monkeypatch):
    """``mutate(module, name, replacement)``: that engine with ``release`` replaced."""
    def apply(module, name, replacement, callee="release"):
        monkeypatch.setattr(module, name, rebind(getattr(module, name),
                                                 {callee: replacement}))
    return apply


def _fails(report, check, cls):
    """The verdict FAILs, and some line of ``check`` names the class ``cls``."""
    assert report.verdict == "FAIL", (report.verdict, report.reason)
    lines = [f for f in report.failures if f.startswith(check)]
    assert any(cls in f for f in lines), report.failures
    assert all("\n" not in f for f in lines)
    return lines


def test_one_laplace_draw_shared_by_the_arms_of_a_stage_fails_h(mutate):
    mutate(elimination, "run_shard", _one_draw_per_stage)
    r = audit("dp-se", horizon=20_000)
    lines = _fails(r, "(h) independence", "across arms at one time (laplace)")
    assert any("Spearman ρ = 1" in f for f in lines), lines
    assert not [f for f in r.failures if f.startswith(("(c)", "(d)", "(e)"))]  # each is Lap(b)


def test_a_first_stage_25_percent_under_noised_fails_g_in_its_class(mutate):
    mutate(elimination, "run_shard", _first_stage_weak)
    r = audit("dp-se", horizon=20_000)
    lines = _fails(r, "(g) law", "release class laplace (n = ")
    assert any("noise scale off" in f for f in lines), lines
    assert not [f for f in r.failures if f.startswith(("(c)", "(d)"))]


def test_svt_query_noise_dropped_fails_g(mutate):
    mutate(svt, "run_shard", _no_query_noise)
    _fails(audit("dp-se2"), "(g) law", "release class svt-query (tag 0")


def test_an_svt_threshold_not_redrawn_fails_h(mutate):
    mutate(svt, "run_shard", _threshold_kept)
    r = audit("dp-se2-modified", horizon=20_000)
    _fails(r, "(h) independence", "the thresholds of consecutive SVT instances of a run")


def test_tree_nodes_sharing_one_draw_fail_h(mutate):
    mutate(sequential, "run_ucb_shard", _shared_node_draw)
    r = audit("dp-ucb", horizon=5_000)
    _fails(r, "(h) independence", "consecutive releases of one arm and tag (laplace)")
    assert not [f for f in r.failures if f.startswith(("(c)", "(d)"))]


def test_a_decoding_window_read_from_the_true_sum_fails_g(mutate):
    """The output is the same but where the window matters: an output the declared window
    [−τ, n g + τ] cannot hold, impossible under the declared law."""
    mutate(elimination, "run_shard", _window_from_the_true_sum, "batched_output")
    r = audit("dist-dp-se")
    lines = _fails(r, "(g) law", "release class batch (tag ")
    assert any("impossible under dist-dp" in f and "derived parameters" in f for f in lines)


def test_a_secagg_batch_25_percent_under_noised_fails_g_in_its_class(mutate):
    mutate(elimination, "run_shard", _narrow_total_noise, "total_noise")
    r = audit("dist-dp-se")
    lines = _fails(r, "(g) law", "release class batch (tag 4, n = 64,")
    assert all("n = 64," in f for f in r.failures), r.failures  # that class only
    assert any("too little noise" in f for f in lines), lines


# ------------------------------------------------------------------ verdicts and power


def test_a_pass_states_its_power():
    r = audit("dist-dp-se")
    assert r.verdict == "PASS", r.failures
    pw = r.power
    assert pw["classes"] >= 5 and pw["classes_target"] == pw["classes"]  # ≥ 1,000 draws each
    assert pw["min_draws"] >= 900 and pw["scale_low_every"] < 0.3
    assert 0 < pw["correlation"] < 0.1 and pw["level"] == pytest.approx(ALPHA / pw["tests"])
    assert "noise scale ≥" in r.detects and "|correlation| ≥" in r.detects
    d = r.to_dict()
    assert d["power"] == pw and d["detects"] == r.detects and d["runs"] == r.runs > 100


def test_a_budget_too_small_is_inconclusive_never_pass():
    r = audit("dp-se", horizon=20_000, work=1)
    assert r.verdict == "inconclusive" and "could not detect" in r.reason
    assert r.power["max_draws"] < 300


def test_a_class_below_1000_draws_even_pooled_is_inconclusive_never_pass():
    """A budget whose best class resolves a 36 % deficit (not 'could not detect') but whose
    one class has 300 draws: inconclusive, naming the class and its draws."""
    r = audit("dp-se", horizon=20_000, work=300)
    assert r.verdict == "inconclusive" and not r.failures
    assert "(300 draws < 1,000)" in r.reason and "laplace (n = " in r.reason
    assert r.power["min_floor"] == 300 and r.power["thin"]
    assert "each law from ≥ 300 draws" in r.detects


def test_thin_classes_are_pooled_with_their_law_and_scale_only():
    """Two Laplace positions of one scale (600 + 500 draws) are tested from 1,100 draws
    each; a lone Laplace class of another scale and a batch class keep their own."""
    from bandsim.kernels import codes
    from bandsim.wholerun.budget import floors

    rows = ([(LAW_LAPLACE, 0, 4, 2.0)] * 600 + [(LAW_LAPLACE, 1, 8, 2.0)] * 500
            + [(LAW_LAPLACE, 0, 4, 3.0)] * 10 + [(codes.LAW_BATCH, 0, 4, 2.0)] * 300
            + [(LAW_LAPLACE, 2, 16, 3.0)] * 2000)
    rel = np.zeros((len(rows), 7), np.int64)
    val = np.zeros((len(rows), 3))
    for i, (law, tag, n, scale) in enumerate(rows):
        rel[i, 4], rel[i, 5], rel[i, 3], val[i, 1] = law, tag, n, scale
    got = {lab: (own, floor) for lab, own, floor, _ in floors(rel, val)}
    assert got["laplace (n = 4, scale 2)"] == (600, 1100)
    assert got["laplace (tag 1, n = 8, scale 2)"] == (500, 1100)
    assert got["laplace (n = 4, scale 3)"] == (10, 2010)
    assert got["laplace (tag 2, n = 16, scale 3)"] == (2000, 2000)
    assert got["batch (n = 4, scale 2)"] == (300, 300)  # a batch's law depends on n


def test_power_figures_follow_from_the_counts():
    from scipy import stats

    a = 1e-6 / 50
    f = scale_power(1000, a)  # P(Gamma(n, 1 − f) < Gamma(n, 1).ppf(a/2)) = 0.99
    assert stats.gamma.cdf(stats.gamma.ppf(a / 2, 1000) / (1 - f), 1000) == pytest.approx(0.99)
    assert 0.15 < f < 0.25
    rho = rho_power(10_000, a)
    z = (stats.norm.isf(a / 2) + stats.norm.isf(0.01)) / math.sqrt(10_000 - 3)
    assert rho == pytest.approx(math.tanh(z)) and 0.07 < rho < 0.08


def test_an_svt_algorithm_opens_a_second_instance_and_enters_every_class():
    r = audit("dp-se2")
    assert r.verdict == "PASS" and not r.unexercised, (r.failures, r.unexercised)
    assert r.power["pairs"] >= 4  # across arms, consecutive thresholds and queries, thr–query


def test_a_declared_structure_no_run_reached_is_incomplete_never_pass(monkeypatch):
    """Without the staggered instance no DP-SE 2 run opens a second SVT instance: the
    redraw of the threshold went unchecked, so the verdict says so."""
    from bandsim.wholerun import checks

    monkeypatch.setattr(checks, "STAGGERED_MEANS", None)
    r = audit("dp-se2")
    assert r.verdict == "incomplete" and not r.failures
    assert "a second SVT instance" in r.reason and r.unexercised
