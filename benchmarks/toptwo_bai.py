"""Top-two identification (adap-tt, adap-tt-star, tt-ucb): speed against per-pull Python, law table.

Usage::

    .venv/bin/python -m benchmarks.toptwo_bai speed      # ns/pull: engine, reference, authors
    .venv/bin/python -m benchmarks.toptwo_bai c1         # 1,000 runs of adap-tt, C1, ε = 0.1
    .venv/bin/python -m benchmarks.toptwo_bai table [REF_RUNS]   # C1–C4 × ε ∈ {0.1, 1}

``speed``: CPU time (``time.process_time``, one thread, so a loaded machine does
not distort the ratio) per simulated pull of the release-batched engine
(:func:`bandsim.kernels.toptwo.run_shard`, 1,000 runs) and of the per-pull
plain-Python oracle ``tests.reference.top_two_bai`` (20 runs) on C3 (K = 5),
ε = 1, δ = 10⁻², in the same process; and of the authors' released code
(Azize, Jourdan, Al Marjani & Basu, NeurIPS 2023: ``github.com/achraf-azize/DP-BAI``,
``AdaPTopTwo.run``, 3 runs, run unmodified from a scratch copy) when a snapshot of
it is at ``$DPBAI_REPO`` (a git directory; default the local mirror).

``table``: adap-tt (Eq. 5.11) and adap-tt-star (Eq. 5.14) on C1–C4 at
ε ∈ {0.1, 1}, δ = 10⁻², β = 1/2, 1,000 engine runs each (adap-tt-star on C4 at
ε = 0.1: 200 runs, budget 2·10⁷); against (i) REF_RUNS per-pull oracle runs
(two-sample KS on τ, and equality of error rates by Fisher's exact test) and
(ii) :data:`PUBLISHED`, means ± 95 % half-widths of an independent per-pull
implementation written from the same papers (1,000 runs; 200 for the
censoring finding): agreement when |Δmean| ≤ 3 standard errors of the
difference. Writes ``benchmarks/toptwo-latest.json``.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import stats

from bandsim.bai import declarations, simulate_bai
from bandsim.instances import make_instance
from tests.reference import top_two_bai

#: (instance, ε) → (adap-tt mean, half-width, adap-tt-star mean, half-width); None:
#: 178 of 200 runs not stopped by 2·10⁷. Independent per-pull implementation (Numba loop,
#: one pull per iteration, s = 2, σ = 1/2, g = ln n_ℓ, signed challenger), 1,000 runs.
PUBLISHED = {("C1", 1.0): (473605, 3829, 242965, 1938), ("C1", 0.1): (500443, 2783, 376114, 4580),
             ("C2", 1.0): (32612, 321, 21879, 286), ("C2", 0.1): (79329, 1007, 286926, 3005),
             ("C3", 1.0): (11539, 106, 8456, 97), ("C3", 0.1): (31844, 365, 89043, 570),
             ("C4", 1.0): (497113, 4720, 287517, 4305), ("C4", 0.1): (543896, 9181, None, None)}
OUT = Path(__file__).with_name("toptwo-latest.json")


def means(instance):
    return np.asarray(make_instance(instance, 5, 1, "bernoulli").location, float).ravel()


def engine_runs(name, mu, params, runs, budget=10**8, seed=12345):
    """(τ, arm, stopped, CPU seconds) of one thread of the engine."""
    plan = declarations.get(name).plan(params, mu.size, budget)
    rpar = np.ascontiguousarray(np.broadcast_to(mu[None, :, None], (runs, mu.size, 1)))
    tau, arm, st = (np.zeros(runs, np.int64), np.zeros(runs, np.int64),
                    np.zeros(runs, np.bool_))
    plan.run_shard(np.random.default_rng(0), 0, rpar[:1], tau[:1], arm[:1], st[:1])  # warm
    t0 = time.process_time()
    plan.run_shard(np.random.default_rng(seed), 0, rpar, tau, arm, st)
    return tau, arm, st, time.process_time() - t0


def authors(mu, eps, runs=3):
    """CPU µs per pull of the authors' AdaPTopTwo.run (None if no snapshot)."""
    repo = os.environ.get("DPBAI_REPO", "/work/.mirror/achraf-azize+DP-BAI/repo")
    if not Path(repo).exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(f"git --git-dir={repo} archive HEAD | tar -x -C {tmp}", shell=True,
                       check=True)
        sys.path.insert(0, tmp)
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            from algorithms.adapTT import AdaPTopTwo
            from bandit import Bandit

            np.random.seed(1)
            pulls, t0 = 0, time.process_time()
            for _ in range(runs):
                tau, _ = AdaPTopTwo(dict(K=mu.size, eps=eps, delta=0.01, beta=0.5)).run(
                    Bandit(list(mu)))
                pulls += int(tau)
            return (time.process_time() - t0) / pulls * 1e6
        finally:
            os.chdir(cwd)
            sys.path.remove(tmp)


