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
    .venv/bin/python benchmarks/engine_ratio.py --base ../base --md benchmarks/engine-ratio-latest.md
    .venv/bin/python benchmarks/engine_ratio.py --merge a.json,b.json --md pooled.md

``make bench`` runs this too when ``BANDSIM_BENCH_BASE`` names the base tree
(``BANDSIM_BENCH_ROUNDS`` rounds, default 7), writing ``.benchmarks/engine-ratio.json``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
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
    # the default engine: event-driven in trees that have it (equal in law, not in draws, to
    # the per-round engine of older trees such as d95bb9e; see TREE_OPTIONS)
    "lazy-dp-ts": ("lazy-dp-ts", dict(means=SPREAD, epsilon=1.0, horizon=300_000, runs=6)),
    # the per-round engine in both trees: the same draws and outputs as d95bb9e's
    "lazy-dp-ts-per-round": ("lazy-dp-ts", dict(means=SPREAD, epsilon=1.0, horizon=300_000,
                                                runs=6, engine="per-round")),
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

#: Options of a case that a tree drops when its declaration of the algorithm has no
#: parameter of that name (Lazy-DP-TS's ``engine``: d95bb9e has only the per-round one).
TREE_OPTIONS = ("engine",)

#: A timing process: reads a case name per line on stdin, answers its CPU seconds (the
#: first request of a case also loads the JIT cache with a small warm-up call). Each call
#: runs 0–7 C-level calls deep (a seeded draw): the kernel's stack frame moves by a few
#: hundred bytes from call to call, so that an accident of one tree's stack layout (a
#: spill slot 4 KiB-aliased with the generator's state, say) is not charged to its code.
CHILD = r"""
import json, random, sys, time
import bandsim
from bandsim.registry import get_algorithm
cases, warm = json.loads(sys.argv[1]), set()
optional = json.loads(sys.argv[2])
depths = random.Random(0)


def timed(algo, kw):
    t0 = time.process_time()
    bandsim.simulate(algo, **kw)
    return time.process_time() - t0


def at_depth(d, algo, kw):  # d C-level calls deeper: the kernel's stack frame moves
    return timed(algo, kw) if d == 0 else next(map(at_depth, [d - 1], [algo], [kw]))


for line in sys.stdin:
    algo, kw = cases[line.strip()]
    declared = {p.name for p in get_algorithm(algo).params}
    kw = {k: v for k, v in kw.items() if k not in optional or k in declared}
    kw = dict(kw, seed=1, threads=1, checkpoints=4)
    if line not in warm:
        bandsim.simulate(algo, **dict(kw, horizon=min(kw["horizon"], 10_000), runs=2))
        warm.add(line)
    print(at_depth(depths.randrange(8), algo, kw), flush=True)
"""


