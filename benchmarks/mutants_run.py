"""Materialize a mutant, find the algorithms whose outputs it changes, run their audits.

Every mutant runs in its own tree (a copy of ``bandsim/`` with ``kernels/`` at
``bandsim/kernels``, first on ``PYTHONPATH``, the subprocess started in it)
with ``BANDSIM_CACHE_DIR=off`` (no verdict of a mutant reaches the audit
caches). The tree lives at one fixed path and its Numba cache is the warm
baseline cache without the kernels the mutant can reach
(:mod:`benchmarks.mutants_cache`): only those recompile. :func:`probe` runs
inside the tree: it checks that the mutated module is the one imported and
returns, per algorithm, a digest of fixed-seed outputs (production runs over
a few seeds, one recorded run, the declared releases and the accountant's
ε) — an algorithm whose digest equals the unmutated one is not affected; a
mutant that affects none is *equivalent* (at the probe's seeds and horizons).

``python -m benchmarks.mutants_run probe ALGO,...`` is the subprocess side.
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

from .mutants_cache import harvest, pin_digest, prepare, seed, stale
from .mutants_gen import ROOT, apply

PY = sys.executable
#: Seeds, horizons (per-step algorithms; the others, whose first batches can exceed
#: 20,000 pulls: the shuffle model's n is ~8,000 at ε = 0.5) and runs of the
#: equivalence outputs; the recorded run is at the smaller of the two.
SEEDS, SIG_T, SIG_T_EPISODES, SIG_RUNS = (1, 2), 20_000, 1_000_000, 3
SIG_T_RECORD = 100_000
EPSILON = 0.5
#: The probe's seeds and ε, overridden for :mod:`benchmarks.mutants_equiv` (more seeds,
#: other ε) through the environment of the probe subprocess.
SEEDS = tuple(int(x) for x in os.environ.get("BANDSIM_MUTANTS_SEEDS", "").split(",") if x) or SEEDS
PROBE_EPSILON = float(os.environ.get("BANDSIM_MUTANTS_EPSILON") or EPSILON)
SIG_T = int(os.environ.get("BANDSIM_MUTANTS_HORIZON") or SIG_T)
#: The second ε of the whole-run audit (check ``whole-run-eps8``).
WIDE_EPSILON = 8.0
#: Per-batch δ for mechanisms that need one (and the accountant check's target δ).
DELTA = 1e-6
#: Batches of the returning user of the accountant check.
RETURNING = 3
#: The fixed place of the mutant tree and of the baseline Numba cache (one table at a time).
#: ``BANDSIM_MUTANTS_WORK`` overrides it (two tables at once need two places).
WORK = Path(os.environ.get("BANDSIM_MUTANTS_WORK") or Path(tempfile.gettempdir()) / (
    f"bandsim-mutants-{os.getuid()}-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]}"))


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
    pin_digest(where / "bandsim" / "kernels" / "_jit.py")
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


def _probe_cmd(algos, accountant=False):
    return ([PY, "-m", "benchmarks.mutants_run", "probe", ",".join(algos)]
            + (["accountant"] if accountant else []))


def signature(tree, env, algos, timeout, accountant=False):
    """({algorithm: outputs digest (str) or ``crash: …``}, set of kernel modules whose
    kernels ran) of ``algos`` in ``tree``; every algorithm ``timeout`` or ``crash: …``
    (and no module known) when the probe itself fails. ``accountant``: each digest also
    covers the returning-user accountant's compositions and calibrations."""
    code, out, err, _ = run(_probe_cmd(algos, accountant), tree, env, timeout)
    if code == "timeout":
        return dict.fromkeys(algos, "timeout"), None
    if code != 0:
        return (dict.fromkeys(algos, "crash: " + (err.strip().splitlines() or ["?"])[-1][:200]),
                None)
    got = json.loads(out.splitlines()[-1])
    return got["digests"], set(got["ran"])


