"""Sampled audits of the real kernels: do they draw the law the exact audit certifies?

The exact audit (:mod:`bandsim.privacy.audit`) certifies the privacy of a
batch's *law*, computed from the parameters the kernels read. It cannot see
the kernels' code: a sampler that computes the wrong thing from the right
parameter (an inverted scale inside the Pólya sampler, a forgotten term)
passes it. The sampled audit runs the real batched and per-user kernel paths
of one batch — :meth:`bandsim.mechanisms.secagg.Batch.outputs`, the shuffle's
``sample_batched``/``sample_per_user``, DP-SE's ``batch_estimate`` — on two
neighbouring inputs with ≥ 10⁶ draws each, and

1. tests each output histogram against the exact law the exact audit
   certifies (the mechanism's ``noise_law`` folded mod m and shifted by the
   input): a G-test (likelihood-ratio χ²) with every cell of expected count
   below 5 pooled into one tail cell, rejected at α = 10⁻⁶;
2. computes an empirical lower bound on ε with confidence 1 − 10⁻⁶, as
   Google's DP statistical tester and DP-Auditorium do: the most
   distinguishing event is chosen among the threshold sets {y ≥ t}, {y ≤ t}
   on one half of the draws, and its probabilities under both inputs are
   bounded on the other half by Clopper–Pearson intervals (each at
   1 − 10⁻⁶/2), ε_lb = log((P̲ − δ)/P̄). It must not exceed the claim (for
   RDP and zCDP claims: their (ε, δ₀)-DP conversion at δ₀ = 10⁻⁶).

A correct implementation FAILs each test with probability ≤ 10⁻⁶ (fixed
seed: deterministically). Verdicts: PASS (exit 0), FAIL (1), cannot audit (2:
no batch kernels, a law too large to tabulate, or a path beyond the work
budget — then with the reason).

Neighbouring inputs: every user's reward 0, versus one user's reward 1 (the
encoded sum moves from k = 0 to k + g). For ``local`` the view is one user's
message (the kernels run a batch of one user); its batch aggregate is also
tested against the n-fold sum of the per-user law.

References
----------
Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential
Privacy" (CCS 2018); Kong et al., "DP-Auditorium: a Large-Scale Library for
Auditing Differential Privacy" (IEEE S&P 2024); Clopper & Pearson (1934);
Mironov, "Rényi Differential Privacy" (CSF 2017), Proposition 3;
Bun & Steinke, "Concentrated Differential Privacy" (TCC 2016), Proposition 1.3.
"""
import math
import time
from dataclasses import dataclass, field

from typing import Any

import numpy as np

from ..errors import ConfigError, check_int
from ..params import MAX_HORIZON
from ..guarantees import Guarantee
from ..engines import protocol_kernel
from ..kernels import codes
from ..plancache import make_plan
from ..registry import algorithms, get_algorithm, get_mechanism, mechanisms
from ..results import json_safe
from .release import release_pairs
from .sampled_shuffle import shuffle_pairs
from . import pmf as P
from .audit import _relaxed
from .sampled_checks import _circle, _Pair, _window, fractional_pairs, scale_test
from .sampled_stats import ALPHA, BETA, MIN_EXPECTED, epsilon_lower_bound, g_test  # noqa: F401

#: Draws per path and neighbouring input.
DRAWS = 10**6
#: δ₀ at which RDP and zCDP claims are converted to (ε, δ₀)-DP.
DELTA0 = 1e-6
#: Most histogram cells (the modulus m of a SecAgg view).
MAX_CELLS = 1 << 22
#: Most elementary draws (users' noise draws, coins) one path may take.
WORK_BUDGET = 3 * 10**8


class CannotAudit(Exception):
    """The sampled audit cannot run (unsupported, too large); the message says why."""


