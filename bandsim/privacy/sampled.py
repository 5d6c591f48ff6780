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

import numpy as np

from ..errors import ConfigError, check_int
from ..registry import get_algorithm, get_mechanism, mechanisms
from ..results import json_safe
from . import pmf as P

#: Draws per path and neighbouring input.
DRAWS = 10**6
#: Significance level of every goodness-of-fit test.
ALPHA = 1e-6
#: 1 − confidence of the ε lower bound.
BETA = 1e-6
#: δ₀ at which RDP and zCDP claims are converted to (ε, δ₀)-DP.
DELTA0 = 1e-6
#: Most histogram cells (the modulus m of a SecAgg view).
MAX_CELLS = 1 << 22
#: Most elementary draws (users' noise draws, coins) one path may take.
WORK_BUDGET = 3 * 10**8
#: Smallest expected count of a cell of its own (smaller ones are pooled).
MIN_EXPECTED = 5.0


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


# --- statistics ----------------------------------------------------------------

def g_test(counts, probs, outside=0):
    """G-test of observed ``counts`` (int (C,)) against ``probs`` (float (C,)).

    ``outside`` draws fell outside the C cells (their expected mass is
    1 − Σ probs). Cells of expected count < :data:`MIN_EXPECTED` are pooled
    into one tail cell (a partition fixed by the law alone, before the data).

    Returns
    -------
    statistic, p_value, cells
    """
    from scipy import stats

    counts = np.asarray(counts, np.float64)
    n = counts.sum() + outside
    exp = n * np.asarray(probs, np.float64)
    big = exp >= MIN_EXPECTED
    obs = np.append(counts[big], counts[~big].sum() + outside)
    ex = np.append(exp[big], max(n - exp[big].sum(), 0.0))
    if ex[-1] < MIN_EXPECTED and len(ex) > 1:  # the tail cell joins the largest cell
        j = int(np.argmax(ex[:-1]))
        obs[j] += obs[-1]
        ex[j] += ex[-1]
        obs, ex = obs[:-1], ex[:-1]
    if len(ex) < 2:
        return 0.0, 1.0, len(ex)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(obs > 0, obs * np.log(obs / ex), 0.0)
    g = float(2 * terms.sum())
    if not math.isfinite(g):
        return math.inf, 0.0, len(ex)
    return g, float(stats.chi2.sf(g, len(ex) - 1)), len(ex)


def _cp_lower(k, n, a):
    from scipy import stats

    k = np.asarray(k, np.float64)
    with np.errstate(invalid="ignore"):
        out = stats.beta.ppf(a, k, n - k + 1)
    return np.where(k > 0, out, 0.0)


def _cp_upper(k, n, a):
    from scipy import stats

    k = np.asarray(k, np.float64)
    with np.errstate(invalid="ignore"):
        out = stats.beta.ppf(1 - a, k + 1, n - k)
    return np.where(k < n, out, 1.0)


def _event_bounds(c0, c1, n0, n1, delta, a):
    """ε lower bounds of events with counts c0 (input 0) and c1 (input 1), both directions."""
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log(np.maximum(_cp_lower(c1, n1, a) - delta, 0.0)) - np.log(_cp_upper(c0, n0, a))
        down = np.log(np.maximum(_cp_lower(c0, n0, a) - delta, 0.0)) - np.log(_cp_upper(c1, n1, a))
    return np.maximum(np.nan_to_num(up, nan=-np.inf), np.nan_to_num(down, nan=-np.inf))