def audit_cmds(algo, reg):
    """{check: argv} of the audits of ``algo``: whole-run, sampled, exact (where auditable),
    the accountant's two checks against dp-accounting (where accountable: a per-batch ε
    composed over B = :data:`RETURNING` batches, ``accountant``; the per-batch ε that meets
    a total, ``accountant-cal``) and the whole-run audit at ε = :data:`WIDE_EPSILON`."""
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
    # the whole-run audit at a large ε: a change the optimistic shift or a clip hides at
    # ε = 0.5 (the engine reading a true reward that the shift then saturates) shows there
    cmds["whole-run-eps8"] = base + ["--whole-run", "--epsilon", str(WIDE_EPSILON)]
    from bandsim.privacy.accountant import accountable

    if algo in accountable():  # the returning-user accountant (B = 3)
        # a per-batch δ below the target's share (B δ < target δ): a composition that
        # can meet the target, so that one batch fewer or more moves a total it reports
        cmds["accountant"] = base + ["--epsilon", str(EPSILON), "--returning", str(RETURNING),
                                     "--target-delta", str(DELTA)] + (
            ["--delta", str(DELTA / (10 * RETURNING))] if extra else [])
        # the calibration the other way: the per-batch ε meeting a total (ε, δ), checked
        # against dp-accounting's composition of the calibrated batches
        cmds["accountant-cal"] = base + ["--returning", str(RETURNING), "--target-epsilon",
                                         str(RETURNING * EPSILON), "--target-delta", str(DELTA)]
    return cmds


def outcome(code, err):
    """PASS, FAIL, cannot, crash or timeout of one audit's exit."""
    if code == "timeout":
        return "timeout"
    if "Traceback" in err:
        return "crash"
    return {0: "PASS", 1: "FAIL", 2: "cannot"}.get(code, "crash")


def fail_line(text):
    """The line of an audit's output that says why it FAILs — the first starting with
    FAIL (the whole-run audit's one line per failure), else the first saying FAIL — (str,
    ≤ 240 characters)."""
    lines = text.splitlines()
    for line in [x for x in lines if x.strip().startswith("FAIL")] + lines:
        if "FAIL" in line:
            return " ".join(line.split())[:240]
    return ""


def check(m, algos, baseline, timeout=300, checks=("whole-run", "sampled", "exact",
                                                   "accountant", "accountant-cal",
                                                   "whole-run-eps8"),
          max_algos=2, engines=None, all_checks=False, work=WORK):
    """Run one mutant: the per-algorithm output digests first (``baseline=None``: skip,
    audit every algorithm of ``algos``), then the audits of at most ``max_algos`` of the
    algorithms it affects (one per engine first), checks in the order given, stopping at
    the first FAIL unless ``all_checks``. ``work``: the fixed directory of the tree and
    of the baseline cache (``work/numba-base``, seeded from the repository's cache).

    Returns
    -------
    dict
        mutant fields plus ``algorithms`` (those audited), ``affected``, ``status``
        (``caught``, ``survived``, ``equivalent``, ``crash``), ``caught_by`` (list of
        "check:algo"), ``why`` (the first FAIL line), ``results`` ({algo: {check:
        outcome}}), ``seconds``.
    """
    t0 = time.perf_counter()
    row = dict(m.to_dict(), algorithms=[], affected=[], results={}, caught_by=[])
    drop = stale(m.file)
    work = Path(work)
    tree, cache, base = work / "tree", work / "numba", work / "numba-base"
    if tree.exists():
        shutil.rmtree(tree)
    materialize(m, tree)
    seed(base, tree)
    prepare(base, cache, drop)
    env = env_for(tree, cache)
    try:
        if baseline is None:
            row["affected"] = list(algos)
            sig = {}
        else:
            sig, ran = signature(tree, env, algos, timeout, m.cls == "count-1")
            row["affected"] = [a for a in algos if sig[a] != baseline[a]]
            if (not row["affected"] and ran is not None and m.file.startswith("kernels/")
                    and Path(m.file).stem not in ran):
                row["status"] = "not run"  # no kernel of the mutated module ran
        crashed = sorted(a for a in row["affected"] if a in sig and not sig[a].isalnum())
        row["not_audited"] = [a for a in row["affected"] if a in NOT_AUDITED]
        pick, seen = [], set()
        for a in [a for a in row["affected"] if a not in NOT_AUDITED]:  # one per engine first
            e = (engines or {}).get(a, a)
            if e not in seen and a not in crashed:
                seen.add(e)
                pick.append(a)
        pick += [a for a in row["affected"] if a not in pick and a not in crashed
                 and a not in NOT_AUDITED]
        row["algorithms"] = pick[:max_algos]
        if m.file.endswith("accountant.py"):  # only the accountant checks read it
            checks = [c for c in checks if c.startswith("accountant")]
        for algo in row["algorithms"]:
            res = row["results"][algo] = {}
            cmds = audit_cmds(algo, None)
            for name in checks:
                if name not in cmds or (row["caught_by"] and not all_checks):
                    continue
                code, out, err, _ = run(cmds[name], tree, env, timeout)
                res[name] = outcome(code, err)
                if res[name] == "FAIL":
                    row["caught_by"].append(f"{name}:{algo}")
                    row.setdefault("why", fail_line(out + err))
        outcomes = {o for r in row["results"].values() for o in r.values()}
        row["status"] = row.get("status") or ("caught" if row["caught_by"] else
                         "equivalent" if not row["affected"] else
                         "not audited" if not row["algorithms"] and row["not_audited"]
                         and not crashed else
                         "crash" if crashed or "crash" in outcomes else "survived")
        if crashed:
            row["crash"] = {a: sig[a] for a in crashed}
    finally:
        harvest(base, cache, drop)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


