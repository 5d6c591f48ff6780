"""Declarations are validated at registration: one ConfigError line naming the declaration
and the field, before anything is registered."""
import dataclasses

import numba
import numpy as np
import pytest

import bandsim
from bandsim import registry
from bandsim.plugin import (EPSILON, GROWTH, P, BatchedElimination, EpisodicIndex,
                            EpisodicPlan, NoiseOnSum, Param, SecAggProtocol, codes, secagg)


def elimination(**kw):
    base = dict(name="val-se", summary="x", trust="none", source="tests", params=(P, GROWTH),
                plan=lambda prm, arms, horizon: None, mechanism="none")
    return BatchedElimination(**{**base, **kw})


@numba.njit
def good_index(stat, n, t, c):
    return stat + np.sqrt(c[1] * np.log(t) / n)


def py_index(stat, n, t, c):
    return stat


@numba.njit
def short_index(stat, n, t):
    return stat


@numba.njit
def no_return_index(stat, n, t, c):
    c[0] = stat


def episodic(index, **kw):
    return EpisodicIndex(name="val-index", summary="x", source="tests", params=(EPSILON,),
                         index=index, **kw)


def refused(decl, *match):
    names = set(registry.algorithms()) | set(registry.mechanisms())
    with pytest.raises(bandsim.ConfigError) as e:
        bandsim.register(decl)
    msg = str(e.value)
    assert "\n" not in msg
    for m in match:
        assert m in msg, msg
    assert set(registry.algorithms()) | set(registry.mechanisms()) == names  # none registered
    return msg


def test_param_default_outside_its_range():
    refused(elimination(params=(Param("alpha", 5.0, lo=0.0, hi=1.0),)),
            "algorithm 'val-se' params[alpha].default=5.0", "(0, 1)")


def test_param_range_lo_not_below_hi():
    refused(elimination(params=(Param("alpha", REQ := bandsim.plugin.REQUIRED, lo=2.0,
                                      hi=1.0),)), "params[alpha].lo=2.0", "below hi = 1")
    refused(elimination(params=(Param("alpha", lo=1.0, hi=1.0),)), "params[alpha].lo")
    assert REQ is bandsim.plugin.REQUIRED


def test_param_declared_twice_and_unknown_cost():
    refused(elimination(params=(P, P)), "params[p]", "declared twice")
    refused(elimination(cost="quadratic"), "algorithm 'val-se' cost='quadratic'", "horizon")


def test_index_hooks_compile_against_their_signature():
    refused(episodic(py_index), "algorithm 'val-index' index='py_index'",
            "decorate it with @numba.njit")
    refused(episodic(short_index), "index='short_index'", "does not compile as (stat: float64")
    refused(episodic(no_return_index), "returns none")
    refused(episodic(None), "index=None", "is required")
    decl = bandsim.register(episodic(good_index))
    try:
        res = bandsim.simulate("val-index", instance="C2", arms=3, epsilon=1.0, horizon=2000,
                               runs=8, seed=1, threads=1)
        assert res.pulls.sum() == 8 * 2000
        assert res.config["plugins"][0]["distribution"] == "(run time)"
        assert res.config["plugins"][0]["modules"] == ["tests"]
    finally:
        registry.unregister(decl.name)


def test_episodic_engine_refuses_unknown_codes():
    with pytest.raises(bandsim.ConfigError, match="rule=7"):
        EpisodicPlan(index=good_index, c=np.zeros(2), ratio=2.0, rule=7, estimator=0,
                     noise_scale=1.0)
    with pytest.raises(bandsim.ConfigError, match="estimator=-1"):
        EpisodicPlan(index=good_index, c=np.zeros(2), ratio=2.0, rule=0, estimator=-1,
                     noise_scale=1.0)
    with pytest.raises(bandsim.ConfigError, match="episodes='fibonacci'"):
        episodic(good_index, episodes="fibonacci")


@numba.njit
def sum_noise(rng, n, fpar):
    return rng.laplace(0.0, fpar[0])


def plain_sum_noise(rng, n, fpar):
    return 0.0


def sum_mechanism(**kw):
    base = dict(name="val-sum", summary="x", source="tests", trust="central ε-DP",
                batch=lambda n, epsilon: None, kernels={"sum_noise": sum_noise})
    return NoiseOnSum(**{**base, **kw})


