"""Check (h)'s pair classes on synthetic samples (no engine, no compilation).

The k-th release of one tag across arms at different times (each arm's first
release, one epoch's chunk of each arm) is its own pair class per tag: one noise
reused by the first releases of two arms FAILs (h) there, however many other
releases (a tree's levels) the run records; independent noises PASS."""
import numpy as np

from bandsim.kernels import record as R
from bandsim.kernels.codes import LAW_LAPLACE
from bandsim.wholerun import laws
from bandsim.wholerun.pairs import BY_TAG, independence, pair_classes

RUNS, K, LEVELS = 400, 3, 6


def _sample(shared, seed=0):
    """RUNS runs of K arms: each arm's first release (tag −1, at t = arm + 1), then 20
    tree nodes per arm and level (tags 0…LEVELS − 1) at later times; ``shared``: arm 1's
    first release reuses arm 0's noise. Returns (Sample, u)."""
    rng = np.random.default_rng(seed)
    rows, u = [], []
    for run in range(RUNS):
        first = rng.random(K)
        if shared:
            first[1] = first[0]
        for a in range(K):
            rows.append((run, a + 1, a, -1))
            u.append(first[a])
        t = K
        for lvl in range(LEVELS):
            for _ in range(20):
                for a in range(K):
                    t += 1
                    rows.append((run, t, a, lvl))
                    u.append(rng.random())
    rel = np.zeros((len(rows), 7), np.int64)
    for k, (run, t, a, tag) in enumerate(rows):
        rel[k, R.REL_RUN], rel[k, R.REL_T], rel[k, R.REL_ARM] = run, t, a
        rel[k, R.REL_TAG], rel[k, R.REL_LAW], rel[k, R.REL_N] = tag, LAW_LAPLACE, 1
    return laws.Sample(rel=rel, val=np.zeros((len(rows), 3)), runs=RUNS), np.asarray(u)


def test_first_releases_of_the_arms_pair_across_arms_in_their_own_class():
    s, u = _sample(False)
    got = {name: len(i) for name, i, j in pair_classes(s.rel, u)}
    assert got[f"{BY_TAG} (laplace, tag -1)"] == RUNS * (K - 1)
    assert all(f"{BY_TAG} (laplace, tag {g})" in got for g in range(LEVELS))


def test_one_noise_shared_by_two_arms_first_releases_fails_h_in_that_class():
    s, u = _sample(True)
    tests = laws.Tests()
    independence(tests, s, u)
    lines = tests.failures()
    assert lines and all(f.startswith(f"(h) independence: pair class {BY_TAG} (laplace, "
                                      "tag -1)") for f in lines), lines


def test_independent_noises_pass_h_and_the_stated_power_is_of_the_structural_classes():
    s, u = _sample(False, seed=1)
    tests = laws.Tests()
    independence(tests, s, u)
    assert tests.failures() == []
    assert tests.pairs and not any(name.startswith(BY_TAG) for name, _ in tests.pairs)
