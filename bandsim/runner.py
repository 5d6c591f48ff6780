"""``simulate``: resolve a configuration, plan it, run it in shards, collect a Result.

Randomness (DESIGN.md rule 5): the root seed feeds a
``numpy.random.SeedSequence``; its first child draws random instances, its
second is split into one child per fixed shard of ``SHARD_RUNS`` runs, and
each shard gets its own ``numpy.random.Generator``. Shards run on a pool of
Python threads (the kernels release the GIL); each shard writes only its own
rows, so results are bit-identical for any number of threads.
"""
import os
import secrets
from typing import Any, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import confidence, registry, resources
from ._version import __version__
from .datasets import load_instance
from .errors import ConfigError, check_int, check_numba_environment
from .instances import (GAUSSIAN_NOTE, MAX_ARMS, NAMED, Instance, berry_esseen_bound,
                        make_instance)
from .kernels._jit import SOURCE_DIGEST
from .kernels.rewards import GAUSSIAN_EXACT_MAX_N
from .kernels.samplers import SAMPLERS
from .kernels.shard import make_shard
from .config import RunConfig
from .params import MAX_HORIZON
from .plancache import make_plan, memo, plan_key
from .privacy.results import result_privacy
from .results import Result
from .wholerun.cache import result_verdict, results_audited

#: Runs per shard (and per Generator) unless the plan sets ``shard_runs``
#: (per-step engines use smaller shards, so progress is reported every few
#: runs). Part of the configuration: results depend on it, never on the
#: number of threads.
SHARD_RUNS = 64
#: Recorded in the configuration when a binary-reward algorithm runs on [0, 1] rewards.
BINARIZATION_NOTE = (
    "each [0,1] reward x is binarized by its user into one Bernoulli(x) bit (unbiased); "
    "the sum of n binarized rewards is exactly Binomial(n, E[X]), drawn in one step"
)


def default_checkpoints(horizon, n=128):
    """About ``n`` checkpoints: half log-spaced from 1, half evenly spaced, last = T.

    Parameters
    ----------
    horizon : int
        T.
    n : int
        Checkpoints asked for; duplicates among the small log-spaced times
        are merged, so a few fewer remain (122–125 of 128 for large T).

    Returns
    -------
    int64 (C,)
    """
    half = n // 2
    geo = np.geomspace(1, horizon, half)
    lin = np.linspace(horizon / half, horizon, half)
    c = np.unique(np.round(np.concatenate([geo, lin])).astype(np.int64))
    c = c[(c >= 1) & (c <= horizon)]
    if c[-1] != horizon:
        c = np.append(c, horizon)
    return c


def resolve_checkpoints(checkpoints, horizon):
    """Validate user checkpoints: increasing integers in [1, T]; T is appended.

    Parameters
    ----------
    checkpoints : None, int or sequence of int
        None: :func:`default_checkpoints`; an int: that many default
        checkpoints; a sequence: explicit times.
    horizon : int

    Returns
    -------
    int64 (C,)

    Raises
    ------
    ConfigError
        Times outside [1, T] or not integers; a count outside [2, 100,000].
    """
    if checkpoints is None:
        return default_checkpoints(horizon)
    if np.isscalar(checkpoints):
        return default_checkpoints(horizon, check_int("checkpoints", checkpoints, 2, 100_000))
    c = np.asarray(checkpoints, dtype=np.float64).ravel()
    if c.size == 0 or np.any(c != np.round(c)) or np.any(c < 1) or np.any(c > horizon):
        raise ConfigError("checkpoints", list(checkpoints)[:5],
                          f"must be integers in [1, horizon={horizon}]")
    c = np.unique(c.astype(np.int64))
    if c[-1] != horizon:
        c = np.append(c, horizon)
    return c


def versions():
    """Versions that shape the numbers: bandsim, numpy, numba, the kernel sources' digest.

    Also the sampler implementations (:data:`bandsim.kernels.samplers.SAMPLERS`).

    Returns
    -------
    dict
    """
    import numba

    return {"bandsim": __version__, "numpy": np.__version__, "numba": numba.__version__,
            "kernels_source": SOURCE_DIGEST, "samplers": dict(SAMPLERS)}


#: Declared sampler names that are another's implementation (kernels/samplers.py).
SAMPLER_ALIASES = {"geometric_failures": "geometric"}