def test_plugin_mechanisms_need_exactly_the_kernels_their_family_consumes():
    refused(sum_mechanism(kernels=None), "mechanism 'val-sum' kernels=None", "codes.PLUGIN")
    refused(sum_mechanism(kernels={"sum_noise": sum_noise, "batch_estimate": sum_noise}),
            "kernels='batch_estimate'", "no engine of family 'sum' consumes it")
    refused(sum_mechanism(kernels={"total_noise": sum_noise}), "kernels='total_noise'")
    refused(sum_mechanism(kernels={"sum_noise": plain_sum_noise}),
            "kernels[sum_noise]='plain_sum_noise'", "@numba.njit")
    refused(SecAggProtocol(name="val-secagg", summary="x", source="tests", trust="x",
                           batch=secagg.dist_dp, kernels={"total_noise": sum_noise}),
            "mechanism 'val-secagg' kernels", "needs total_noise, user_noise")
    refused(sum_mechanism(family="engine"), "family='engine'")
    with pytest.raises(bandsim.ConfigError, match="mechanism 'val-sum' kind='sometimes'"):
        sum_mechanism(kind="sometimes")  # refused when declared


def test_declared_releases_and_float_safety_are_checked():
    refused(elimination(participation="one batch"),
            "algorithm 'val-se' participation='one batch'", "callable (params, horizon)")
    refused(sum_mechanism(float_safe="yes"), "mechanism 'val-sum' float_safe='yes'",
            "True (integer releases), False (float noise) or None")
    refused(sum_mechanism(float_safe=1), "float_safe=1")  # 1 == True, but not a declaration
    # the families' defaults pass: one batch of the mechanism; float64 noise on a sum
    assert elimination().participation(dict(), 10)[0].law == "batch"
    assert sum_mechanism().float_safe is False


def test_one_bad_declaration_registers_none_of_the_call():
    good = elimination(name="val-good")
    with pytest.raises(bandsim.ConfigError):
        bandsim.register(good, elimination(params=(Param("q", 2.0, lo=0.0, hi=1.0),)))
    assert "val-good" not in registry.algorithms()


def test_builtins_pass_their_own_validation():
    from bandsim import validation

    for d in list(registry.mechanisms().values()) + list(registry.algorithms().values()):
        validation.check(d, registry.mechanisms(), kernel_keys=registry.KERNEL_KEYS,
                         reward_models=registry.REWARD_MODELS, costs=registry.COSTS,
                         compile_hooks=False)
    adap = registry.get_algorithm("adap-ucb")
    assert dataclasses.is_dataclass(adap) and adap.index.__name__ == "adap_ucb_index"


@numba.njit
def release(rng, n, k, params):
    return k + rng.binomial(n, params[0])


def test_a_mechanism_family_with_its_own_hook_needs_no_kernels():
    """A family's numba hook (DataDependent.release) is a field listed in ``hooks``: it stands
    for ``kernels``, is compiled against its signature, and the family's code is required."""
    from bandsim.mechanisms.families import DataDependent

    law = lambda n, k, fpar: (np.arange(n + 1.0), np.full(n + 1, 1.0 / (n + 1)))  # noqa: E731
    base = dict(name="val-release", summary="x", source="tests", trust="local ε-DP",
                batch=lambda n, epsilon: None, release_law=law)
    refused(DataDependent(**base), "mechanism 'val-release' kernels=None", "codes.RELEASE")
    refused(DataDependent(**base, release=plain_sum_noise), "release='plain_sum_noise'",
            "@numba.njit")
    refused(DataDependent(**base, release=sum_noise), "release='sum_noise'", "does not compile")
    refused(DataDependent(**base, release=release, code=codes.PLUGIN), "code=100", "102")
    refused(DataDependent(**{**base, "release_law": None}, release=release),
            "release_logpmf=None", "exact output law once")
    refused(DataDependent(**base, release_logpmf=law, release=release),  # both: which one?
            "release_logpmf=['release_logpmf', 'release_law']", "once")
    decl = bandsim.register(DataDependent(**base, release=release))
    try:
        assert registry.get_mechanism("val-release").release is release
    finally:
        registry.unregister(decl.name)


def test_one_module_holds_what_the_plugin_examples_import():
    """The names the worked examples took from eight modules, now in bandsim.plugin."""
    import bandsim.plugin as plugin

    needed = ["Plan", "mechanism_tables", "batch_size", "codes", "EPSILON", "GROWTH", "P",
              "DELTA", "get_mechanism", "plan_protocol", "secagg", "secagg_audit",
              "secagg_audit_points", "Law", "audit", "Algorithm", "Mechanism", "register",
              "simulate", "Shard", "kernel_rewards", "Guarantee", "EpisodicIndex",
              "DataDependent", "Release", "ReleaseBatch", "BatchedDecision", "decision_plan", "audit_release",
              "release_audit_points", "sampled"]
    assert [n for n in needed if not hasattr(plugin, n)] == []
    assert set(needed) <= set(plugin.__all__)
    assert plugin.Law.__module__ == "bandsim.privacy.pmf"