def speed():
    mu = means("C3")
    params = dict(epsilon=1.0, delta=0.01, beta=0.5, threshold="eq-5.11")
    tau, _, _, secs = engine_runs("adap-tt", mu, params, 1000)
    eng = secs / tau.sum() * 1e9
    rng = np.random.default_rng(1)
    t0 = time.process_time()
    ref_pulls = sum(top_two_bai(rng, mu, 0.01, epsilon=1.0)[0] for _ in range(20))
    ref = (time.process_time() - t0) / ref_pulls * 1e9
    auth = authors(mu, 1.0)
    out = dict(instance="C3", epsilon=1.0, engine_ns_per_pull=eng, engine_runs=1000,
               engine_tau_mean=float(tau.mean()), reference_ns_per_pull=ref,
               ratio_reference=ref / eng, authors_ns_per_pull=auth and auth * 1e3,
               ratio_authors=auth and auth * 1e3 / eng)
    print(json.dumps(out, indent=1))
    return out


def c1():
    out = {}
    for threads in (1, None):
        t0 = time.perf_counter()
        res = simulate_bai("adap-tt", instance="C1", arms=5, epsilon=0.1, delta=0.01,
                           runs=1000, seed=12345, threads=threads)
        s = res.summary()
        out[f"threads={threads or os.cpu_count()}"] = dict(
            wall_s=time.perf_counter() - t0, tau_mean=s["tau_mean"], ci=s["tau_ci95"],
            errors=s["errors"], censored=s["censored"], pulls=int(res.tau.sum()))
    print(json.dumps(out, indent=1))
    return out


def table(ref_runs=10):
    rows = []
    for inst in ("C1", "C2", "C3", "C4"):
        mu = means(inst)
        for eps in (0.1, 1.0):
            pub = PUBLISHED[(inst, eps)]
            for name, (pm, ph) in (("adap-tt", pub[:2]), ("adap-tt-star", pub[2:])):
                params = dict(epsilon=eps, delta=0.01, beta=0.5)
                if name == "adap-tt":
                    params["threshold"] = "eq-5.11"
                censor = pm is None
                runs, budget = (200, 2 * 10**7) if censor else (1000, 10**8)
                tau, arm, st, secs = engine_runs(name, mu, params, runs, budget)
                row = dict(algorithm=name, instance=inst, epsilon=eps, runs=runs,
                           stopped=int(st.sum()), errors=int((st & (arm != 0)).sum()),
                           cpu_s=secs, ns_per_pull=secs / tau.sum() * 1e9)
                if st.any():
                    t = tau[st]
                    row.update(tau_mean=float(t.mean()),
                               ci95=float(1.96 * t.std(ddof=1) / math.sqrt(t.size)))
                if censor:
                    row["published"] = "178/200 not stopped by 2e7"
                else:
                    se = math.hypot(row["ci95"], ph) / 1.96
                    row.update(published=pm, published_ci95=ph,
                               z=(row["tau_mean"] - pm) / se,
                               agrees=abs(row["tau_mean"] - pm) <= 3 * se)
                    rng = np.random.default_rng(99)
                    t0 = time.process_time()
                    ref = np.array([top_two_bai(rng, mu, 0.01, epsilon=eps, budget=budget,
                                                threshold="eq-5.14" if name != "adap-tt"
                                                else "eq-5.11") for _ in range(ref_runs)])
                    row.update(ref_runs=ref_runs, ref_tau_mean=float(ref[:, 0].mean()),
                               ref_us_per_pull=(time.process_time() - t0) / ref[:, 0].sum() * 1e6,
                               ks_p=float(stats.ks_2samp(tau, ref[:, 0]).pvalue),
                               ref_errors=int((ref[:, 1] != 0).sum()),
                               fisher_p=float(stats.fisher_exact(
                                   [[row["errors"], runs - row["errors"]],
                                    [int((ref[:, 1] != 0).sum()),
                                     ref_runs - int((ref[:, 1] != 0).sum())]])[1]))
                print(json.dumps(row), flush=True)
                rows.append(row)
    return rows


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "speed"
    prev = json.loads(OUT.read_text()) if OUT.exists() else {}
    if what == "speed":
        prev["speed"] = speed()
    elif what == "c1":
        prev["c1_1000_runs"] = c1()
    elif what == "table":
        prev["table"] = table(int(sys.argv[2]) if len(sys.argv) > 2 else 10)
    else:
        raise SystemExit("usage: python -m benchmarks.toptwo_bai speed|c1|table [REF_RUNS]")
    OUT.write_text(json.dumps(prev, indent=1) + "\n")
