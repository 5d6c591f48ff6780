"""The calibration table: (g, τ, m, noise) of every mechanism, recomputed here from the
papers' formulas by independent code, at non-square n and non-round ε, against what the
planner derives and puts in the engines' tables.

The defaults n = 4^b and ε = 0.5 make ⌈s ε √n⌉ exact and hide a whole class of
calibration errors that stay private (and so pass every audit): τ without its square,
DP-SE's Laplace at 2/ε, dist-rdp's g without s, an un-rounded g in dist-cdp. Each has a
negative control below (the mutated derivation must make the table check fail).

References
----------
Chowdhury & Zhou, "Distributed Differential Privacy in Multi-Armed Bandits" (ICLR 2023),
Theorems 1–6; Tenenbaum, Kaplan, Mansour & Stemmer, "Differentially Private Multi-Armed
Bandits in the Shuffle Model" (NeurIPS 2021), Algorithm 3; Sajed & Sheffet (ICML 2019) /
Sajed (MSc thesis 2019), Algorithms 5, 9, 10; Hu & Hegde (UAI 2022), Algorithm 1.
"""
import dataclasses
import math

import numpy as np
import pytest

from bandsim import registry
from bandsim.registry import get_algorithm, get_mechanism

NS = (10, 37, 1000)
EPSILONS = (0.07, 0.3, 1.3)
P, S, DELTA = 0.037, 3.7, 1e-7
#: Lemma 5's constant c (Chowdhury & Zhou, Appendix G.2) as derived in the simulator's
#: docs: 2 sqrt(2 (cosh 1 − 1)). The paper leaves it as "an absolute constant".
C_LOCAL = 2 * math.sqrt(2 * (math.cosh(1) - 1))


def _dl(g, eps):
    """Lap_Z(g/ε): (q, β) with β = e^{−ε/g}, q = 1 − β (to full precision: −expm1)."""
    return (-math.expm1(-eps / g), math.exp(-eps / g))


def paper(name, n, eps):
    """(g, τ, m, noise parameters) of one batch, straight from the paper."""
    L = math.log(2 / P)
    if name in ("dist-dp", "central"):  # Theorems 1, 5
        g = math.ceil(eps * math.sqrt(n))
        tau = math.ceil(g / eps * L)
        return g, tau, n * g + 2 * tau + 1, _dl(g, eps)
    if name == "dist-dp-shuffle":  # Theorem 3: ε' = ε/2, τ at p' = q̂ = p
        e2 = eps / 2
        g = math.ceil(e2 * math.sqrt(n))
        tau = math.ceil(g / e2 * L)
        return g, tau, n * g + 2 * tau + 1, _dl(g, e2) + (P,)
    if name == "local":  # Theorem 6 (and Lemma 5's tail 2L for n < 2L)
        g = math.ceil(eps * math.sqrt(n))
        tau = math.ceil(C_LOCAL * g / eps * max(math.sqrt(2 * n * L), 2 * L))
        return g, tau, n * g + 2 * tau + 1, _dl(g, eps)
    s = PARAMS.get(name, {}).get("scale", S)
    if name == "dist-rdp":  # Theorem 2: Sk(0, g²/(nε²)) per user, μ of the total
        g = math.ceil(s * eps * math.sqrt(n))
        tau = math.ceil(2 * g / eps * math.sqrt(L) + math.sqrt(2) * L)
        return g, tau, n * g + 2 * tau + 1, (g * g / eps**2 / 2,)
    if name == "dist-cdp":  # Theorem 4: N_Z(0, g²/(nε²)) per user, σ² of the total
        g = math.ceil(s * eps * math.sqrt(n))
        tau = math.ceil(g / eps * math.sqrt(2 * L))
        return g, tau, n * g + 2 * tau + 1, (g * g / eps**2,)
    if name == "binary-summation":  # Tenenbaum et al., Algorithm 3 line 1
        return None, None, None, (96 * math.log(2 / DELTA) / eps**2,)
    if name == "laplace":  # Sajed & Sheffet: Lap(1/(ε r)) on a mean of r = Lap(1/ε) on the sum
        return None, None, None, (1 / eps,)
    raise KeyError(name)


