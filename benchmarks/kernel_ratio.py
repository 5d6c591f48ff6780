"""UCB1's engine against its source at another commit, in one process: the kernel alone.

:mod:`benchmarks.engine_ratio` compares two trees, each in its own process;
a difference it finds may come from the engine's code or from the process
(where the machine code and the generator's state land, what else was
imported). This script separates the two for the per-step engine
(:func:`kernels.sequential.run_ucb_shard`, UCB1 with ``--scale 0``, DP-UCB's
tree otherwise): it compiles ``kernels/sequential.py`` of ``--rev`` (default
d95bb9e) beside this tree's, in this process, against this tree's helper
kernels, checks that both give the same outputs, and times them call by call
(alternating which goes first) on the same shard, seed and generator type —
so only the engine's own source differs. ``rec`` is passed as ``None`` to an
engine that takes it.

Usage (from the repository root; ``NUMBA_CACHE_DIR`` keeps the old source's
compiled code out of the tree)::

    NUMBA_CACHE_DIR=/tmp/kr .venv/bin/python benchmarks/kernel_ratio.py --rounds 10
"""
import argparse
import importlib.util
import inspect
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def load_old(rev):
    """``kernels/sequential.py`` at ``rev``, as a module of this tree's kernel package."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:kernels/sequential.py"],
                         capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "sequential_old.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("bandsim.kernels.sequential_old", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rev", default="d95bb9e", help="the commit whose engine source to compare")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--horizon", type=int, default=20_000_000)
    p.add_argument("--runs", type=int, default=6)
    p.add_argument("--scale", type=float, default=0.0, help="tree Laplace scale (0: UCB1)")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.horizon < 10 or a.runs < 1 or a.scale < 0:
        sys.exit("--rounds, --runs: >= 1; --horizon: >= 10; --scale: >= 0")
    from bandsim.kernels import sequential
    from bandsim.kernels.shard import make_shard

    old = load_old(a.rev)
    means = np.array([0.75, 0.7, 0.7, 0.7, 0.7])
    R, K, T = a.runs, means.size, a.horizon
    gaps = np.tile(means.max() - means, (R, 1))
    rpar = np.tile(means[None, :, None], (R, 1, 1))
    cps = np.array([T // 4, T // 2, 3 * T // 4, T], np.int64)

    def call(mod):
        shard = make_shard(gaps, 0, rpar, T, cps, np.zeros((R, 4)), np.zeros((R, K), np.int64),
                           np.zeros((R, K), np.int64))
        extra = (None,) if "rec" in inspect.signature(mod.run_ucb_shard.py_func).parameters \
            else ()
        rng = np.random.default_rng(1)
        t0 = time.process_time()
        mod.run_ucb_shard(rng, shard, 0.0, a.scale, *extra)
        return time.process_time() - t0, shard

    mods = {"this": sequential, a.rev: old}
    outs = {k: call(m)[1] for k, m in mods.items()}  # compile, and compare the outputs
    same = all(np.array_equal(getattr(outs["this"], f), getattr(outs[a.rev], f))
               for f in ("regret", "pulls"))
    got = {k: [] for k in mods}
    for r in range(a.rounds):
        for k in (list(mods) if r % 2 == 0 else list(mods)[::-1]):
            got[k].append(call(mods[k])[0])
    pairs = sorted(x / y for x, y in zip(got["this"], got[a.rev]))
    print(f"run_ucb_shard (scale {a.scale}), T = {T}, {R} runs, {a.rounds} rounds; "
          f"outputs identical: {same}")
    print(f"this {min(got['this']):.4f} s, {a.rev} {min(got[a.rev]):.4f} s (minima); "
          f"ratio of minima {min(got['this']) / min(got[a.rev]):.3f}; paired median "
          f"{statistics.median(pairs):.3f}, range {pairs[0]:.3f}-{pairs[-1]:.3f}")


if __name__ == "__main__":
    main()