def epsilon_lower_bound(cells0, cells1, n_cells, delta=0.0, beta=BETA, labels=None):
    """Empirical lower bound on ε from draws on an ordered line of cells.

    The draws of each input are split in halves; the event (a threshold set
    {cell ≥ t} or {cell ≤ t}) with the best bound on the first halves is
    bounded on the second halves by Clopper–Pearson intervals, each at
    confidence 1 − β/2 (so the bound holds with probability ≥ 1 − β).

    Parameters
    ----------
    cells0, cells1 : int64 (N,)
        Cell indices in [0, n_cells) of the draws under the two inputs.
    delta : float
        δ of an (ε, δ) claim (subtracted from the larger probability).

    Returns
    -------
    (epsilon_lb, estimate, event, counts)
    """
    h0, h1 = len(cells0) // 2, len(cells1) // 2
    sel0 = np.bincount(cells0[:h0], minlength=n_cells)
    sel1 = np.bincount(cells1[:h1], minlength=n_cells)
    ev0 = np.bincount(cells0[h0:], minlength=n_cells)
    ev1 = np.bincount(cells1[h1:], minlength=n_cells)
    m0, m1 = len(cells0) - h0, len(cells1) - h1
    a = beta / 2
    # events {cell ≥ t} (suffix sums) and {cell ≤ t} (prefix sums)
    cand = []
    for name, f in (("≥", lambda h: np.cumsum(h[::-1])[::-1]), ("≤", np.cumsum)):
        s0, s1 = f(sel0), f(sel1)
        cand.append((name, s0, s1, f(ev0), f(ev1)))
    best, pick = -np.inf, None
    for name, s0, s1, e0, e1 in cand:
        score = _event_bounds(s0, s1, h0, h1, delta, a)
        j = int(np.argmax(score))
        if score[j] > best:
            best, pick = score[j], (name, j, e0[j], e1[j])
    name, j, k0, k1 = pick
    lb = float(_event_bounds(np.array([k0]), np.array([k1]), m0, m1, delta, a)[0])
    with np.errstate(divide="ignore"):
        est = abs(math.log(max(k1, 0.5) / m1) - math.log(max(k0, 0.5) / m0))
    t = labels[j] if labels is not None else j
    return lb, est, f"y {name} {t}", (int(k0), int(k1))


# --- the claim as (ε, δ) ---------------------------------------------------------

def claim_as_dp(spec, b, delta0=DELTA0):
    """The batch's claim as (ε, δ)-DP of the audited view (dict: epsilon, delta, how)."""
    priv = b.privacy
    kind = spec.kind
    if kind in ("pure", "laplace"):
        eps = priv.get("epsilon_secagg", priv["epsilon"])
        return dict(epsilon=eps, delta=0.0, how="ε-DP claim" +
                    (" of the modular sum (ε' = ε/2)" if "epsilon_secagg" in priv else ""))
    if kind == "approx":
        return dict(epsilon=priv["epsilon"], delta=priv["delta"], how="(ε, δ)-DP claim")
    if kind == "rdp":
        vals = [spec.claim(b, a)[0] + math.log(1 / delta0) / (a - 1) for a in range(2, 65)]
        return dict(epsilon=min(vals), delta=delta0,
                    how="RDP claim ε̂(α) converted: min_α ε̂(α) + log(1/δ₀)/(α − 1)")
    if kind == "zcdp":
        rho = priv["rho"]
        return dict(epsilon=rho + 2 * math.sqrt(rho * math.log(1 / delta0)), delta=delta0,
                    how="ρ-zCDP claim converted: ρ + 2 sqrt(ρ log(1/δ₀))")
    raise CannotAudit(f"privacy kind {kind!r} has no (ε, δ) form")


# --- the paths of each family ----------------------------------------------------

@dataclass
class _Pair:
    """One path: the draws under both inputs as cells of an ordered line, and the law."""

    path: str
    cells: tuple      # (int64 (N,), int64 (N,)), indices in [0, n_cells)
    probs: tuple      # (float64 (n_cells,), float64 (n_cells,)) expected
    n_cells: int
    labels: np.ndarray = None
    inputs: tuple = ("0", "1")
    gof_only: bool = False


