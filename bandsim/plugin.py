"""Everything a plug-in author needs, in one module.

``from bandsim.plugin import ...`` gives the declarations and their family
bases, parameters, the engines' plan types and table builders, the SecAgg
protocol's helpers, exact laws for audits, the audits themselves and the
kernel codes. Nothing else in bandsim is needed to declare an algorithm or a
mechanism (docs/plugins.md).

Declarations
    :class:`Algorithm`, :class:`Mechanism` and their families — mechanisms:
    :class:`SecAggProtocol`, :class:`NoiseOnSum`, :class:`Shuffle`,
    :class:`DataDependent` (a release drawn from the batch's true count, with
    :class:`ReleaseBatch`), :class:`InsideEngine`, :class:`Exact`; engines:
    :class:`BatchedElimination`, :class:`BatchedDecision`, :class:`EpisodicIndex`,
    :class:`PerStep`, :class:`PerStepIndex` (a numba ``index`` over the tree
    mechanism's private sums), :class:`SVTEngine`, :class:`PerRoundThompson`,
    :class:`ThompsonSampler` (a numba posterior ``sample`` over Laplace chunk means),
    :class:`TopTwoBAI` (fixed-confidence top two: numba ``leader``, ``challenger``,
    ``stop``; run by :func:`bandsim.simulate_bai`). Every field is a keyword. :class:`Guarantee`
    says what a mechanism promises and how it is audited and accounted.
Registration
    :func:`register`, :func:`unregister`, :func:`get_mechanism`,
    :func:`get_algorithm`; :func:`check` validates a declaration without
    registering it (one ConfigError line naming the declaration and field).
Parameters
    :class:`Param`, :class:`Derived` and the shared ones (:data:`EPSILON`,
    :data:`DELTA`, :data:`P`, :data:`BETA`, :data:`GROWTH`, :data:`SCALE`,
    :data:`BATCH_SIZE`, :data:`ONE_OVER_T`, :data:`HALF_OVER_T`).
Plans and tables
    :class:`Plan` (elimination engine), :class:`EpisodicPlan`,
    :func:`build_tables`, :func:`mechanism_tables`, :func:`batch_size`,
    :func:`confidence_radius`, :func:`plan_protocol`, :func:`laplace_claim`.
An engine of your own
    :class:`Shard` (what ``run_shard(rng, shard)`` receives) and
    :mod:`kernel_rewards` (``kernel_rewards.batch_sum(rng, code, par, n)``,
    ``kernel_rewards.draw(rng, code, par)``: every reward model's draws).
An engine of your own, recorded
    :func:`release` (the release primitive: every noisy value an engine
    releases goes through it), :func:`rsum` and :func:`rdraw` (the reward
    draws of a block of pulls and of one pull, logged and with one user's
    reward set in the recording mode) and :func:`laplace_draw`. With
    ``rec=None`` they compile to the bare value and draw; a plan whose
    ``run_shard(rng, shard, rec=None)`` passes ``rec`` to an engine that calls
    them is recorded and audited by ``bandsim audit NAME --whole-run`` like a
    built-in engine (docs/plugins.md); one that does not is "not auditable".
Declared releases
    :class:`Release`, :func:`per_batch`, :func:`laplace_participation`: what
    ``Algorithm.participation(params, horizon)`` returns — every noisy release
    one participation's reward enters (the returning-user accountant composes
    it; a family may default it). ``Mechanism.float_safe``: integer releases
    (True) or float64 noise (False).
Mechanism helpers
    :mod:`secagg` (``secagg.finish(...)`` builds a SecAgg batch, keywords
    only), :class:`SumBatch`, :func:`secagg_audit`, :func:`secagg_audit_points`,
    :data:`codes` (kernel codes, ``codes.PLUGIN``).
Laws and audits
    :class:`Law` (subclass it: ``logpmf(k)``), :class:`DiscreteLaplace`,
    :class:`Skellam`, :class:`Binomial`; :func:`log_convolve` (the log of a
    convolution of two laws given by their logs, exact in every tail: for a
    ``release_logpmf``); :func:`audit` (exact audit of an algorithm's batch).

What a plan is
    ``Algorithm.plan(params, arms, horizon)`` returns any object with

    ``run_shard(rng, shard)``
        Simulates one shard of runs in place (``shard``: a
        :class:`bandsim.kernels.shard.Shard` — gaps, reward model, horizon,
        checkpoints and the output rows it fills).
    ``stages`` : list of dict
        Per-stage numbers for reports (may be empty).

    and optionally a third argument of ``run_shard``, ``rec=None``: passed on
    to an engine that draws through :func:`rsum`/:func:`rdraw` and releases
    through :func:`release`, it gives the plan a recording mode that the
    whole-run audit records and replays (without it: "not auditable");
    ``shard_runs`` (int: runs per shard and Generator; results
    depend on it, never on threads; default 64), ``privacy`` (dict: the claim
    in the paper's terms, copied into ``config["privacy"]``), ``notes`` (dict:
    merged into the result's configuration), ``clt_batch_sums`` (bool,
    default True: Gaussian batch sums use the engine's normal approximation,
    recorded with its Berry–Esseen bound), ``noise_scale`` (float: the
    Laplace scale the engine adds; checked against the mechanism's
    ``fpar[0]`` in the result's audit), and for the elimination engine the
    tables of :class:`Plan` (``batch`` int64 (S, K + 1), ``width`` float64
    (S, K + 1), ``fpar`` float64 (S, K + 1, F), ``ipar`` int64 (S, K + 1, I)).
"""
from . import provenance, registry, validation
from .algorithms.base import EpisodicPlan, Plan, build_tables, laplace_claim, mechanism_tables
from .algorithms.elimination import batch_size, confidence_radius, plan_protocol
from .algorithms.decision import decision_plan
from .bai.toptwo import TopTwoBAI
from .algorithms.families import (BatchedDecision, BatchedElimination, EpisodicIndex,
                                  PerRoundThompson, PerStep, PerStepIndex, SVTEngine,
                                  ThompsonSampler)
