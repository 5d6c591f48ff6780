"""Reproducibility, configuration errors and results."""
import json

import numpy as np
import pytest

import bandsim
from bandsim import ConfigError, Result

BASE = dict(instance="easy", arms=4, epsilon=0.5, horizon=200_000, runs=300, seed=11)


def _same(a, b):
    return (np.array_equal(a.pseudo_regret, b.pseudo_regret)
            and np.array_equal(a.pulls, b.pulls)
            and np.array_equal(a.elimination_time, b.elimination_time)
            and np.array_equal(a.means, b.means))


@pytest.mark.parametrize("algo", ["dp-se", "batch-se"])
def test_bit_identical_for_any_thread_count(algo):
    kw = dict(BASE)
    if algo == "batch-se":
        kw.pop("epsilon")
    one = bandsim.simulate(algo, threads=1, **kw)
    for threads in (2, 3, 8):
        assert _same(one, bandsim.simulate(algo, threads=threads, **kw))


def test_seed_controls_everything():
    a = bandsim.simulate("dp-se", **BASE)
    b = bandsim.simulate("dp-se", **BASE)
    c = bandsim.simulate("dp-se", **{**BASE, "seed": 12})
    assert _same(a, b)
    assert not np.array_equal(a.means, c.means)
    # a run's instance does not depend on how many runs there are
    d = bandsim.simulate("dp-se", **{**BASE, "runs": 10})
    assert np.array_equal(d.means, a.means[:10])


def test_missing_seed_is_drawn_and_recorded():
    a = bandsim.simulate("dp-se", **{**BASE, "seed": None, "runs": 5})
    b = bandsim.simulate("dp-se", **{**BASE, "seed": a.config["seed"], "runs": 5})
    assert _same(a, b)


@pytest.mark.parametrize("change, field", [
    (dict(epsilon=0), "epsilon"),
    (dict(epsilon=-1), "epsilon"),
    (dict(epsilon=None), "epsilon"),
    (dict(arms=1), "arms"),
    (dict(horizon=3), "horizon"),
    (dict(horizon=2.5e6 + 0.5), "horizon"),
    (dict(runs=0), "runs"),
    (dict(instance="C7"), "instance"),
    (dict(beta=1.5), "beta"),
    (dict(growth=2.0), "growth"),
    (dict(checkpoints=[0, 5]), "checkpoints"),
])
def test_bad_input_fails_before_work_naming_the_field(change, field):
    with pytest.raises(ConfigError) as e:
        bandsim.simulate("dp-se", **{**BASE, **change})
    assert e.value.field == field
    assert field in str(e.value)


def test_unknown_algorithm():
    with pytest.raises(ConfigError, match="algorithm='dp-xx'.*dp-se"):
        bandsim.simulate("dp-xx", **BASE)


def test_checkpoints_end_at_horizon_and_regret_is_nondecreasing():
    res = bandsim.simulate("dp-se", **BASE)
    assert res.checkpoints[-1] == BASE["horizon"] and res.checkpoints.dtype == np.int64
    assert np.all(np.diff(res.checkpoints) > 0)
    assert res.pseudo_regret.shape == (300, res.checkpoints.size)
    assert np.all(np.diff(res.pseudo_regret, axis=1) >= -1e-9)
    assert res.pulls.shape == (300, 4) and res.pulls.dtype == np.int64
    assert np.all(res.pulls.sum(1) == BASE["horizon"])


def test_parquet_round_trip_is_lossless(tmp_path):
    res = bandsim.simulate("dp-se", **BASE)
    path = tmp_path / "r.parquet"
    res.to_parquet(path)
    back = Result.from_parquet(path)
    assert _same(res, back)
    assert np.array_equal(res.checkpoints, back.checkpoints)
    assert back.config == json.loads(json.dumps(res.config))
    assert back.config["seed"] == 11 and back.config["params"]["epsilon"] == 0.5
    assert set(back.versions) == {"bandsim", "numpy", "numba", "kernels_source", "samplers"}
    assert back.summary() == res.summary()


def test_from_parquet_rejects_foreign_files(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1]}), tmp_path / "x.parquet")
    with pytest.raises(ValueError, match="not a bandsim result"):
        Result.from_parquet(tmp_path / "x.parquet")


def test_summary_statistics():
    res = bandsim.simulate("batch-se", instance="hard", arms=5, horizon=100_000,
                           runs=400, seed=2)
    s = res.summary()
    final = res.pseudo_regret[:, -1]
    assert s["regret_mean"] == pytest.approx(final.mean())
    assert s["regret_ci95"] == pytest.approx(1.959964 * final.std(ddof=1) / 20, rel=1e-6)
    assert s["time_avg_regret_mean"] == pytest.approx(final.mean() / 100_000)
    assert s["runs"] == 400 and s["horizon"] == 100_000


def test_every_result_records_its_sampler_implementations(tmp_path):
    """config["samplers"]: the mechanism's declared samplers and the reward model's,
    resolved to their implementations; versions: numpy, numba, every sampler, the
    kernels' source digest. Every built-in declaration resolves."""
    from bandsim.kernels.samplers import SAMPLERS
    from bandsim.registry import algorithms, mechanisms
    from bandsim.runner import sampler_provenance

    res = bandsim.simulate("dist-dp-se", instance="C1", arms=3, epsilon=0.5, horizon=10_000,
                           runs=2, seed=1)
    s = res.config["samplers"]
    assert s["mechanism"] == "dist-dp" and s["declared"][0].startswith("polya")
    assert s["implementations"]["polya"] == SAMPLERS["polya"]
    assert res.versions["samplers"] == SAMPLERS and len(res.versions["kernels_source"]) == 20
    assert {"numpy", "numba", "bandsim"} <= set(res.versions)
    res.to_parquet(tmp_path / "r.parquet")
    back = bandsim.Result.from_parquet(tmp_path / "r.parquet")
    assert back.config["samplers"] == s and back.versions == res.versions
    for algo in algorithms().values():
        prov = sampler_provenance(algo, "bernoulli")
        assert len(prov["implementations"]) >= len(prov["declared"]), algo.name
    assert all(m.samplers for m in mechanisms().values() if m.kind != "none")