def sampler_provenance(algo, rewards):
    """``config["samplers"]``: the samplers a simulation draws with, by name and implementation.

    The mechanism's declared samplers (``Mechanism.samplers``) and the reward
    model's, each resolved to its implementation in
    :data:`bandsim.kernels.samplers.SAMPLERS` where it names one.

    Parameters
    ----------
    algo : bandsim.Algorithm
    rewards : str
        Reward model of the instance.

    Returns
    -------
    dict
        ``mechanism``, ``declared``, ``rewards``, ``implementations``.
    """
    declared = list(registry.get_mechanism(algo.mechanism).samplers) if algo.mechanism else []
    reward = {"bernoulli": ["binomial (batch sums)", "uniform (single rewards)"],
              "gaussian": ["normal", "binomial (binarized batch sums)"],
              "categorical": ["binomial (batch sums)", "uniform (single rewards)"]}
    names = declared + reward.get(rewards, [])
    impl = {}
    for text in names:
        key = text.split()[0].removeprefix("Generator.").removeprefix("standard_")
        key = SAMPLER_ALIASES.get(key, key)
        if key in SAMPLERS:
            impl[key] = SAMPLERS[key]
    return {"mechanism": algo.mechanism, "declared": declared,
            "rewards": reward.get(rewards, []), "implementations": impl}


def simulate(algorithm: str, *, instance: Any = None, arms: int | None = None,
             horizon: int | None = None, runs: int = 1000, seed: int | None = None,
             rewards: str = "bernoulli", sigma: float = 0.1,
             means: Sequence[float] | None = None, checkpoints: Any = None,
             threads: int | None = None, instance_file: str | os.PathLike | None = None,
             memory: Any = None, progress: Any = None, **params: Any) -> Result:
    """Simulate ``runs`` independent runs of a bandit algorithm.

    Parameters
    ----------
    algorithm : str
        Canonical name (``bandsim list``), e.g. ``"dp-se"``.
    instance : str or Instance, optional
        ``C1``–``C4``, ``easy``, ``hard`` (see :mod:`bandsim.instances`), or a
        resolved :class:`~bandsim.instances.Instance` (e.g. from
        :func:`bandsim.datasets.load_instance`). One of ``instance``,
        ``means`` or ``instance_file`` is required.
    arms : int, optional
        K, 2 ≤ K ≤ 10,000; required with a named instance.
    horizon : int
        T, total pulls per run, K ≤ T ≤ 10¹⁰ (floats such as ``5e7`` are
        accepted when integral). Required.
    runs : int, default 1000
        Independent runs, ≥ 1.
    seed : int, optional
        Root seed ≥ 0; drawn from the OS and recorded in ``config["seed"]``
        when omitted.
    rewards : {"bernoulli", "gaussian"}, default "bernoulli"
        Reward model of a named instance or explicit means (Gaussian rewards
        are clipped to [0, 1]).
    sigma : float, default 0.1
        σ of clipped Gaussian rewards.
    means : sequence of float, optional
        Explicit arm means in [0, 1] (instead of ``instance``).
    checkpoints : int or sequence of int, optional
        Number of default checkpoints (default 128: half log-spaced, half
        evenly spaced; duplicates among the small times are merged, so
        about 122–125 remain), or explicit times in [1, T]; T is always the last.
    threads : int, optional
        Worker threads (default: the CPU count). Results do not depend on it.
    instance_file : str or Path, optional
        An instance file built from data (``bandsim instances build``); its
        path, SHA-256 and provenance are recorded in ``config["instance_file"]``.
    memory : int or str, optional
        Memory budget for this call (bytes, or ``"8G"``, ``"500M"``);
        default a third of the available memory or ``BANDSIM_MEMORY``
        (:mod:`bandsim.resources`).
    progress : callable (runs_done: int) -> None, optional
        Called after every finished shard.
    **params
        Algorithm parameters: ``epsilon`` (ε per batch/epoch), ``beta``,
        ``p``, ``growth``, … as listed by ``bandsim list`` with their defaults;
        ``confidence`` sets the algorithm's confidence parameter whatever its
        paper calls it (β of DP-SE, p of Chowdhury & Zhou; :mod:`bandsim.confidence`).

    Returns
    -------
    Result
        ``checkpoints`` int64 (C,), ``pseudo_regret`` float64 (runs, C),
        ``pulls`` int64 (runs, K), ``config`` (the resolved configuration).

    Raises
    ------
    ConfigError
        On any invalid or missing input (also a missing ``horizon``), before
        simulation work starts.

    References
    ----------
    Parameter derivations follow each algorithm's paper, listed by
    ``bandsim list`` and in ``config["reference"]``.
    """
    options = dict(instance=instance, arms=arms, horizon=horizon, runs=runs, seed=seed,
                   rewards=rewards, sigma=sigma, means=means, checkpoints=checkpoints,
                   threads=threads, instance_file=instance_file, **params)
    if memory is None:
        return prepare(algorithm, **options).run(progress)
    previous = resources.set_budget(memory)
    try:
        return prepare(algorithm, **options).run(progress)
    finally:
        resources.restore_budget(previous)