from .errors import ConfigError
from .guarantees import Guarantee
from .kernels import codes
from .kernels import rewards as kernel_rewards
from .kernels.record import rdraw, release, rsum
from .kernels.samplers import laplace_draw
from .kernels.shard import Shard
from .mechanisms import SumBatch, secagg
from .mechanisms.families import (DataDependent, Exact, InsideEngine, NoiseOnSum,
                                  SecAggProtocol, Shuffle)
from .mechanisms.release import ReleaseBatch
from .params import (BATCH_SIZE, BETA, DELTA, EPSILON, GROWTH, HALF_OVER_T, ONE_OVER_T, P,
                     REQUIRED, SCALE, Derived, Param)
from .privacy.audit import audit, secagg_audit, secagg_audit_points
from .privacy.participation import Release, laplace_participation, per_batch
from .privacy.logconv import log_convolve
from .privacy.pmf import Binomial, DiscreteGaussian, DiscreteLaplace, Law, Skellam
from .registry import (Algorithm, Mechanism, get_algorithm, get_mechanism, register,
                       unregister)
from .privacy.release import audit_points as release_audit_points
from .privacy.release import audit_release
from .privacy.sampled import sampled
from .runner import simulate


def check(declaration: Algorithm | Mechanism) -> None:
    """Validate a declaration as :func:`register` would, without registering it.

    Raises
    ------
    ConfigError
        One line naming the declaration and the field.
    """
    validation.check(declaration, registry.mechanisms(), kernel_keys=registry.KERNEL_KEYS,
                     reward_models=registry.REWARD_MODELS, costs=registry.COSTS)


__all__ = ["Algorithm", "audit", "audit_release", "BATCH_SIZE", "batch_size", "BatchedDecision",
           "BatchedElimination", "BETA", "DataDependent", "decision_plan", "ReleaseBatch",
           "release_audit_points", "sampled",
           "Binomial", "build_tables", "check", "codes", "confidence_radius", "ConfigError",
           "DELTA", "Derived", "DiscreteGaussian", "DiscreteLaplace", "EpisodicIndex",
           "EpisodicPlan", "EPSILON", "Exact", "get_algorithm", "get_mechanism", "GROWTH",
           "Guarantee", "HALF_OVER_T", "InsideEngine", "kernel_rewards", "laplace_claim",
           "laplace_draw", "laplace_participation", "Law", "log_convolve",
           "Mechanism", "mechanism_tables", "NoiseOnSum", "ONE_OVER_T", "P", "Param",
           "per_batch", "PerRoundThompson", "PerStep", "PerStepIndex", "Plan", "plan_protocol",
           "provenance", "rdraw", "register", "Release", "release", "rsum", "REQUIRED", "SCALE",
           "secagg", "secagg_audit", "secagg_audit_points", "ThompsonSampler",
           "SecAggProtocol", "Shard", "Shuffle", "simulate", "Skellam", "SumBatch", "SVTEngine",
           "TopTwoBAI", "unregister"]
