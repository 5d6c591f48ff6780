"""Fixed-seed output hashes of a grid covering every algorithm and reward model.

``python -m tests.golden`` prints, as JSON, each configuration's key and the
SHA-256 of its pseudo-regret and pull counts (``--update`` also stores them in
``tests/data/golden_outputs.json`` for the installed numba version);
``tests/test_golden.py`` checks the short-horizon half on every test run. Used to show that a refactor
keeps every simulation bit-identical, and (through ``tests/data/golden.json``)
to flag a change of the random streams, e.g. a new Numba binomial sampler.
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

#: (algorithm, extra params) — every algorithm of the catalogue.
ALGOS = [
    ("ucb1", {}), ("se", {}), ("batch-se", {}), ("dp-ucb", {"epsilon": 0.5}),
    ("dp-se", {"epsilon": 0.5}), ("dp-se2", {"epsilon": 0.5}),
    ("dp-se2-modified", {"epsilon": 0.5}),
    ("sdp-ae", {"epsilon": 1.0, "delta": 1e-6}), ("vb-sdp-ae", {"epsilon": 1.0, "delta": 1e-6}),
    ("dist-dp-se", {"epsilon": 0.5}), ("dist-rdp-se", {"epsilon": 0.5}),
    ("dist-cdp-se", {"epsilon": 0.5}), ("cdp-se", {"epsilon": 0.5}),
    ("ldp-se", {"epsilon": 0.5}), ("dist-dp-se-shuffle", {"epsilon": 0.5}),
    ("adap-ucb", {"epsilon": 0.5}), ("adap-klucb", {"epsilon": 0.5}),
    ("dp-klucb", {"epsilon": 0.5}), ("dp-imed", {"epsilon": 0.5}),
    ("lazy-dp-ts", {"epsilon": 0.5}), ("dp-ts", {"epsilon": 0.5}),
]


def instances():
    from bandsim.instances import categorical_instance

    cat = categorical_instance([[0.0, 0.5, 1.0]] * 3,
                               [[0.1, 0.4, 0.5], [0.2, 0.4, 0.4], [0.25, 0.4, 0.35]])
    return [("C2-bernoulli", dict(instance="C2", arms=4)),
            ("easy-gaussian", dict(instance="easy", arms=3, rewards="gaussian", sigma=0.1)),
            ("categorical", dict(instance=cat))]


def digest(res):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(res.pseudo_regret).tobytes())
    h.update(np.ascontiguousarray(res.pulls).tobytes())
    return h.hexdigest()[:24]


def grid(horizons=(20_000, 2_000_000), runs=8, seed=7):
    """Yield (key, hash) for every configuration of the grid."""
    import bandsim
    from bandsim.errors import ConfigError

    for name, params in ALGOS:
        for label, inst in instances():
            for horizon in horizons:
                try:
                    res = bandsim.simulate(name, horizon=horizon, runs=runs, seed=seed,
                                           threads=1, **inst, **params)
                except ConfigError as err:  # a reward model the algorithm does not support
                    if err.field != "rewards":
                        raise
                    continue
                yield f"{name}/{label}/T={horizon}", digest(res)


STORED = Path(__file__).parent / "data" / "golden_outputs.json"


def numba_version():
    import numba

    return ".".join(numba.__version__.split(".")[:2])


def stored():
    """key → hash recorded for the installed numba version (empty if none)."""
    return json.loads(STORED.read_text())["outputs"].get(numba_version(), {})


if __name__ == "__main__":
    out = dict(grid())
    if "--update" in sys.argv[1:]:
        data = json.loads(STORED.read_text())
        data["outputs"][numba_version()] = out
        STORED.write_text(json.dumps(data, indent=1) + "\n")
    json.dump(out, sys.stdout, indent=1)
    print()