def _circle(view_logp, m, k0, k1, y0, y1, path, inputs):
    """Modular draws ŷ as cells of the circle centred on input 0's noise mode."""
    h = m // 2
    c = int(np.argmax(view_logp))  # the noise mode (0 for symmetric laws)
    base = (c + k0 - h) % m

    def cells(y):
        return (np.asarray(y, np.int64) - base) % m

    p = np.exp(view_logp - view_logp.max())
    p /= p.sum()
    probs = tuple(np.roll(p, (k - base) % m) for k in (k0, k1))
    labels = np.arange(m, dtype=np.int64) - h
    return _Pair(path, (cells(y0), cells(y1)), probs, m, labels, inputs)


def _secagg_pairs(spec, b, draws, rng, notes):
    from .audit import _relaxed

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

    pairs = []
    batched = b._kernel("draw_batched_given")
    ys = [to_y(batched(rng, b.code, np.full(draws, k, np.int64), n_view, fpar, ipar))
          for k in (0, g)]
    pairs.append(_circle(view.logp, m, 0, g, *ys, "batched", ("x̂ = 0", f"x̂ = g = {g}")))
    work = draws * n_view * 2
    if work > WORK_BUDGET:
        notes.append(f"per-user path skipped: {draws:,} draws × {n_view:,} users × 2 inputs "
                     f"= {work:.3g} user draws > the budget {WORK_BUDGET:.3g}; pass a smaller "
                     f"--batch-size (≤ {WORK_BUDGET // (2 * draws):,}) or --draws")
    else:
        per_user = b._kernel("draw_per_user_given")
        xs = [np.zeros(n_view), np.zeros(n_view)]
        xs[1][0] = 1.0
        ys = [to_y(per_user(rng, b.code, x, fpar, ipar, draws)) for x in xs]
        pairs.append(_circle(user_view.logp, m, 0, g, *ys, "per-user",
                             ("x = (0, …, 0)", "x = (1, 0, …, 0)")))
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


def _shuffle_pairs(spec, b, draws, rng, notes):
    import copy

    from ..kernels.binary_summation import noise_mean, sample_batched, sample_per_user

    mech = copy.copy(b.extra["mech"])
    mech.tau = float(b.fpar[0])  # the parameter the kernels read
    n = b.n
    trials, prob = mech.noise_law(n)
    law = P.Binomial(trials, prob)
    sd = math.sqrt(max(trials * prob * (1 - prob), 1.0))
    lo, hi = max(0, law.center - int(40 * sd) - 2), min(trials, law.center + int(40 * sd) + 2)
    view = P.window(law, lo, hi)
    cells = hi - lo + 2  # one more: the input with one more 1
    probs = []
    for k in (0, 1):
        p = np.zeros(cells)
        p[k:k + len(view.logp)] = np.exp(view.logp)
        probs.append(p / p.sum())
    mean = noise_mean(n, mech.tau)

    def to_cells(z):
        ones = np.rint(np.asarray(z) + mean).astype(np.int64)
        return np.clip(ones - lo, 0, cells - 1)

    labels = np.arange(lo, lo + cells)
    out = [_Pair("batched", tuple(to_cells(sample_batched(rng, k, n, mech.tau, draws))
                                  for k in (0, 1)), tuple(probs), cells, labels,
                 ("Σx = 0", "Σx = 1"))]
    coins = mech.fair_bits(n) or 1
    work = draws * n * coins * 2
    if work > WORK_BUDGET:
        notes.append(f"per-user path skipped: {draws:,} draws × {n:,} users × {coins:,} coins "
                     f"× 2 inputs = {work:.3g} > the budget {WORK_BUDGET:.3g}")
    else:
        xs = [np.zeros(n, np.int64), np.zeros(n, np.int64)]
        xs[1][0] = 1
        out.append(_Pair("per-user", tuple(to_cells(sample_per_user(rng, x, mech.tau, draws))
                                           for x in xs), tuple(probs), cells, labels,
                         ("x = (0, …, 0)", "x = (1, 0, …, 0)")))
    return out