@dataclass
class Check:
    """One path on one neighbouring input: a G-test of its draws against the exact law."""

    path: str
    input: str
    draws: int
    cells: int
    statistic: float
    p_value: float

    @property
    def passed(self):
        return self.p_value >= ALPHA


@dataclass
class Bound:
    """The empirical lower bound on ε of one path."""

    path: str
    epsilon_lb: float
    estimate: float
    event: str
    counts: tuple
    draws: int
    draws1: int = 0  # draws under input 1 when they differ (fractional neighbours)


@dataclass
class SampledReport:
    """Outcome of :func:`sampled_audit`."""

    algorithm: str
    mechanism: str
    params: dict
    claim: dict
    checks: list = field(default_factory=list)
    bounds: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    @property
    def epsilon_lb(self):
        return max((b.epsilon_lb for b in self.bounds), default=-math.inf)

    @property
    def code(self):
        """Exit status: 0 PASS, 1 FAIL, 2 cannot audit."""
        if self.reason:
            return 2
        if any(not c.passed for c in self.checks) or self.epsilon_lb > self.claim["epsilon"]:
            return 1
        return 0

    @property
    def passed(self):
        return self.code == 0

    def verdict(self):
        """One line: PASS, FAIL with the first failed test, or why it cannot audit."""
        head = f"{self.algorithm} at n = {self.params.get('n', 0):,}"
        if self.reason:
            return f"CANNOT AUDIT: {head}: {self.reason}"
        claim = self.claim
        bound = (f"ε_lb = {self.epsilon_lb:.4g} (confidence 1 − {BETA:g}) vs claimed "
                 f"ε = {claim['epsilon']:.4g}" + (f" at δ = {claim['delta']:.3g}"
                                                 if claim.get("delta") else ""))
        bad = [c for c in self.checks if not c.passed]
        if bad:
            c = bad[0]
            return (f"FAIL: {head}: the {c.path} kernels do not draw the audited law "
                    f"(input {c.input}: G = {c.statistic:.4g} on {c.cells} cells, p = "
                    f"{c.p_value:.3g} < {ALPHA:g}); {bound}")
        if self.epsilon_lb > claim["epsilon"]:
            return f"FAIL: {head}: {bound} exceeds the claim"
        paths = ", ".join(sorted({c.path for c in self.checks}))
        return (f"PASS: {head}: {paths} draws fit the audited law (every p ≥ {ALPHA:g}); "
                f"{bound}")

    def to_dict(self):
        """Plain data, strict JSON (a non-finite number is None)."""

        return json_safe(dict(
            algorithm=self.algorithm, mechanism=self.mechanism, params=self.params,
            claim=self.claim, code=self.code, verdict=self.verdict(),
            checks=[dict(c.__dict__, passed=c.passed) for c in self.checks],
            bounds=[dict(b.__dict__) for b in self.bounds], notes=self.notes,
            epsilon_lb=self.epsilon_lb, seconds=self.seconds))


# --- the claim as (ε, δ) ---------------------------------------------------------

def claim_as_dp(spec, b, delta0=DELTA0):
    """The batch's claim as (ε, δ)-DP of the audited view (dict: epsilon, delta, how)."""
    priv = b.privacy
    kind = spec.kind
    if kind.epsilon_dp:
        eps = priv.get("epsilon_secagg", priv["epsilon"])
        return dict(epsilon=eps, delta=0.0, how="ε-DP claim" +
                    (" of the modular sum (ε' = ε/2)" if "epsilon_secagg" in priv else ""))
    if kind is Guarantee.APPROX:
        return dict(epsilon=priv["epsilon"], delta=priv["delta"], how="(ε, δ)-DP claim")
    if kind is Guarantee.RDP:
        vals = [spec.claim(b, a)[0] + math.log(1 / delta0) / (a - 1) for a in range(2, 65)]
        return dict(epsilon=min(vals), delta=delta0,
                    how="RDP claim ε̂(α) converted: min_α ε̂(α) + log(1/δ₀)/(α − 1)")
    if kind is Guarantee.ZCDP:
        rho = priv["rho"]
        return dict(epsilon=rho + 2 * math.sqrt(rho * math.log(1 / delta0)), delta=delta0,
                    how="ρ-zCDP claim converted: ρ + 2 sqrt(ρ log(1/δ₀))")
    raise CannotAudit(f"privacy kind {kind!r} has no (ε, δ) form")