PARAMS = {"dist-dp": dict(p=P), "central": dict(p=P), "local": dict(p=P),
          "dist-dp-shuffle": dict(p=P), "dist-rdp": dict(p=P, scale=S),
          "dist-cdp": dict(p=P, scale=S), "binary-summation": dict(delta=DELTA), "laplace": {}}


def simulator(name, n, eps):
    b = get_mechanism(name).derive(n, dict(epsilon=eps, **PARAMS[name]))
    if len(b.ipar) == 3:
        g, tau, m = (int(v) for v in b.ipar)
        return (g, tau, m, tuple(float(v) for v in b.fpar)), b
    return (None, None, None, tuple(float(v) for v in b.fpar)), b


def table_matches(name, ns=NS, epsilons=EPSILONS):
    """Every (n, ε) row: the simulator's (g, τ, m, noise) equals the paper's exactly
    (noise parameters to 1 ulp-level relative error 1e-15)."""
    for n in ns:
        for eps in epsilons:
            ours, b = simulator(name, n, eps)
            ref = paper(name, n, eps)
            if ours[:3] != ref[:3] or len(ours[3]) != len(ref[3]):
                return False
            if not all(math.isclose(a, r, rel_tol=1e-15, abs_tol=0) for a, r in
                       zip(ours[3], ref[3])):
                return False
            if len(b.ipar) == 3 and (b.g, b.tau, b.m) != ref[:3]:  # the object agrees too
                return False
    return True


MECHANISMS = sorted(PARAMS)


def test_the_table_covers_every_builtin_mechanism_with_parameters():
    derived = {m.name for m in registry.mechanisms().values()
               if m.family in ("secagg", "shuffle", "sum") and not m.kernels
               and m.kind != "none"}
    assert derived == set(MECHANISMS)


@pytest.mark.parametrize("name", MECHANISMS)
def test_calibration_table_is_the_papers(name):
    assert table_matches(name)


@pytest.mark.parametrize("algo,growth", [("dist-dp-se", 10.0), ("dist-rdp-se", 37.0),
                                         ("dist-cdp-se", 10.0), ("cdp-se", 37.0),
                                         ("ldp-se", 10.0), ("dist-dp-se-shuffle", 37.0)])
@pytest.mark.parametrize("eps", EPSILONS)
def test_the_engines_tables_hold_the_papers_numbers(algo, growth, eps):
    """The planner's tables (what the elimination engine reads) at batch sizes 10, 100,
    1000 (η = 10) or 37, 1369 (η = 37)."""
    a = get_algorithm(algo)
    given = dict(epsilon=eps, p=P, growth=growth)
    if a.param("scale"):
        given["scale"] = S
    prm = a.resolve(given, 3000)
    plan = a.plan(prm, 2, 3000)
    batch, fpar, ipar = (np.asarray(x) for x in (plan.batch, plan.fpar, plan.ipar))
    mech = a.mechanism
    seen = 0
    for s in range(batch.shape[0]):
        n = int(batch[s, 2])
        if n <= 0:
            continue
        g, tau, m, noise = paper(mech, n, eps)
        assert tuple(int(v) for v in ipar[s, 2]) == (g, tau, m), (n, eps)
        assert np.allclose(fpar[s, 2, :len(noise)], noise, rtol=1e-15, atol=0), (n, eps)
        seen += 1
    assert seen >= 2