class Prepared:
    """A validated, planned simulation, ready to :meth:`run`."""

    def __init__(self, config, plan, inst, checkpoints, threads):
        self.config, self.plan, self.inst = config, plan, inst
        self.checkpoints, self.threads = checkpoints, threads

    def run(self, progress=None):
        """Simulate; ``progress(runs_done)`` is called after each shard."""
        return _execute(self, progress)


def prepare(algorithm, *, instance=None, arms=None, horizon=None, runs=1000, seed=None,
            rewards="bernoulli", sigma=0.1, means=None, checkpoints=None,
            threads=None, instance_file=None, **params):
    """Validate and plan a simulation without running it (see :func:`simulate`).

    Parameters
    ----------
    algorithm : str
    instance, arms, horizon, runs, seed, rewards, sigma, means, checkpoints, threads, \
instance_file, **params
        As :func:`simulate`.

    Returns
    -------
    Prepared
        Call ``.run(progress)`` to simulate.

    Raises
    ------
    ConfigError
        On any invalid or missing input.
    """
    check_numba_environment()
    if horizon is None:
        raise ConfigError("horizon", None, "required: T, the total pulls per run (e.g. 1e6)")
    algo = registry.get_algorithm(algorithm)
    runs = check_int("runs", runs, 1, 10**8)
    horizon = check_int("horizon", horizon, 2, MAX_HORIZON)
    seed = secrets.randbits(63) if seed is None else check_int("seed", seed, 0)
    threads = os.cpu_count() if threads is None else check_int("threads", threads, 1, 1024)
    if registry.loading_plugin():
        # A plug-in simulating while it loads holds its module's import lock: a worker
        # thread importing that module (or any module being imported) would wait for it
        # while the loader waits for the worker. One thread; results do not depend on it.
        threads = 1
    params = confidence.apply(algo, params, strict=True)  # ``confidence``: the algorithm's own β, p, …
    resolved = algo.resolve({k: v for k, v in params.items() if v is not None}, horizon)
    means = _check_means(means, instance)
    arms = None if arms is None else check_int("arms", arms, 2, MAX_ARMS)
    if instance is not None and not isinstance(instance, str):
        if not isinstance(instance, Instance):
            raise ConfigError("instance", instance, f"must be one of {', '.join(NAMED)} or an "
                                                    "Instance")
    cps = resolve_checkpoints(checkpoints, horizon)
    check_memory(runs, cps.size, arms if arms is not None else
                 (len(means) if means is not None else 2))

    inst_ss = np.random.SeedSequence(seed).spawn(2)[0]
    inst = _given_instance(instance, instance_file, means, arms)
    if inst is None:
        inst = make_instance(instance, arms, runs, rewards, sigma, means,
                             rng=np.random.default_rng(inst_ss))
    K = inst.arms
    if horizon < K:
        raise ConfigError("horizon", horizon, f"must be at least the number of arms ({K})")
    algo.check_rewards(inst.rewards)
    check_memory(runs, cps.size, K, {"bernoulli": 1, "gaussian": 4}.get(
        inst.rewards, 1 + 2 * (inst.values.shape[1] if inst.values is not None else 1)))
    key = plan_key("plan", algo.name, resolved, K, horizon)  # cached within a study
    plan = memo(key, lambda: make_plan(algo, resolved, K, horizon))
    config = {
        "algorithm": algo.name,
        "instance": inst.name,
        "arms": K,
        "rewards": inst.rewards,
        "horizon": horizon,
        "runs": runs,
        "seed": seed,
        "shard_runs": int(getattr(plan, "shard_runs", SHARD_RUNS)),
        "params": resolved,
        "trust": algo.trust,
        "reference": algo.source,
        "stages": plan.stages,
    }
    config["privacy"] = memo(("privacy",) + key[1:],
                              lambda: result_privacy(algo, resolved, plan, horizon))
    if algo.private and results_audited():  # the whole-run audit here (disk-cached by code)
        config["privacy"] = dict(config["privacy"], whole_run=memo(
            ("whole_run", algo.name, repr(sorted(resolved.items())), horizon),
            lambda: result_verdict(algo, resolved, horizon)))
    config["samplers"] = sampler_provenance(algo, inst.rewards)
    plugins = registry.plugin_provenance(algo)
    if plugins:  # distribution, version, SHA-256 of its sources: part of the store key
        config["plugins"] = plugins
    if inst.name == "means" or inst.location.ndim == 1:
        config["location"] = inst.location.tolist()
    config.update(getattr(plan, "notes", {}))
    if inst.source is not None:
        config["instance_file"] = inst.source
    if inst.rewards == "categorical":
        config["categorical"] = {"values": inst.values.tolist(), "probs": inst.probs.tolist()}
    if inst.rewards != "bernoulli" and algo.binary_rewards:
        config["reward_binarization"] = BINARIZATION_NOTE
    if inst.rewards == "gaussian" and algo.binary_rewards:
        config["sigma"] = inst.sigma
    elif inst.rewards == "gaussian":
        config["sigma"] = inst.sigma
        if getattr(plan, "clt_batch_sums", True):  # the engine's own approximation
            config["gaussian_batch_sum"] = GAUSSIAN_NOTE
            config["gaussian_clt_kolmogorov_bound"] = berry_esseen_bound(
                inst.location, inst.sigma, GAUSSIAN_EXACT_MAX_N + 1)
    return Prepared(RunConfig.from_dict(config), plan, inst, cps, threads)