# ---------------------------------------------------------------- subprocess side

def _imported_here():
    import bandsim.kernels as k

    here = Path.cwd().resolve()
    if not Path(k.__file__).resolve().is_relative_to(here):
        raise SystemExit(f"mutant tree not imported: bandsim.kernels is {k.__file__}")


def _steady(x):
    """``x`` without its timings (every ``seconds`` key, at any depth)."""
    if isinstance(x, dict):
        return {k: _steady(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, (list, tuple)):
        return [_steady(v) for v in x]
    return x


#: Algorithms whose accountant calibration the probe also digests (one of each path: the
#: declared releases, the exact per-batch views of a shuffle and of a SecAgg mechanism).
CALIBRATED = ("dp-se", "sdp-ae", "dist-rdp-se")


def _accounted(name, h):
    """Feed ``h`` the accountant's composition of ``name`` for a user returning B = 3
    times (and its calibration, for :data:`CALIBRATED`)."""
    from bandsim.privacy.accountant import accountable, calibrate, compose

    if name not in accountable():
        return
    for what, f in (("compose", lambda: compose(name, EPSILON, 1024, 3, DELTA,
                                                 batch_delta=DELTA)),
                    ("calibrate", lambda: calibrate(name, 3, 1.0, DELTA, 1024))):
        if what == "calibrate" and name not in CALIBRATED:
            continue
        try:
            h.update(repr(f()).encode())
        except Exception as e:  # noqa: BLE001 (the digest records what happened)
            h.update(f"{what}: {type(e).__name__}".encode())


#: Private algorithms outside the bandit registry, probed but with no audit yet: a mutant
#: that changes only these is "not audited" (never counted caught). name → engine.
NOT_AUDITED = {"dp-se-bai": "bai"}
#: BAI probe: risk δ, runs, budget (T_max).
BAI_DELTA, BAI_RUNS, BAI_BUDGET = 0.05, 64, 10**7


def _engine_variants(a):
    """Extra parameter sets that select each other engine an algorithm declares (a
    ``engine`` parameter with choices: Lazy-DP-TS's per-round engine besides the default
    event-driven one) — list of dicts."""
    out = []
    for p in a.params:
        if p.name == "engine" and getattr(p, "choices", None):
            out += [{"engine": c} for c in p.choices if c != p.default]
    return out


def _sig_bai(name, h):
    import numpy as np

    from bandsim.bai.runner import simulate_bai

    for seed in SEEDS:
        r = simulate_bai(name, instance="C2", arms=3, budget=BAI_BUDGET, runs=BAI_RUNS,
                         seed=seed, threads=1, epsilon=PROBE_EPSILON, delta=BAI_DELTA)
        for x in (r.tau, r.recommended, r.stopped):
            h.update(np.ascontiguousarray(x).tobytes())


def _sig(algos, accountant=False):
    import numpy as np

    import bandsim
    from bandsim import wholerun
    from bandsim.privacy.participation import releases_of
    from bandsim.registry import get_algorithm, get_mechanism

    import bandsim.runner

    # the whole-run verdict simulate() attaches is one of the checks, run on its own (and
    # carries its own timing): the digest is of what the engine outputs
    bandsim.runner.result_verdict = lambda *a, **k: {"skipped": "mutant probe"}
    out = {}
    for name in algos:
        h = hashlib.sha256()
        if name in NOT_AUDITED:
            try:
                _sig_bai(name, h)
                out[name] = h.hexdigest()[:16]
            except Exception as e:  # noqa: BLE001 (a crash is its outcome)
                out[name] = f"crash: {type(e).__name__}: {str(e)[:160]}"
            continue
        try:
            a = get_algorithm(name)
            prm = {"epsilon": PROBE_EPSILON}
            mech = get_mechanism(a.mechanism) if a.mechanism else None
            if mech is not None and "delta" in mech.takes:
                prm["delta"] = DELTA
            horizon = SIG_T if a.cost == "horizon" else SIG_T_EPISODES
            for seed in SEEDS:
                r = bandsim.simulate(name, instance="C2", arms=3, horizon=horizon,
                                     runs=SIG_RUNS, seed=seed, **prm)
                h.update(np.ascontiguousarray(r.pseudo_regret).tobytes())
                h.update(np.ascontiguousarray(r.pulls).tobytes())
                h.update(json.dumps(_steady(r.config.get("privacy")), sort_keys=True,
                                    default=str).encode())
                for extra in _engine_variants(a):
                    r = bandsim.simulate(name, instance="C2", arms=3, horizon=horizon,
                                         runs=SIG_RUNS, seed=seed, **prm, **extra)
                    h.update(np.ascontiguousarray(r.pseudo_regret).tobytes())
                    h.update(np.ascontiguousarray(r.pulls).tobytes())
            run = wholerun.driver.play(name, prm, [0.7, 0.5, 0.3],
                                       min(horizon, SIG_T_RECORD), seed=0)
            for x in (run.rel, run.val, run.pulls):
                h.update(np.ascontiguousarray(x).tobytes())
            try:
                rel = releases_of(a, a.resolve(dict(prm), horizon), horizon)
                h.update(repr([(r.law, r.scale, r.count, r.epsilon) for r in rel]).encode())
            except Exception as e:  # noqa: BLE001 (the digest records what happened)
                h.update(type(e).__name__.encode())
            if accountant:
                _accounted(name, h)
            out[name] = h.hexdigest()[:16]
        except Exception as e:  # noqa: BLE001 (a crash of one algorithm is its outcome)
            out[name] = f"crash: {type(e).__name__}: {str(e)[:160]}"
    return dict(digests=out, ran=_ran())


def _ran():
    """Kernel modules with a compiled (or cache-loaded) kernel in this process."""
    from numba.core.registry import CPUDispatcher

    ran = set()
    for name, mod in list(sys.modules.items()):
        if not name.startswith("bandsim.kernels."):
            continue
        for obj in vars(mod).values():
            if (isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == name
                    and obj.overloads):
                ran.add(name.rsplit(".", 1)[1])
    return sorted(ran)


if __name__ == "__main__":
    if sys.argv[1:2] == ["probe"]:
        _imported_here()
        print(json.dumps(_sig([a for a in sys.argv[2].split(",") if a],
                              sys.argv[3:4] == ["accountant"])))
