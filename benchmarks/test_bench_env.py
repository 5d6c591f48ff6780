"""bandsim.env: pulling one batch for 10⁴ runs, from Python and from numba, vs the engines.

The work: every one of R = 10⁴ runs pulls one arm for n = 1,000 users, draws
the batch sum (Bernoulli) and releases it + Lap(1/ε), keeping pulls and
pseudo-regret. Inside the built-in elimination engine that work is, per run,
one :func:`bandsim.kernels.protocols.batch_estimate` call and the regret
bookkeeping (``engine``, measured as a numba loop over the runs, the engine's
inner loop). ``python`` is ``VecEnv.pull`` called from a Python loop;
``numba`` is a user's ``@njit`` loop calling ``bandsim.backend.env_step``
(the kernel ``VecEnv.pull`` runs). Targets: python / engine ≤ 3, numba /
engine ≤ 1.2 (amortised per run). Figures go to ``extra_info`` and stdout.
"""
import time

import numba
import numpy as np

import bandsim.env
from bandsim import backend as B
from bandsim.kernels.codes import LAPLACE

R, N, STEPS = 10_000, 1000, 20


@numba.njit
def engine_like(rng, rpar, gaps, arms, n, fpar, ipar, t, pulls, regret, out, steps):
    for _ in range(steps):
        for r in range(arms.shape[0]):
            a = arms[r]
            out[r] = B.batch_estimate(rng, LAPLACE, B.BERNOULLI, rpar[r, a], n, fpar, ipar,
                                      None, r, t[r], a)
            t[r] += n
            pulls[r, a] += n
            regret[r] += n * gaps[r, a]


@numba.njit
def user_numba(rng, rpar, gaps, arms, n, fpar, ipar, hooks, t, pulls, regret, out, cps, ci,
               curve, steps):
    for _ in range(steps):
        B.env_step(rng, B.BERNOULLI, rpar, gaps, arms, n, LAPLACE, fpar, ipar, hooks, None, t,
                   pulls, regret, out, cps, ci, curve)


def _best(fns, repeat=7):
    """The least time of each function over ``repeat`` interleaved rounds (a shared machine:
    alternating keeps a slow spell from landing on one of them only)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def test_env_pull_costs_vs_the_engine(benchmark):
    env = bandsim.env.make(means=[0.9, 0.8, 0.7, 0.6, 0.5], runs=R, seed=1)
    arms = (np.arange(R) % 5).astype(np.int64)
    fpar, ipar = np.array([2.0, 0, 0, 0]), np.zeros(3, np.int64)
    t, pulls, regret, out = (np.zeros(R, np.int64), np.zeros((R, 5), np.int64), np.zeros(R),
                             np.zeros(R))
    hooks = None  # a built-in mechanism: the engines pass no hooks either
    cps, ci, curve = np.zeros(0, np.int64), np.zeros(R, np.int64), np.zeros((R, 0))
    rng = np.random.default_rng(2)

    def python():
        for _ in range(STEPS):
            env.pull(arms, N, mechanism="laplace", epsilon=0.5)

    def engine():
        engine_like(rng, env.rpar, env.gaps, arms, N, fpar, ipar, t, pulls, regret, out, STEPS)

    def numba_loop():
        user_numba(rng, env.rpar, env.gaps, arms, N, fpar, ipar, hooks, t, pulls, regret, out,
                   cps, ci, curve, STEPS)

    for f in (python, engine, numba_loop):
        f()  # compile / load caches
    per = R * STEPS
    e, n, p = (x / per for x in _best([engine, numba_loop, python]))
    benchmark.pedantic(python, rounds=3, iterations=1)
    benchmark.extra_info.update(engine_ns=e * 1e9, python_ns=p * 1e9, numba_ns=n * 1e9,
                                python_ratio=p / e, numba_ratio=n / e)
    print(f"\nper run-batch: engine {e * 1e9:.0f} ns, python {p * 1e9:.0f} ns "
          f"({p / e:.2f}x), numba {n * 1e9:.0f} ns ({n / e:.2f}x)")