class Worker:
    """A long-lived timing process of one tree (its own venv), driven through a pipe."""

    def __init__(self, tree, cases):
        py = Path(tree) / ".venv" / "bin" / "python"
        self.proc = subprocess.Popen([str(py), "-c", CHILD, json.dumps(cases),
                                      json.dumps(TREE_OPTIONS)], cwd=tree,
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


#: A case is flagged when its ratio of minima or its paired median exceeds this.
LIMIT = 1.03

NOTES = """\
Ratios are this tree / base in process CPU seconds of one `bandsim.simulate` call (one
thread, seed 1); the two trees alternate call by call and which goes first alternates
from round to round. *ratio of minima*: a tree's fastest call over the rounds, the one
least disturbed by other load. *paired*: the ratios of the calls taken back to back,
their median, quartiles and extremes (the spread is the noise of the shared machine).
A case is flagged (`>3 %`) when the ratio of minima or the paired median is above
{limit}. `lazy-dp-ts` runs each tree's default engine: the event-driven one where the
tree has it (equal in law to the per-round engine, not in draws), so its ratio is the
speed-up a user sees, not a like-for-like comparison; `lazy-dp-ts-per-round` compares
the same per-round engine (same draws and outputs as d95bb9e).
"""


def _git(tree, *args):
    try:
        return subprocess.run(["git", "-C", tree, *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def summarise(got):
    """Minima, their ratio and the paired ratios of one case's calls (``got``: tree → CPU
    seconds, call by call, the two lists taken back to back)."""
    pairs = sorted(x / y for x, y in zip(got["this"], got["base"]))
    return dict(this=min(got["this"]), base=min(got["base"]),
                ratio=min(got["this"]) / min(got["base"]), paired=statistics.median(pairs),
                paired_iqr=[pairs[len(pairs) // 4], pairs[3 * len(pairs) // 4]],
                paired_range=[pairs[0], pairs[-1]], rounds=len(pairs), calls=got)


def merge(paths):
    """One report pooling the calls of several (``--json`` files of runs against the same
    base): per case, every run's calls concatenated and summarised again."""
    reports = [json.loads(Path(p).read_text()) for p in paths]
    calls = {}
    for rep in reports:
        for case, v in rep["cases"].items():
            got = calls.setdefault(case, {"this": [], "base": []})
            for t in got:
                got[t] += v["calls"][t]
    runs = [run for rep in reports for run in rep["runs"]]
    return dict(base=reports[0]["base"], runs=runs,
                cases={c: summarise(got) for c, got in calls.items()})


def markdown(report, command):
    """The report as Markdown: provenance, the notes and one row per case (str)."""
    out = ["# Engine speed against a base tree, same run",
           "",
           f"Written by (repository root): `{command}`",
           "",
           f"Base: `{report['base']}`. Runs pooled here (each interleaved, same process per "
           "tree):",
           ""]
    for run in report["runs"]:
        out.append(f"- `{run['command']}` — this tree `{run['this_commit']}`, base "
                   f"`{run['base_commit']}`, {run['date']}, load average {run['load'][0]} at "
                   f"the start, {run['load'][1]} at the end (2 vCPUs, shared)")
    out += ["",
            NOTES.format(limit=LIMIT),
            "| case | rounds | this s (min) | base s (min) | ratio of minima | paired median "
            "| paired quartiles | paired min–max | flag |",
            "|---|---:|---:|---:|---:|---:|---|---|---|"]
    for case, v in report["cases"].items():
        flag = ">3 %" if max(v["ratio"], v["paired"]) > LIMIT else ""
        out.append(f"| {case} | {v['rounds']} | {v['this']:.4f} | {v['base']:.4f} | "
                   f"{v['ratio']:.3f} | {v['paired']:.3f} | "
                   f"{v['paired_iqr'][0]:.3f}–{v['paired_iqr'][1]:.3f} | "
                   f"{v['paired_range'][0]:.3f}–{v['paired_range'][1]:.3f} | {flag} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", help="the other tree (with its own .venv)")
    p.add_argument("--merge", help="no timing: pool these comma-separated --json files of "
                                   "earlier runs into one table (--json, --md)")
    p.add_argument("--rounds", type=int, default=8, help="timed calls per tree and case")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--json", help="write the minima and ratios here")
    p.add_argument("--md", help="write them as a Markdown table here (with the command)")
    a = p.parse_args(argv)
    command = " ".join([".venv/bin/python benchmarks/engine_ratio.py", *(
        argv if argv is not None else sys.argv[1:])])
    if a.merge:
        write(merge([x for x in a.merge.split(",") if x]), a, command)
        return
    if not a.base:
        sys.exit("--base: required (a worktree with its own .venv), unless --merge")
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(CASES))
    if unknown:
        sys.exit(f"--cases: unknown {', '.join(unknown)}; allowed: {', '.join(CASES)}")
    if a.rounds < 1:
        sys.exit(f"--rounds: must be >= 1, got {a.rounds}")
    if not (Path(a.base) / ".venv" / "bin" / "python").exists():
        sys.exit(f"--base: {a.base} has no .venv/bin/python (a worktree with its own venv)")
    trees = {"this": str(ROOT), "base": str(Path(a.base).resolve())}
    workers = {t: Worker(path, {c: CASES[c] for c in cases}) for t, path in trees.items()}
    rows = {}
    load0 = os.getloadavg()[0]
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
            rows[case] = v = summarise(got)
            print(f"{case:20s} {v['this']:9.4f} {v['base']:9.4f} {v['ratio']:7.3f} "
                  f"{v['paired']:7.3f}  [{v['paired_iqr'][0]:.3f}, {v['paired_iqr'][1]:.3f}]",
                  flush=True)
    finally:
        for w in workers.values():
            w.close()
    run = dict(command=command, rounds=a.rounds,
               this_commit=_git(str(ROOT), "describe", "--always", "--dirty"),
               base_commit=_git(trees["base"], "describe", "--always", "--dirty"),
               date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               load=[round(load0, 2), round(os.getloadavg()[0], 2)])
    write(dict(base=trees["base"], runs=[run], cases=rows), a, command)


def write(report, a, command):
    """Write ``report`` to ``--json`` and, as Markdown, to ``--md`` (either may be unset)."""
    for out in (a.json, a.md):
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    if a.md:
        Path(a.md).write_text(markdown(report, command))

if __name__ == "__main__":
    main()