# --- the paths of each family ----------------------------------------------------

def _secagg_pairs(spec, b, draws, rng, notes):
    g, tau, m = (int(v) for v in b.ipar)
    if m > MAX_CELLS:
        raise CannotAudit(f"m = {m:,} > {MAX_CELLS:,} cells; audit a smaller --batch-size")
    local = spec.view != "ŷ"
    n_view = 1 if local else b.n
    try:
        law = spec.noise_law(b)
        view = P.fold(law, m)
        user_view = P.fold(spec.user_law(b), m) if spec.user_law else view
    except P.PmfTooLarge as e:
        raise CannotAudit(f"the exact law is too large to tabulate ({e})") from None
    if "relax_q" in b.extra:  # S's output is uniform on ℤ_m w.p. q̂ = fpar[2]
        view, user_view = _relaxed(view, b.fpar[2]), _relaxed(user_view, b.fpar[2])
    fpar, ipar = b._arrays()

    def to_y(z):
        return np.rint(np.asarray(z) * g).astype(np.int64) % m

    hi = n_view * g + tau  # the decoding window's top: outputs are tested in its space

    pairs = []
    batched = b._kernel("draw_batched_given")
    zs = [batched(rng, b.code, np.full(draws, k, np.int64), n_view, fpar, ipar) for k in (0, g)]
    pairs.append(_window(view.logp, m, g, hi, 0, g, *zs, "batched", ("x̂ = 0", f"x̂ = g = {g}")))
    work = draws * n_view * 2
    if work > WORK_BUDGET:
        notes.append(f"per-user path skipped: {draws:,} draws × {n_view:,} users × 2 inputs "
                     f"= {work:.3g} user draws > the budget {WORK_BUDGET:.3g}; pass a smaller "
                     f"--batch-size (≤ {WORK_BUDGET // (2 * draws):,}) or --draws")
    else:
        per_user = b._kernel("draw_per_user_given")
        xs = [np.zeros(n_view), np.zeros(n_view)]
        xs[1][0] = 1.0
        zs = [per_user(rng, b.code, x, fpar, ipar, draws) for x in xs]
        ys = [to_y(z) for z in zs]
        pairs.append(_window(user_view.logp, m, g, hi, 0, g, *zs, "per-user",
                             ("x = (0, …, 0)", "x = (1, 0, …, 0)")))
        pairs += fractional_pairs(user_view, m, g, n_view, per_user, b.code, fpar, ipar, draws,
                                   rng, ys[0], to_y)
    if local and b.n > 1:  # the batch aggregate: n-fold sum of the per-user law
        agg = _sum_view(law, b.n, m)
        y = to_y(batched(rng, b.code, np.zeros(draws, np.int64), b.n, fpar, ipar))
        pair = _circle(agg.logp, m, 0, 0, y, y, "batched aggregate", ("x̂ = 0", "x̂ = 0"))
        pair.gof_only = True
        pairs.append(pair)
    return pairs


