"""Property-based tests (hypothesis): simulate, the command-line parser and the
samplers' Python-layer guards.

- ``simulate`` on any small valid configuration keeps its invariants (every run
  pulls exactly T times, regret is non-decreasing and equals Σ Δ_a N_a(T) at T,
  a fixed seed reproduces bit for bit); on any input at all it returns a result
  or raises ConfigError — never another exception;
- the command line, given arbitrary numbers and words, exits 0 or 2 with one
  ``error:`` line, never a traceback;
- a mechanism's derivation either refuses its parameters (ConfigError) or hands
  the kernels parameters their samplers accept: the batched noise is drawn
  without the samplers' own ValueError.
"""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import bandsim
from bandsim.cli import main

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
#: Cheap algorithms (batched engines) with their parameters.
ALGOS = {"batch-se": {}, "dp-se": {"epsilon": 0.5}, "dist-dp-se": {"epsilon": 0.5},
         "dist-rdp-se": {"epsilon": 0.5}, "sdp-ae": {"epsilon": 0.5, "delta": 1e-6},
         "cdp-se": {"epsilon": 0.5}}

means_st = st.lists(st.floats(0.0, 1.0), min_size=2, max_size=5)


@SETTINGS
@given(algo=st.sampled_from(sorted(ALGOS)), means=means_st,
       horizon=st.integers(10, 200_000), runs=st.integers(1, 6), seed=st.integers(0, 2**63 - 1),
       eps=st.floats(0.05, 5.0))
def test_simulate_invariants(algo, means, horizon, runs, seed, eps):
    assume(horizon >= len(means))
    params = dict(ALGOS[algo])
    if "epsilon" in params:
        params["epsilon"] = eps
    kw = dict(means=means, horizon=horizon, runs=runs, seed=seed, checkpoints=16, **params)
    res = bandsim.simulate(algo, **kw)
    assert np.all(res.pulls.sum(axis=1) == horizon)
    assert res.checkpoints[-1] == horizon
    assert np.all(np.diff(res.pseudo_regret, axis=1) >= -1e-9)
    gaps = res.means.max(axis=1, keepdims=True) - res.means
    assert np.allclose(res.pseudo_regret[:, -1], (gaps * res.pulls).sum(axis=1), rtol=1e-9,
                       atol=1e-6)
    again = bandsim.simulate(algo, threads=1, **kw)
    assert np.array_equal(again.pseudo_regret, res.pseudo_regret)
    assert np.array_equal(again.pulls, res.pulls)


anything = st.one_of(st.none(), st.booleans(), st.integers(-10, 10**12),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
                     st.lists(st.floats(-1, 2), max_size=3))


@SETTINGS
@given(field=st.sampled_from(["horizon", "runs", "epsilon", "arms", "means", "seed",
                              "checkpoints", "instance", "growth", "p", "instance_file",
                              "threads", "rewards", "sigma"]),
       value=anything)
# found by hypothesis: q² underflowing to 0 (tiny ε), g = ⌈ε√n⌉ infinite and m beyond a float
@example(field="epsilon", value=7.584951643390239e-224)
@example(field="epsilon", value=8.98846567431158e+307)
@example(field="epsilon", value=2.247116418577895e+307)
@example(field="epsilon", value=1e15)
def test_simulate_returns_or_raises_config_error(field, value):
    kw = dict(instance="C1", arms=3, horizon=2_000, runs=2, seed=1, epsilon=0.5)
    if field == "means":
        kw.pop("instance")
        kw.pop("arms")
    kw[field] = value
    if field == "runs" and isinstance(value, (int, float)) and not isinstance(value, bool) \
            and value == value and abs(value) < math.inf and value > 1000:
        kw[field] = 1000  # valid but slow: keep the test quick
    try:
        res = bandsim.simulate("dist-dp-se", **kw)
    except bandsim.ConfigError as e:
        assert e.field and str(e)
        return
    assert np.all(res.pulls.sum(axis=1) == res.horizon)


number_words = st.text(alphabet="0123456789.e-+,inf ", min_size=0, max_size=8)


@SETTINGS
@given(horizon=number_words, eps=number_words, runs=number_words)
def test_cli_exits_0_or_2_with_one_line(horizon, eps, runs, capsys):
    assume(horizon.strip() and eps.strip() and runs.strip())
    assume(not horizon.strip().startswith("-") and not eps.strip().startswith("-"))
    assume(not runs.strip().startswith("-"))
    try:
        r = float(runs.split(",")[0])
        assume(not (1 <= r <= 1e8) or r <= 4)  # valid run counts: only small ones
    except ValueError:
        pass
    argv = ["run", "dist-dp-se", "--instance", "C1", "--arms", "3", "--horizon", horizon,
            "--epsilon", eps, "--runs", runs, "--seed", "1", "--json"]
    rc = main(argv)
    out = capsys.readouterr()
    assert rc in (0, 2)
    assert "Traceback" not in out.err
    if rc == 2:
        assert out.err.startswith("error:") and out.err.count("error:") == 1


MECHS = ["dist-dp", "dist-rdp", "dist-cdp", "central", "local", "dist-dp-shuffle"]


@SETTINGS
@given(name=st.sampled_from(MECHS), n=st.integers(1, 10**10),
       eps=st.floats(1e-18, 1e9, allow_nan=False), scale=st.floats(1.0, 1e16),
       p=st.floats(1e-12, 0.5))
def test_accepted_parameters_never_fail_in_the_samplers(name, n, eps, scale, p):
    """Either the derivation refuses (ConfigError), or the batched kernels draw."""
    from bandsim.mechanisms import secagg

    try:
        b = secagg.mechanism(name, n, eps, p, scale if name in ("dist-rdp", "dist-cdp") else 1.0)
    except bandsim.ConfigError as e:
        assert e.field in ("epsilon", "n", "p", "scale")
        return
    z = b.total_noise(size=3, rng=1)
    assert z.shape == (3,)
    assert b.m <= secagg.MAX_MODULUS


@pytest.mark.parametrize("text", ["inf", "1e400", "nan", "-inf", "1.5", "1e3.5"])
def test_one_int_hands_non_integers_to_the_fields_check(text, capsys):
    assert main(["run", "batch-se", "--instance", "C1", "--arms", "3", "--horizon", text]) == 2
    err = capsys.readouterr().err
    assert "horizon" in err and "Traceback" not in err