def _laplace_pairs(spec, b, draws, rng, notes, bins=2000):
    """DP-SE's Laplace on an epoch sum: the engine's own batch_estimate, sums 0 and 1."""
    from scipy import stats

    from ..engines import protocol_kernel
    from ..kernels import codes

    scale = float(b.fpar[0])
    sample = protocol_kernel(spec.name, "sample_estimates")
    fpar, ipar = np.array(b.fpar + (0.0,) * (4 - len(b.fpar))), np.zeros(3, np.int64)
    z = [sample(rng, b.code, codes.BERNOULLI, np.array([mu, 0.0, 0.0, 0.0]), 1, fpar, ipar,
                draws) for mu in (0.0, 1.0)]
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
    return [m.name for m in mechanisms().values()
            if (m.family == "secagg" and m.noise_law is not None) or m.family == "shuffle"
            or (m.kind == "laplace" and m.family == "sum")]


def sampled_audit(b, algorithm=None, draws=DRAWS, seed=0):
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
        if spec.family == "secagg" and spec.noise_law is not None:
            pairs = _secagg_pairs(spec, b, draws, rng, rep.notes)
        elif spec.family == "shuffle":
            pairs = _shuffle_pairs(spec, b, draws, rng, rep.notes)
        elif spec.kind == "laplace" and spec.family == "sum":
            pairs = _laplace_pairs(spec, b, draws, rng, rep.notes)
        else:
            raise CannotAudit(f"mechanism {spec.name} ({spec.family}) has no batch kernels to "
                              "sample (its noise is drawn inside the engine)")
    except CannotAudit as e:
        rep.reason = str(e)
        rep.seconds = time.perf_counter() - t0
        return rep
    for pair in pairs:
        for i in (0, 1):
            if pair.gof_only and i:
                continue
            counts = np.bincount(pair.cells[i], minlength=pair.n_cells)
            stat, p, cells = g_test(counts, pair.probs[i])
            rep.checks.append(Check(pair.path, pair.inputs[i], len(pair.cells[i]), cells,
                                    stat, p))
        if not pair.gof_only:
            lb, est, event, counts = epsilon_lower_bound(*pair.cells, pair.n_cells,
                                                         rep.claim["delta"], labels=pair.labels)
            rep.bounds.append(Bound(pair.path, lb, est, event, counts, len(pair.cells[0])))
    rep.seconds = time.perf_counter() - t0
    return rep


def sampled(algorithm, epsilon, batch_size, draws=DRAWS, seed=0, **params):
    """Sampled audit of one batch of ``algorithm`` (as :func:`bandsim.privacy.audit.audit`)."""
    from .audit import auditable

    algo = get_algorithm(algorithm)
    if algo.name not in auditable():
        raise ConfigError("algorithm", algorithm, f"must be one of {', '.join(auditable())}")
    n = check_int("batch_size", batch_size, 1)
    draws = check_int("draws", draws, 1000, 10**9)
    horizon = params.pop("horizon", 10**7)
    given = {"epsilon": epsilon, **params}
    prm = algo.resolve({k: v for k, v in given.items() if v is not None and algo.param(k)},
                       horizon)
    spec = get_mechanism(algo.mechanism)
    rep = sampled_audit(spec.derive(n, prm), algo.name, draws, seed)
    if algo.engine != "elimination" and not rep.reason:
        rep.notes.append(f"{algo.name} runs on the {algo.engine} engine, which draws the "
                         f"mechanism's sampler ({', '.join(spec.samplers)}) inline: the paths "
                         f"sampled here are the {spec.name} mechanism's batch kernels")
    return rep


__all__ = ["ALPHA", "BETA", "Bound", "CannotAudit", "Check", "DRAWS", "SampledReport",
           "claim_as_dp", "epsilon_lower_bound", "g_test", "kernel_mechanisms", "sampled",
           "sampled_audit"]