def _sum_view(law, n, m):
    """The law of the sum of n draws of ``law``, folded mod m.

    Discrete Laplace: NB(n, q) − NB(n, q) in closed form (the batched sampler's
    own construction, checked here against the exact pmf); other laws: repeated
    squaring of windows.
    """
    if isinstance(law, P.DiscreteLaplace):
        from scipy import stats

        q = -math.expm1(law.log_beta)
        mean, sd = n * (1 - q) / q, math.sqrt(n * (1 - q)) / q
        hi = int(mean + 40 * sd) + 64
        k = np.arange(hi + 1)
        nb = stats.nbinom.logpmf(k, n, q)
        a = P.LogPmf(0, nb - np.logaddexp.reduce(nb))
        out = P.convolve(a, P.LogPmf(-hi, a.logp[::-1].copy()))
    else:
        sd = math.sqrt(max(float(getattr(law, "variance", 1.0)), 1.0))
        W = int(40 * sd) + 64
        out, base, k = None, P.window(law, -W, W), n
        while k:
            if k & 1:
                out = base if out is None else P.convolve(out, base)
            k >>= 1
            if k:
                base = P.convolve(base, base)
    folded = np.full(m, -np.inf)
    np.logaddexp.at(folded, out.support % m, out.logp)
    return P.LogPmf(0, folded - np.logaddexp.reduce(folded), out.dropped, out.rel_err, m)


def _laplace_pairs(spec, b, draws, rng, notes, bins=2000, draw=None, scale=None):
    """Laplace on a sum, sums 0 and 1: the engine's own batch_estimate, or ``draw(mu)``
    (an engine's declared release hook) against the declared scale ``b.fpar[0]``."""
    from scipy import stats


    scale = float(b.fpar[0]) if scale is None else scale
    if draw is None:
        sample = protocol_kernel(spec.name, "sample_estimates")
        fpar, ipar = np.array(b.fpar + (0.0,) * (4 - len(b.fpar))), np.zeros(3, np.int64)
        draw = lambda mu: sample(rng, b.code, codes.BERNOULLI, np.array([mu, 0.0, 0.0, 0.0]),  # noqa: E731
                                 1, fpar, ipar, draws)
    z = [draw(mu) for mu in (0.0, 1.0)]
    # bins: equiprobable under input 0, extended to cover input 1's shift
    inner = stats.laplace.ppf(np.linspace(0, 1, bins + 1)[1:-1], 0.0, scale)
    edges = np.concatenate([inner, [inner[-1] + 1.0]])
    probs = []
    for mu in (0.0, 1.0):
        cdf = np.concatenate([[0.0], stats.laplace.cdf(edges, mu, scale), [1.0]])
        probs.append(np.diff(cdf))
    cells = [np.searchsorted(edges, x, side="right") for x in z]
    labels = np.concatenate([[-np.inf], edges])
    return [_Pair("batched", tuple(cells), tuple(probs), len(edges) + 1, labels,
                  ("Σr = 0", "Σr = 1"))]


def kernel_mechanisms():
    """Names of the registered mechanisms whose batch kernels the sampled audit can run."""

    return [m.name for m in mechanisms().values() if m.default_audit() in SAMPLED_FAMILIES]


#: The paths the sampled audit runs, by the family audit (``Mechanism.default_audit``).
SAMPLED_FAMILIES = {
    "secagg": _secagg_pairs,
    "shuffle": lambda spec, b, draws, rng, notes: shuffle_pairs(spec, b, draws, rng, notes,
                                                                _Pair, WORK_BUDGET),
    "laplace-sum": _laplace_pairs,
    "release": lambda spec, b, draws, rng, notes: release_pairs(spec, b, draws, rng, notes,
                                                                _Pair),
}

#: Engines whose private draws all go through the mechanism's batch kernels, and engines
#: with their own Laplace hooks (engine → (kernels.* sampler, plan attribute of the scale)).
MECHANISM_ENGINES = ("elimination", "decision")
_LAPLACE = "samplers.sample_laplace_draws"
HOOK_ENGINES = {
    "episodic": ((_LAPLACE, "noise_scale"),),
    "per-step": (("sequential.sample_releases", "scale"),),
    "svt": tuple((_LAPLACE, a) for a in ("svt_scale", "hist_scale")),
    "per-round": ((_LAPLACE, "noise_scale"), (_LAPLACE, "chunk_scale"),
                  ("sequential.sample_releases", "node_scale")),
}


