"""``simulate_bai``: validate, plan and run a fixed-confidence identification study.

Randomness as in :func:`bandsim.simulate`: the root seed feeds a
``numpy.random.SeedSequence``; its second child is split into one Generator
per fixed shard of runs; shards run on threads and write only their own rows,
so results are bit-identical for any number of threads.
"""
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError, check_int
from ..instances import MAX_ARMS, make_instance
from ..params import MAX_HORIZON
from .. import registry
from ..registry import Algorithm
from ..runner import versions
from . import bounds, declarations
from .result import BAIResult


def simulate_bai(algorithm: str, *, instance: str | None = None, arms: int | None = None,
                 means: Sequence[float] | None = None, budget: int = 10**8, runs: int = 1000,
                 seed: int | None = None, threads: int | None = None,
                 **params: Any) -> BAIResult:
    """Simulate ``runs`` independent fixed-confidence identification runs.

    Parameters
    ----------
    algorithm : str or bandsim.registry.Algorithm
        A name of :data:`bandsim.bai.declarations.ALGORITHMS` (``dp-se-bai``,
        ``se-bai``, ``adap-tt``, ``adap-tt-star``, ``tt-ucb``), or a declaration
        such as a plug-in :class:`bandsim.bai.toptwo.TopTwoBAI`.
    instance : str, optional
        ``C1``–``C4`` (Bernoulli); or give ``means``.
    arms : int, optional
        K (with a named instance), 2 ≤ K ≤ MAX_ARMS.
    means : sequence of float, optional
        Explicit Bernoulli means in [0, 1] with a unique best arm.
    budget : int
        T_max, pulls after which a run is censored (not stopped), ≤ 10¹⁰.
    runs : int
        Independent runs, ≥ 1.
    seed : int, optional
        Root seed ≥ 0 (drawn and recorded when omitted).
    threads : int, optional
        Worker threads (results do not depend on it).
    **params
        ``epsilon`` (ε of ε-global DP, for private algorithms), ``delta`` (risk δ).

    Returns
    -------
    BAIResult

    Raises
    ------
    ConfigError
        Any invalid input (one line naming the field), before any work.
    """
    algo = algorithm if isinstance(algorithm, Algorithm) else declarations.get(algorithm)
    runs = check_int("runs", runs, 1, 10**8)
    budget = check_int("budget", budget, 2, MAX_HORIZON)
    seed = secrets.randbits(63) if seed is None else check_int("seed", seed, 0)
    threads = os.cpu_count() if threads is None else check_int("threads", threads, 1, 1024)
    extra = set(params) - {p.name for p in algo.params}
    if extra:
        name = sorted(extra)[0]
        raise ConfigError(name, params[name], f"is not a parameter of {algo.name} "
                                              f"(it takes {', '.join(p.name for p in algo.params)})")
    resolved = algo.resolve({k: v for k, v in params.items() if v is not None}, budget)
    if means is not None and instance is not None:
        raise ConfigError("means", list(means), "give either explicit means or an instance")
    if arms is not None:
        arms = check_int("arms", arms, 2, MAX_ARMS)
    if instance is None and means is None:
        raise ConfigError("instance", None, "give one of C1, C2, C3, C4 or explicit means")
    if instance is not None and instance not in ("C1", "C2", "C3", "C4"):
        raise ConfigError("instance", instance, "must be one of C1, C2, C3, C4 (or give means)")
    inst = make_instance(instance, arms, 1, "bernoulli", means=means)
    mu = np.asarray(inst.location, dtype=np.float64).ravel()
    bounds.t_star_tv(mu)  # a unique best arm (ConfigError otherwise)
    if budget < mu.size:
        raise ConfigError("budget", budget, f"must be at least the number of arms ({mu.size})")
    lb = bounds.lower_bound(mu, resolved.get("epsilon", float("inf")), resolved["delta"]) \
        if resolved["delta"] < 1 / 3 else {}
    plan = algo.plan(resolved, mu.size, budget)
    config = {"algorithm": algo.name, "instance": inst.name, "arms": int(mu.size),
              "means": mu.tolist(), "budget": budget, "runs": runs, "seed": seed,
              "shard_runs": declarations.SHARD_RUNS, "params": resolved, "trust": algo.trust,
              "reference": algo.source, "stages": plan.stages[:64], "lower_bound": lb,
              "lower_bound_reference": "Azize, PhD thesis (2024), Thm 4.24 / Cor. 4.25, "
                                       "Prop. 4.26"}
    if not registry.is_builtin(algo.name):  # a plug-in: its code's provenance keys the store
        config["plugins"] = registry.plugin_provenance(algo)
    rpar = np.ascontiguousarray(np.broadcast_to(mu[None, :, None], (runs, mu.size, 1)))
    tau = np.zeros(runs, np.int64)
    rec = np.zeros(runs, np.int64)
    stopped = np.zeros(runs, np.bool_)
    shard = declarations.SHARD_RUNS
    n_shards = -(-runs // shard)
    rngs = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)[1]
            .spawn(n_shards)]

    def work(i):
        lo, hi = i * shard, min(runs, (i + 1) * shard)
        plan.run_shard(rngs[i], 0, rpar[lo:hi], tau[lo:hi], rec[lo:hi], stopped[lo:hi])

    if threads == 1 or n_shards == 1:
        for i in range(n_shards):
            work(i)
    else:
        with ThreadPoolExecutor(max_workers=min(threads, n_shards)) as pool:
            list(pool.map(work, range(n_shards)))
    correct = stopped & (rec == int(mu.argmax()))
    return BAIResult(tau=tau, recommended=rec, correct=correct, stopped=stopped, config=config,
                     versions=versions())
