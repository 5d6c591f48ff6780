"""Engine speed of this tree against another checkout, same run, interleaved.

Each built-in engine runs one fixed case (``CASES``: one thread, fixed seed)
in two trees — this one and ``--base`` (another worktree with its own
``.venv``, e.g. ``git worktree add ../base d95bb9e && make -C ../base
.venv/.installed``). One long-lived process per tree (imports and JIT cache
loaded once) times calls of ``bandsim.simulate`` in process CPU time, the
two trees alternating call by call (and which goes first alternating from
round to round), so that both see the same load; a tree's figure for a case
is the minimum over its ``--rounds`` calls, the one least disturbed by other
load on a shared machine. The table gives both minima and their ratio (this
tree / base), and the median and quartiles of the ratios of the calls taken
back to back (round by round): slow drifts of the load cancel in those.

Usage (from the repository root)::

    .venv/bin/python benchmarks/engine_ratio.py --base ../base --rounds 10
    .venv/bin/python benchmarks/engine_ratio.py --base ../base --cases ucb1,dp-se --json out.json
"""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

C1 = [0.75, 0.7, 0.7, 0.7, 0.7]
SPREAD = [0.75, 0.625, 0.5, 0.375, 0.25]
#: name → (algorithm, options of ``bandsim.simulate``): each about 0.2–1 s of CPU.
CASES = {
    "ucb1": ("ucb1", dict(means=C1, horizon=20_000_000, runs=6)),
    "ucb1-gauss": ("ucb1", dict(means=C1, rewards="gaussian", sigma=0.1, horizon=5_000_000,
                                runs=2)),
    "dp-ucb": ("dp-ucb", dict(means=C1, epsilon=0.25, horizon=10_000_000, runs=4)),
    "se": ("se", dict(means=[0.75, 0.75, 0.7, 0.7, 0.7], horizon=20_000_000, runs=1)),
    "batch-se": ("batch-se", dict(instance="C1", arms=5, horizon=50_000_000, runs=30_000)),
    "dp-se": ("dp-se", dict(instance="C1", arms=5, epsilon=0.25, horizon=50_000_000,
                            runs=100_000)),
    "dp-se2": ("dp-se2", dict(instance="C1", arms=5, epsilon=0.25, horizon=50_000_000,
                              runs=40_000)),
    "dp-se2-modified": ("dp-se2-modified", dict(instance="C1", arms=5, epsilon=0.25,
                                                horizon=50_000_000, runs=40_000)),
    "adap-ucb": ("adap-ucb", dict(means=SPREAD, epsilon=1.0, alpha=3.1, horizon=10_000_000,
                                  runs=20_000)),
    "adap-klucb": ("adap-klucb", dict(means=SPREAD, epsilon=1.0, alpha=3.1,
                                      horizon=10_000_000, runs=2000)),
    "dp-klucb": ("dp-klucb", dict(means=SPREAD, epsilon=1.0, alpha=2.0, horizon=10_000_000,
                                  runs=4000)),
    "dp-imed": ("dp-imed", dict(means=SPREAD, epsilon=1.0, alpha=2.0, horizon=10_000_000,
                                runs=20_000)),
    "lazy-dp-ts": ("lazy-dp-ts", dict(means=SPREAD, epsilon=1.0, horizon=300_000, runs=6)),
    "dp-ts": ("dp-ts", dict(means=SPREAD, epsilon=1.0, horizon=200_000, runs=6)),
    "dist-dp-se": ("dist-dp-se", dict(instance="easy", arms=10, epsilon=0.5,
                                      horizon=50_000_000, runs=15_000)),
    "dist-rdp-se": ("dist-rdp-se", dict(instance="easy", arms=10, epsilon=0.5, scale=10.0,
                                        horizon=50_000_000, runs=15_000)),
    "dist-cdp-se": ("dist-cdp-se", dict(instance="easy", arms=10, epsilon=0.5,
                                        horizon=50_000_000, runs=4_000)),
    "cdp-se": ("cdp-se", dict(instance="easy", arms=10, epsilon=0.5, horizon=50_000_000,
                              runs=15_000)),
    "ldp-se": ("ldp-se", dict(instance="easy", arms=10, epsilon=0.5, horizon=50_000_000,
                              runs=8_000)),
    "dist-dp-se-shuffle": ("dist-dp-se-shuffle", dict(instance="easy", arms=10, epsilon=0.5,
                                                      horizon=50_000_000, runs=3_000)),
    "sdp-ae": ("sdp-ae", dict(instance="C1", arms=5, epsilon=1.0, delta=1e-6,
                              horizon=50_000_000, runs=1000)),
    "vb-sdp-ae": ("vb-sdp-ae", dict(instance="C1", arms=5, epsilon=1.0, delta=1e-6,
                                    horizon=50_000_000, runs=12_000)),
}

