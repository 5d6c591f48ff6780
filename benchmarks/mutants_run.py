"""Materialize a mutant, find the algorithms that run its site, run the audits on it.

Every mutant runs in its own tree (a copy of ``bandsim/`` with ``kernels/`` at
``bandsim/kernels``, first on ``PYTHONPATH``, the subprocess started in it) with
its own Numba cache (``NUMBA_CACHE_DIR``) and ``BANDSIM_CACHE_DIR=off`` (no
verdict of a mutant reaches the audit caches). :func:`probe` runs inside that
tree: it checks that the mutated module is the one imported, and returns the
fixed-seed outputs of the affected algorithms (production runs over a few
seeds, one recorded run) as a digest — equal to the unmutated digest means the
mutant is equivalent.

``python -m benchmarks.mutants_run probe coverage|signature ALGO,...`` is the
subprocess side.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .mutants_gen import ROOT, apply

PY = sys.executable
#: Seeds, horizon and runs of the equivalence outputs.
SEEDS, SIG_T, SIG_RUNS = (1, 2, 3), 20_000, 4
#: Horizon (per-step algorithms; the others) and runs of the coverage runs (Numba off).
COV_T, COV_T_EPISODES, COV_RUNS = 3_000, 1_000_000, 2
COV_MEANS = [0.9, 0.5, 0.1]
EPSILON = 0.5
#: Per-batch δ for mechanisms that need one.
DELTA = 1e-6


def materialize(m, where):
    """A tree under ``where`` holding the code with mutant ``m`` applied (None: unmutated)."""
    where = Path(where)
    shutil.copytree(ROOT / "bandsim", where / "bandsim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.parquet"))
    for p in (ROOT / "bandsim").rglob("*.parquet"):
        dst = where / p.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(p, dst)
    shutil.copytree(ROOT / "kernels", where / "bandsim" / "kernels",
                    ignore=shutil.ignore_patterns("__pycache__"))
    if m is not None:
        rel = m.file.replace("kernels/", "bandsim/kernels/", 1) if m.file.startswith(
            "kernels/") else m.file
        (where / rel).write_text(apply(m))
    return where


def env_for(tree, cache):
    """Environment of a subprocess in ``tree`` with its own Numba cache."""
    env = dict(os.environ)
    env.update(PYTHONPATH=f"{tree}{os.pathsep}{ROOT}", NUMBA_CACHE_DIR=str(cache),
               BANDSIM_CACHE_DIR="off", PYTHONDONTWRITEBYTECODE="1", COLUMNS="200")
    env.pop("NUMBA_DISABLE_JIT", None)
    return env


def run(cmd, tree, env, timeout):
    """(exit code or 'timeout', stdout, stderr, seconds) of ``cmd`` run in ``tree``."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or "", e.stderr or "", time.perf_counter() - t0


def _probe_cmd(what, algos):
    return [PY, "-m", "benchmarks.mutants_run", "probe", what, ",".join(algos)]


def coverage(algos, timeout=3600):
    """{algorithm: set of (kernel file, line)} executed by a short simulation and a
    recorded run of each algorithm, with Numba off; cached per algorithm under
    ``.mutants/`` (keyed by the kernels' sources)."""
    src = b"".join(p.read_bytes() for p in sorted((ROOT / "kernels").glob("*.py")))
    cache = ROOT / ".mutants" / f"coverage-{hashlib.sha1(src).hexdigest()[:12]}.json"
    got = json.loads(cache.read_text()) if cache.exists() else {}
    missing = [a for a in algos if a not in got]
    if missing:
        with tempfile.TemporaryDirectory() as d:
            tree = materialize(None, d)
            env = env_for(tree, Path(d) / "numba")
            env["NUMBA_DISABLE_JIT"] = "1"
            code, out, err, _ = run(_probe_cmd("coverage", missing), tree, env, timeout)
            if code != 0:
                raise RuntimeError(f"coverage probe failed: {err[-2000:]}")
            got.update(json.loads(out.splitlines()[-1]))
        cache.parent.mkdir(exist_ok=True)
        cache.write_text(json.dumps(got))
    return {a: {tuple(x) for x in got[a]} for a in algos}


def signature(tree, env, algos, timeout):
    """The outputs digest of ``algos`` in ``tree`` (str), or ``crash: …`` / ``timeout``."""
    code, out, err, _ = run(_probe_cmd("signature", algos), tree, env, timeout)
    if code == "timeout":
        return "timeout"
    if code != 0:
        return "crash: " + (err.strip().splitlines() or ["?"])[-1][:200]
    return out.splitlines()[-1]


def audit_cmds(algo, reg):
    """{check: argv} of the audits of ``algo``: whole-run, sampled, exact (where auditable)."""
    from bandsim.privacy.audit import auditable
    from bandsim.registry import get_algorithm, get_mechanism

    a = get_algorithm(algo)
    extra = []
    mech = get_mechanism(a.mechanism) if a.mechanism else None
    if mech is not None and "delta" in mech.takes:
        extra = ["--delta", str(DELTA)]
    base = [PY, "-m", "bandsim.cli", "audit", algo]
    cmds = {"whole-run": base + ["--whole-run"],
            "sampled": base + ["--epsilon", str(EPSILON), "--sampled", "--draws", "200000"]
            + extra}
    if algo in auditable():
        cmds["exact"] = base + ["--epsilon", str(EPSILON)] + extra
    return cmds