def check_memory(runs, n_checkpoints, arms, rpar_width=4):
    """Refuse (ConfigError naming ``runs``) outputs and instances beyond the memory budget.

    Per run: the regret at every checkpoint, N_a(T), elimination times, true
    means, gaps and reward parameters (float64/int64), and a random instance's
    means: 8 (C + (5 + P) K) bytes.

    Parameters
    ----------
    runs, n_checkpoints, arms : int
    rpar_width : int
        P, reward parameters per arm.

    Raises
    ------
    ConfigError
        Beyond the budget (:mod:`bandsim.resources`), naming ``runs``.
    """
    per_run = 8 * (n_checkpoints + (5 + rpar_width) * arms)
    most = max(1, resources.budget() // per_run)
    resources.check(runs * per_run, "runs", runs,
                    f"the outputs of {runs:,} runs ({n_checkpoints:,} checkpoints, {arms:,} arms)",
                    f"lower --runs (at most {most:,}) or --checkpoints")


def _check_means(means, instance):
    """Explicit means: a flat sequence of numbers, never together with a named instance."""
    if means is None:
        return None
    if isinstance(means, (str, bytes)):
        raise ConfigError("means", means, "must be a sequence of numbers in [0, 1], e.g. "
                                          "[0.9, 0.8] (the command line's --means takes 0.9,0.8)")
    try:
        arr = np.asarray(means, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError("means", means, "must be a sequence of numbers in [0, 1]") from None
    if arr.ndim != 1:
        raise ConfigError("means", means, f"must be a flat list of K numbers in [0, 1] (got "
                                          f"shape {arr.shape}); one instance for every run")
    if instance is not None:
        raise ConfigError("means", arr.tolist(), f"give either explicit means or instance="
                                              f"{instance!r}, not both")
    return arr


def _given_instance(instance, instance_file, means, arms):
    """The Instance given directly or by file, or None (then make_instance resolves it)."""
    if instance_file is not None and not isinstance(instance_file, (str, os.PathLike)):
        raise ConfigError("instance_file", instance_file,
                          "must be the path of an instance file (str or pathlib.Path)")
    if instance_file is None and not isinstance(instance, Instance):
        return None
    if instance_file is not None and (instance is not None or means is not None):
        raise ConfigError("instance_file", str(instance_file),
                          "give either an instance file or --instance/--means, not both")
    if instance_file is not None:
        instance = load_instance(instance_file)
    if arms is not None and int(arms) != instance.arms:
        raise ConfigError("arms", arms, f"the instance has {instance.arms} arms")
    return instance


def _execute(prep, progress):
    config, plan, cps, threads = prep.config, prep.plan, prep.checkpoints, prep.threads
    runs, horizon, K = config["runs"], config["horizon"], config["arms"]
    true_means, gaps, rcode, rpar = prep.inst.per_run(runs)
    runs_ss = np.random.SeedSequence(config["seed"]).spawn(2)[1]
    out_regret = np.zeros((runs, cps.size))
    out_pulls = np.zeros((runs, K), np.int64)
    out_elim = np.zeros((runs, K), np.int64)
    shard = config["shard_runs"]
    n_shards = -(-runs // shard)
    rngs = [np.random.default_rng(ss) for ss in runs_ss.spawn(n_shards)]

    def work(i):
        lo, hi = i * shard, min(runs, (i + 1) * shard)
        plan.run_shard(rngs[i], make_shard(gaps[lo:hi], rcode, rpar[lo:hi], horizon, cps,
                                           out_regret[lo:hi], out_pulls[lo:hi],
                                           out_elim[lo:hi]))
        return hi - lo

    done = 0
    if threads == 1 or n_shards == 1:
        for i in range(n_shards):
            done += work(i)
            if progress:
                progress(done)
    else:
        pool = ThreadPoolExecutor(max_workers=min(threads, n_shards))
        try:
            for n in pool.map(work, range(n_shards)):
                done += n
                if progress:
                    progress(done)
        finally:  # on Ctrl-C, drop the shards not started yet
            pool.shutdown(wait=True, cancel_futures=True)
    return Result(cps, out_regret, out_pulls, out_elim, true_means, config, versions())