#: A timing process: reads a case name per line on stdin, answers its CPU seconds (the
#: first request of a case also loads the JIT cache with a small warm-up call).
CHILD = r"""
import json, sys, time
import bandsim
cases, warm = json.loads(sys.argv[1]), set()
for line in sys.stdin:
    algo, kw = cases[line.strip()]
    kw = dict(kw, seed=1, threads=1, checkpoints=4)
    if algo not in warm:
        bandsim.simulate(algo, **dict(kw, horizon=min(kw["horizon"], 10_000), runs=2))
        warm.add(algo)
    t0 = time.process_time()
    bandsim.simulate(algo, **kw)
    print(time.process_time() - t0, flush=True)
"""


class Worker:
    """A long-lived timing process of one tree (its own venv), driven through a pipe."""

    def __init__(self, tree, cases):
        py = Path(tree) / ".venv" / "bin" / "python"
        self.proc = subprocess.Popen([str(py), "-c", CHILD, json.dumps(cases)], cwd=tree,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def time(self, case):
        self.proc.stdin.write(case + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"timing process ended on case {case}")
        return float(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", required=True, help="the other tree (with its own .venv)")
    p.add_argument("--rounds", type=int, default=8, help="timed calls per tree and case")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--json", help="write the minima and ratios here")
    a = p.parse_args(argv)
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        sys.exit(f"--cases: unknown {', '.join(unknown)}; allowed: {', '.join(CASES)}")
    trees = {"this": str(ROOT), "base": str(Path(a.base).resolve())}
    workers = {t: Worker(path, {c: CASES[c] for c in cases}) for t, path in trees.items()}
    rows = {}
    try:
        print(f"{'case':20s} {'this s':>9s} {'base s':>9s} {'ratio':>7s} {'paired':>7s}  "
              "quartiles", flush=True)
        for case in cases:
            for w in workers.values():
                w.time(case)  # warm-up (JIT cache) and one untimed call
            got = {t: [] for t in trees}
            for r in range(a.rounds):  # alternate, and alternate who goes first
                for t in (("this", "base") if r % 2 == 0 else ("base", "this")):
                    got[t].append(workers[t].time(case))
            pairs = sorted(x / y for x, y in zip(got["this"], got["base"]))
            rows[case] = v = dict(this=min(got["this"]), base=min(got["base"]),
                                  ratio=min(got["this"]) / min(got["base"]),
                                  paired=statistics.median(pairs),
                                  paired_iqr=[pairs[len(pairs) // 4], pairs[3 * len(pairs) // 4]])
            print(f"{case:20s} {v['this']:9.4f} {v['base']:9.4f} {v['ratio']:7.3f} "
                  f"{v['paired']:7.3f}  [{pairs[len(pairs) // 4]:.3f}, "
                  f"{pairs[3 * len(pairs) // 4]:.3f}]", flush=True)
    finally:
        for w in workers.values():
            w.close()
    if a.json:
        Path(a.json).write_text(json.dumps(dict(base=trees["base"], rounds=a.rounds,
                                                cases=rows), indent=1) + "\n")


if __name__ == "__main__":
    main()