def records(algo, horizon=10**5):
    """Whether ``algo``'s plan has a recording mode: its ``run_shard`` takes ``rec`` (the
    release primitive's recorder, docs/plugins.md example (f)). False when no plan can be
    built from the declaration's defaults (ε = 0.5)."""
    import inspect

    try:
        prm = algo.resolve({"epsilon": 0.5} if algo.param("epsilon") else {}, horizon)
        run = getattr(algo.plan(prm, 2, horizon), "run_shard", None)
        return run is not None and "rec" in inspect.signature(run).parameters
    except (ConfigError, TypeError, ValueError):
        return False


def sampler_status(algorithm):
    """Why ``bandsim audit --sampled`` cannot sample what ``algorithm`` draws, or None.

    For ``bandsim list`` and the leaderboard: None means the sampled audit runs
    the very kernels a simulation draws with; else the reason ("not auditable").
    """

    algo = get_algorithm(algorithm)
    if not algo.mechanism or not get_mechanism(algo.mechanism).kind.private:
        return "not private"
    if algo.engine in HOOK_ENGINES:
        return None
    if algo.engine not in MECHANISM_ENGINES and records(algo):
        return (f"not sampled: the {algo.engine} engine draws its noise inside its own kernel, "
                "which --sampled cannot draw apart from a run (it certifies declared samplers "
                "only); it records every release through the release primitive, so `bandsim "
                f"audit {algo.name} --whole-run` audits it like a built-in engine (each release "
                "class's law given its true statistic, pooled over runs; the independence of "
                "the releases its structure names; replays on neighbours)")
    if algo.engine not in MECHANISM_ENGINES:
        return (f"not auditable: the {algo.engine} engine draws its noise inline, not through "
                "a declared sampler, and records nothing (its plan's run_shard takes no rec)")
    if algo.mechanism not in kernel_mechanisms():
        return f"not auditable: mechanism {algo.mechanism} has no samplable kernels with a law"
    return None


def sampled_audit(b, algorithm=None, draws=DRAWS, seed=0, pairs=None):
    """Sampled audit of one batch ``b`` (a mechanism's derived batch) on its real kernels.

    Parameters
    ----------
    b : batch object
        As :meth:`bandsim.Mechanism.derive` returns it (SecAgg family, the
        shuffle's binary summation, DP-SE's Laplace), or a hand-altered copy.
    algorithm : str, optional
        Name for the report.
    draws : int
        Draws per path and input (≥ 10⁶ by default).
    seed : int
        Root seed (the audit is deterministic for a fixed seed).

    Returns
    -------
    SampledReport
        ``code`` 0 PASS, 1 FAIL, 2 cannot audit (``reason`` says why).
    """

    t0 = time.perf_counter()
    spec = get_mechanism(b.name)
    name = algorithm or b.name
    params = dict(n=int(b.n), draws=int(draws), seed=int(seed))
    for k in ("epsilon", "g", "tau", "m"):
        if hasattr(b, k):
            params[k] = getattr(b, k)
    rep = SampledReport(name, spec.name, params, {})
    rng = np.random.default_rng(seed)
    try:
        rep.claim = claim_as_dp(spec, b)
        if pairs is not None:  # given by the caller (an engine's own release hook)
            pass
        elif spec.default_audit() in SAMPLED_FAMILIES:
            pairs = SAMPLED_FAMILIES[spec.default_audit()](spec, b, draws, rng, rep.notes)
        else:
            raise CannotAudit(f"mechanism {spec.name} ({spec.family}) has no batch kernels to "
                              "sample (its noise is drawn inside the engine)")
    except CannotAudit as e:
        rep.reason = str(e)
        rep.seconds = time.perf_counter() - t0
        return rep
    for pair in pairs:
        for i in (0, 1):
            if (pair.gof_only and i) or (pair.tested0 and not i):
                continue
            counts = np.bincount(pair.cells[i], minlength=pair.n_cells)
            stat, p, cells = g_test(counts, pair.probs[i])
            if (counts[pair.probs[i] == 0]).any():  # a draw the declared law cannot produce
                stat, p = math.inf, 0.0
            rep.checks.append(Check(pair.path, pair.inputs[i], len(pair.cells[i]), cells,
                                    stat, p))
            if i == 0:  # the noise scale alone, on the x = 0 draws
                stat, p, cells = scale_test(counts, pair.probs[i])
                rep.checks.append(Check(f"{pair.path} (scale)", pair.inputs[i],
                                        len(pair.cells[i]), cells, stat, p))
        if not pair.gof_only:
            lb, est, event, counts = epsilon_lower_bound(*pair.cells, pair.n_cells,
                                                         rep.claim["delta"], labels=pair.labels)
            rep.bounds.append(Bound(pair.path, lb, est, event, counts, len(pair.cells[0]),
                                    len(pair.cells[1])))
    rep.seconds = time.perf_counter() - t0
    return rep