def test_engine_noise_scales_are_the_papers():
    """DP-SE Lap(1/ε), DP-UCB Lap((⌈log₂T⌉ + 1)/ε), DP-SE 2 Lap(6/ε) and Lap(2/ε),
    DP-TS Lap(2/ε) and Lap(2(r + 1)/ε), episodic Lap(1/ε), at non-round ε and T."""
    for eps in EPSILONS:
        for T in (10, 37, 1000, 12_345):
            ucb = get_algorithm("dp-ucb")
            plan = ucb.plan(ucb.resolve(dict(epsilon=eps), T), 3, T)
            assert plan.scale == (math.floor(math.log2(T - 1)) + 2) / eps  # ⌈log₂T⌉ + 1, T ≥ 3
            se2 = get_algorithm("dp-se2")
            plan = se2.plan(se2.resolve(dict(epsilon=eps), T), 3, T)
            assert (plan.svt_scale, plan.hist_scale) == (6 / eps, 2 / eps)
            ts = get_algorithm("dp-ts")
            plan = ts.plan(ts.resolve(dict(epsilon=eps), T), 3, T)
            assert (plan.chunk_scale, plan.node_scale) == (2 / eps, 2 / eps)
            for name in ("adap-ucb", "dp-klucb", "lazy-dp-ts"):
                a = get_algorithm(name)
                assert a.plan(a.resolve(dict(epsilon=eps), T), 3, T).noise_scale == 1 / eps
            se = get_algorithm("dp-se")
            plan = se.plan(se.resolve(dict(epsilon=eps), T), 3, T)
            used = np.asarray(plan.fpar)[:, 2:, 0][np.asarray(plan.batch)[:, 2:] > 0]
            assert used.size and np.all(used == 1 / eps)


# ------------------------------------------------------------------ negative controls

def _replace(monkeypatch, name, batch):
    monkeypatch.setitem(registry._MECHANISMS, name,
                        dataclasses.replace(get_mechanism(name), batch=batch))


def test_negative_control_tau_without_its_square(monkeypatch):
    """Binary summation's τ = 96 log(2/δ)/ε (3.2× too little noise at ε = 0.1)."""
    from bandsim import mechanisms
    from bandsim.mechanisms import binary_summation as bs

    assert table_matches("binary-summation")
    monkeypatch.setattr(bs, "accuracy_tau", lambda e, d: 96 * math.log(2 / d) / e)
    monkeypatch.setattr(mechanisms, "_BS_CACHE", {})
    assert not table_matches("binary-summation")


def test_negative_control_dp_se_laplace_at_2_over_epsilon(monkeypatch):
    spec = get_mechanism("laplace")
    _replace(monkeypatch, "laplace", lambda n, epsilon: spec.batch(n, epsilon=epsilon / 2))
    assert not table_matches("laplace")


def test_negative_control_dist_rdp_g_without_s(monkeypatch):
    from bandsim.mechanisms import secagg

    _replace(monkeypatch, "dist-rdp",
             lambda n, epsilon, p=0.1, scale=10.0: secagg.dist_rdp(n, epsilon, p, 1.0))
    assert not table_matches("dist-rdp")


def test_negative_control_unrounded_g_in_dist_cdp(monkeypatch):
    """g = s ε √n not rounded up: found at n = 10 (ε √n irrational), not at n = 4^b, ε = 0.5
    (s ε √n an integer there)."""
    from bandsim.mechanisms import secagg

    def unrounded(n, epsilon, p=0.1, scale=10.0):
        b = secagg.dist_cdp(n, epsilon, p, scale)
        g = scale * epsilon * math.sqrt(n)
        tau = math.ceil(g / epsilon * math.sqrt(2 * math.log(2 / p)))
        m = n * g + 2 * tau + 1
        return dataclasses.replace(b, g=g, tau=tau, m=m, ipar=(g, tau, m),
                                   fpar=(g * g / epsilon**2,))

    _replace(monkeypatch, "dist-cdp", unrounded)
    assert not table_matches("dist-cdp")
    monkeypatch.setitem(PARAMS, "dist-cdp", dict(p=P, scale=10.0))
    assert table_matches("dist-cdp", ns=(16, 64), epsilons=(0.5,))  # the defaults hide it


def test_negative_control_paper_side_is_not_the_simulators():
    """The reference is independent: a mutated paper formula (τ of Theorem 1 without
    the log) disagrees with the simulator."""
    global paper
    orig = paper

    def wrong(name, n, eps):
        g, tau, m, noise = orig(name, n, eps)
        if name == "dist-dp":
            tau = math.ceil(g / eps)
            m = n * g + 2 * tau + 1
        return g, tau, m, noise

    paper = wrong
    try:
        assert not table_matches("dist-dp")
    finally:
        paper = orig
