"""The run configuration: typed, frozen, lossless through JSON and Parquet, and its
approximation notes come from the engine that makes them."""
import json
import pickle

import pytest

import bandsim
from bandsim.config import RunConfig


def test_round_trip_is_lossless(tmp_path):
    res = bandsim.simulate("dist-dp-se", means=[0.6, 0.4, 0.2], horizon=20_000, runs=3, seed=2,
                           epsilon=0.5)
    cfg = res.config
    assert isinstance(cfg, RunConfig) and cfg.algorithm == "dist-dp-se" and cfg["seed"] == 2
    again = RunConfig.from_dict(json.loads(json.dumps(dict(cfg))))
    assert again == cfg and dict(again) == dict(cfg)
    res.to_parquet(tmp_path / "r.parquet")
    assert bandsim.Result.from_parquet(tmp_path / "r.parquet").config == cfg
    assert json.loads(json.dumps(cfg)) == dict(cfg)  # still a dict for json and users
    assert pickle.loads(pickle.dumps(cfg)) == cfg  # travels to Dask workers
    for change in (lambda: cfg.__setitem__("seed", 3), lambda: cfg.update(seed=3),
                   lambda: setattr(cfg, "seed", 3), lambda: cfg.pop("seed")):
        with pytest.raises(TypeError, match="frozen"):
            change()
    with pytest.raises(KeyError):
        cfg["no-such-key"]
    with pytest.raises(KeyError, match="horizon"):
        RunConfig({k: v for k, v in cfg.items() if k != "horizon"})
    with pytest.raises(TypeError, match="horizon"):
        RunConfig({**cfg, "horizon": "5e7"})


@pytest.mark.parametrize("algo,clt", [("ucb1", False), ("se", False), ("dp-se", True),
                                      ("batch-se", True)])
def test_the_clt_note_comes_from_engines_that_draw_batch_sums(algo, clt):
    kw = {"epsilon": 1.0} if algo == "dp-se" else {}
    cfg = bandsim.runner.prepare(algo, means=[0.6, 0.4], rewards="gaussian", horizon=10_000,
                                 runs=2, seed=1, **kw).config
    assert ("gaussian_batch_sum" in cfg) == clt
    assert ("gaussian_clt_kolmogorov_bound" in cfg) == clt
    assert cfg["sigma"] == 0.1