def outcome(code, err):
    """PASS, FAIL, cannot, crash or timeout of one audit's exit."""
    if code == "timeout":
        return "timeout"
    if "Traceback" in err:
        return "crash"
    return {0: "PASS", 1: "FAIL", 2: "cannot"}.get(code, "crash")


def check(m, algos, baseline, timeout=300, checks=("whole-run", "sampled", "exact")):
    """Run one mutant: equivalence first (skipped with ``baseline=None``), then every
    audit of every algorithm.

    Returns
    -------
    dict
        mutant fields plus ``algorithms``, ``status`` (``caught``, ``survived``,
        ``equivalent``, ``crash``, ``not run``), ``caught_by`` (list of "check:algo"),
        ``results`` ({algo: {check: outcome}}), ``seconds``.
    """
    t0 = time.perf_counter()
    row = dict(m.to_dict(), algorithms=list(algos), results={}, caught_by=[])
    with tempfile.TemporaryDirectory(prefix="mutant-") as d:
        tree = materialize(m, Path(d) / "tree")
        env = env_for(tree, Path(d) / "numba")
        sig = "" if baseline is None else signature(tree, env, algos, timeout)
        row["signature"] = sig
        if baseline is not None and sig == baseline:
            row["status"] = "equivalent"
        else:
            for algo in algos:
                res = row["results"][algo] = {}
                for name, cmd in audit_cmds(algo, None).items():
                    if name not in checks:
                        continue
                    code, out, err, _ = run(cmd, tree, env, timeout)
                    res[name] = outcome(code, err)
                    if res[name] == "FAIL":
                        row["caught_by"].append(f"{name}:{algo}")
            outcomes = {o for r in row["results"].values() for o in r.values()}
            row["status"] = ("caught" if row["caught_by"] else
                             "crash" if sig.startswith("crash") or "crash" in outcomes
                             else "survived")
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


# ---------------------------------------------------------------- subprocess side

def _imported_here():
    import bandsim.kernels as k

    here = Path.cwd().resolve()
    if not Path(k.__file__).resolve().is_relative_to(here):
        raise SystemExit(f"mutant tree not imported: bandsim.kernels is {k.__file__}")


def _cov(algos):
    import bandsim
    import bandsim.kernels
    from bandsim import wholerun
    from bandsim.kernels import episodic
    from bandsim.registry import get_algorithm, get_mechanism

    episodic.as_index = lambda fn: fn  # Numba off: the index is a plain function
    kdir = str(Path(bandsim.kernels.__file__).resolve().parent)

    def tracer(frame, event, arg):
        f = frame.f_code.co_filename
        if f.startswith(kdir):
            cur.add((f"kernels/{Path(f).name}", frame.f_lineno))
            return tracer
        return None

    out = {}
    for name in algos:
        cur = set()
        a = get_algorithm(name)
        horizon = COV_T if a.cost == "horizon" else COV_T_EPISODES
        prm = {"epsilon": EPSILON}
        mech = get_mechanism(a.mechanism) if a.mechanism else None
        if mech is not None and "delta" in mech.takes:
            prm["delta"] = DELTA
        sys.settrace(tracer)
        try:
            bandsim.simulate(name, means=COV_MEANS, horizon=horizon, runs=COV_RUNS, seed=1,
                             **prm)
            wholerun.driver.play(name, prm, COV_MEANS, horizon, seed=0)
        finally:
            sys.settrace(None)
        out[name] = sorted(cur)
    return out


def _sig(algos):
    import numpy as np

    import bandsim
    from bandsim import wholerun
    from bandsim.privacy.participation import releases_of
    from bandsim.registry import get_algorithm, get_mechanism

    h = hashlib.sha256()
    for name in algos:
        a = get_algorithm(name)
        prm = {"epsilon": EPSILON}
        mech = get_mechanism(a.mechanism) if a.mechanism else None
        if mech is not None and "delta" in mech.takes:
            prm["delta"] = DELTA
        for seed in SEEDS:
            r = bandsim.simulate(name, instance="C2", arms=3, horizon=SIG_T, runs=SIG_RUNS,
                                 seed=seed, **prm)
            h.update(np.ascontiguousarray(r.pseudo_regret).tobytes())
            h.update(np.ascontiguousarray(r.pulls).tobytes())
            h.update(json.dumps(r.config.get("privacy"), sort_keys=True, default=str).encode())
        run = wholerun.driver.play(name, prm, [0.7, 0.5, 0.3], SIG_T, seed=0)
        for x in (run.rel, run.val, run.pulls):
            h.update(np.ascontiguousarray(x).tobytes())
        try:
            rel = releases_of(a, a.resolve(dict(prm), SIG_T), SIG_T)
            h.update(repr([(r.law, r.scale, r.count, r.epsilon) for r in rel]).encode())
        except Exception as e:  # noqa: BLE001 (the digest records what happened)
            h.update(type(e).__name__.encode())
    return h.hexdigest()[:16]


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        _imported_here()
        what, algos = sys.argv[2], [a for a in sys.argv[3].split(",") if a]
        print(json.dumps(_cov(algos)) if what == "coverage" else _sig(algos))
