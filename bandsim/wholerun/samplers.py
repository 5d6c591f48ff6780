"""Untrusted samplers in the whole-run audit: the statistical audit at the recorded batch sizes.

The four deterministic checks of :mod:`bandsim.wholerun.checks` take the law
of a ``batch`` release on trust: a batch of a built-in mechanism is what its
exact audit certifies, drawn by kernels the sampled audit and the test
suite check. A plug-in mechanism's sampler — its ``release``, ``sum_noise``
or ``total_noise`` hook — is code bandsim has never read. The whole run
therefore also runs the statistical sampled audit
(:func:`bandsim.privacy.sampled.sampled_audit`: a G-test of the hook's draws
against the declared law and a Clopper–Pearson lower bound on ε) on the
batches the recorded run actually released: one audit per distinct batch
size n among its ``batch`` releases (at most :data:`MAX_SIZES`: the
smallest, the largest and evenly spaced ones between).

References
----------
Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential
Privacy" (CCS 2018); Kong et al., "DP-Auditorium: a Large-Scale Library for
Auditing Differential Privacy" (IEEE S&P 2024).
"""
import numpy as np

from ..kernels import codes
from ..kernels import record as R
from ..privacy.sampled import sampled_audit
from ..registry import get_mechanism, is_builtin

#: Most distinct batch sizes sampled per audit.
MAX_SIZES = 3
#: Largest batch size sampled (a per-user path draws n users' noise per output).
MAX_N = 64
#: Draws per path and input of each sampled audit (the sampled audit's own default is
#: 10⁶; a whole run samples up to :data:`MAX_SIZES` batches), at most :data:`WORK` / n.
DRAWS = 200_000
#: Budget n × draws per batch size (about a second for a SecAgg plug-in at n = 64).
WORK = 3_200_000


def untrusted(algo):
    """True when ``algo``'s mechanism is a plug-in's (its samplers are not bandsim's)."""
    return bool(algo.mechanism) and not is_builtin(algo.mechanism, "mechanism")


def batch_sizes(run, cap=MAX_SIZES, max_n=MAX_N):
    """Distinct n ≤ ``max_n`` of the run's ``batch`` releases (at most ``cap``: the
    smallest, the largest and evenly spaced ones between), each with the index of its
    first release (dict n → release index, ascending n)."""
    rel = run.rel
    idx = np.nonzero(rel[:, R.REL_LAW] == codes.LAW_BATCH)[0]
    first = {}
    for i in idx:
        first.setdefault(int(rel[i, R.REL_N]), int(i))
    sizes = sorted(n for n in first if 1 <= n <= max_n)
    if len(sizes) > cap:
        pick = np.unique(np.linspace(0, len(sizes) - 1, cap).round().astype(int))
        sizes = [sizes[j] for j in pick]
    return {n: first[n] for n in sizes}


def audit_samplers(algo, params, run, label, seed=0, draws=DRAWS):
    """The sampled audit of an untrusted sampler at the run's recorded batch sizes.

    Parameters
    ----------
    algo : bandsim.Algorithm
    params : dict
        Resolved parameters (the batches are derived from them as the plan does).
    run : bandsim.wholerun.driver.Run
        The recorded reference run.
    label : callable
        ``label(run, i)``: the failure lines' name of release ``i``.
    seed : int
        Root seed of the sampled audits.
    draws : int
        Draws per path and input (at most :data:`WORK` / n).

    Returns
    -------
    failures : list of str
        One line per batch size whose sampled audit FAILed (naming its first
        release and the check ``(f) sampler``).
    unaudited : list of str
        One line per batch size it could not sample (why).
    sizes : list of int
        The batch sizes sampled.
    skipped : list of int
        Recorded batch sizes above :data:`MAX_N`, not sampled.
    """
    spec = get_mechanism(algo.mechanism)
    failures, unaudited = [], []
    sizes = batch_sizes(run)
    recorded = set(run.rel[run.rel[:, R.REL_LAW] == codes.LAW_BATCH, R.REL_N].tolist())
    skipped = sorted(int(n) for n in recorded if n > MAX_N)
    for n, i in sizes.items():
        rep = sampled_audit(spec.derive(n, params), algo.name, draws=min(draws, WORK // n),
                            seed=seed)
        if rep.code == 1:
            failures.append(f"(f) sampler: {label(run, i)}, the plug-in mechanism "
                            f"{spec.name}'s sampler at its recorded batch size — {rep.verdict()}")
        elif rep.code == 2:
            unaudited.append(f"(f) sampler: {label(run, i)} — {rep.verdict()}")
    return failures, unaudited, list(sizes), skipped


__all__ = ["DRAWS", "MAX_N", "MAX_SIZES", "WORK", "audit_samplers", "batch_sizes", "untrusted"]