def sampled(algorithm: str, epsilon: float, batch_size: int, draws: int = DRAWS, seed: int = 0,
            **params: Any) -> Any:
    """Sampled audit of one batch of ``algorithm`` (as :func:`bandsim.privacy.audit.audit`)."""

    algo = get_algorithm(algorithm)
    if sampler_status(algo.name) == "not private":
        ok = [a for a in algorithms() if sampler_status(a) != "not private"]
        raise ConfigError("algorithm", algorithm, f"must be one of {', '.join(ok)}")
    n = check_int("batch_size", batch_size, 1, MAX_HORIZON)  # ≤ T users
    draws = check_int("draws", draws, 1000, 10**9)
    horizon = params.pop("horizon", 10**7)
    given = {"epsilon": epsilon, **params}
    prm = algo.resolve({k: v for k, v in given.items() if v is not None and algo.param(k)},
                       horizon)
    spec = get_mechanism(algo.mechanism)
    b = spec.derive(n, prm)
    if sampler_status(algo.name) is not None:  # never sample something other than what runs
        return SampledReport(algo.name, spec.name, dict(n=n, draws=int(draws), seed=int(seed)),
                             {}, reason=sampler_status(algo.name))
    if algo.engine in HOOK_ENGINES:
        return _engine_hook_audit(algo, prm, b, draws, seed, horizon)
    return sampled_audit(b, algo.name, draws, seed)


def _engine_hook_audit(algo, prm, b, draws, seed, horizon):
    """The engine's own Laplace draws (its declared hooks, at the scales its plan hands
    it) on sums 0 and 1, against Lap(scale)."""
    import importlib


    plan = make_plan(algo, prm, 2, horizon)
    rng = np.random.default_rng(seed)
    spec = get_mechanism(algo.mechanism)
    pairs, notes = [], []
    for path, attr in HOOK_ENGINES[algo.engine]:
        if getattr(plan, attr, None) is None:
            continue
        module, name = path.split(".")
        hook = getattr(importlib.import_module(f"bandsim.kernels.{module}"), name)
        scale = float(getattr(plan, attr))
        pair, = _laplace_pairs(spec, b, draws, rng, notes, scale=scale,
                               draw=lambda mu: hook(rng, mu, scale, draws))
        pair.path = f"{algo.engine} engine ({path}, {attr} = {scale:.6g})"
        pairs.append(pair)
    rep = sampled_audit(b, algo.name, draws, seed, pairs=pairs)
    rep.notes.append(f"the {algo.engine} engine's own Laplace draws vs Lap(scale) at its plan's")
    return rep


__all__ = ["ALPHA", "BETA", "Bound", "CannotAudit", "Check", "DRAWS", "SampledReport",
           "claim_as_dp", "epsilon_lower_bound", "g_test", "kernel_mechanisms", "sampled",
           "sampled_audit", "sampler_status"]
