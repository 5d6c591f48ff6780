"""Plans cached by their parameters while a study is prepared.

A plan (batch sizes, widths, mechanism tables) depends only on the algorithm,
its resolved parameters, K and T; a sweep or figure has many jobs that share
them (the same algorithm on several instances or seeds). Inside
``with caching():`` :func:`memo` computes each distinct plan once. Outside,
it computes every time (nothing is kept between studies).
"""
import json
from contextlib import contextmanager

from .errors import call_plugin
from .registry import is_builtin

_CACHE = None


@contextmanager
def caching():
    """Cache plans (and other per-plan values) until the block ends; re-entrant."""
    global _CACHE
    outer = _CACHE
    if outer is None:
        _CACHE = {}
    try:
        yield
    finally:
        if outer is None:
            _CACHE = None


def plan_key(kind, algorithm, params, arms, horizon):
    """Hashable key of a plan-derived value: ``kind`` and the plan's inputs."""
    return (kind, algorithm, json.dumps(params, sort_keys=True), int(arms), int(horizon))


def memo(key, compute):
    """``compute()`` once per ``key`` inside :func:`caching`, every call outside."""
    if _CACHE is None:
        return compute()
    if key not in _CACHE:
        _CACHE[key] = compute()
    return _CACHE[key]


def make_plan(algo, params, arms, horizon):
    """``algo.plan(params, arms, horizon)``, a plug-in's error as one line.

    Every caller of an algorithm's ``plan`` (the runner, the sampled and the
    whole-run audits) goes through here, so a plug-in whose ``plan()`` raises
    is named in one line wherever it is planned, never a traceback.

    Parameters
    ----------
    algo : bandsim.registry.Algorithm
    params : dict
        Its resolved parameters.
    arms, horizon : int

    Returns
    -------
    object
        The plan (it has ``run_shard``).

    Raises
    ------
    bandsim.errors.PluginError
        A plug-in's ``plan()`` raised (a built-in's exceptions pass unchanged: a bug there is
        bandsim's).
    """
    return call_plugin(f"plug-in algorithm {algo.name!r} plan()", algo.plan, params, arms,
                       horizon, plugin=not is_builtin(algo.name))
