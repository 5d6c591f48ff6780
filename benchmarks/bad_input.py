"""Bad input fails closed: run every known bad input and print what bandsim says.

``python -m benchmarks.bad_input [--markdown]`` runs each case in a fresh
process (address space capped at 4 GiB, so a case that would allocate
without bound fails fast instead of taking the machine) and prints one row
per case: the exit status and the first line bandsim prints on stderr. The
contract (README, "Bad input"): exit status 2 and one line naming the field
and its allowed range, before any work; never a traceback.

API cases call :func:`bandsim.simulate` / :func:`bandsim.privacy.audit.audit`;
a :class:`bandsim.ConfigError` is printed as ``error: …`` with status 2, any
other exception as its type and message with status 1 (a bug).
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

#: Address-space cap of every case (bytes).
MEMORY_CAP = 4 << 30
#: Seconds a case may take.
TIMEOUT = 300

RUN = ["run"]
C1 = ["--instance", "C1", "--arms", "3"]

#: (label, kind, argv or Python source)
CASES = [
    ("--horizon inf", "cli", RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "inf"]),
    ("--horizon 1e400", "cli", RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e400"]),
    ("--epsilon inf (dp-se)", "cli", RUN + ["dp-se", *C1, "--epsilon", "inf", "--horizon", "1e5"]),
    ("--epsilon 1e-300 (dp-se)", "cli",
     RUN + ["dp-se", *C1, "--epsilon", "1e-300", "--horizon", "1e5"]),
    ("--epsilon 1e-16 (dp-se, K = 5: pulls wrapped to ±1.6e18)", "cli",
     RUN + ["dp-se", "--instance", "C1", "--arms", "5", "--epsilon", "1e-16", "--horizon", "1e5",
            "--runs", "4", "--json"]),
    ("--out into a missing directory", "cli",
     RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5", "--runs", "10",
            "--out", "{tmp}/missing/dir/r.parquet"]),
    ("--out newdir/ (one config)", "cli",
     RUN + ["batch-se", *C1, "--horizon", "1e4", "--runs", "4", "--out", "{tmp}/newdir/",
            "--json"]),
    ("--scheduler local (dask)", "cli",
     ["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--runs", "2", "--horizon", "1e4",
      "--backend", "dask", "--scheduler", "local"]),
    ("reproduce --runs 0", "cli", ["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--runs", "0"]),
    ("reproduce --horizon 0", "cli",
     ["reproduce", "thesis-6.3", "--out", "{tmp}/rep", "--horizon", "0"]),
    ("--epsilon , (run)", "cli", RUN + ["dp-se", *C1, "--epsilon", ",", "--horizon", "1e4"]),
    ("--epsilon , (audit)", "cli", ["audit", "dist-dp-se", "--epsilon", ",", "--batch-size", "64"]),
    ("--means with --instance", "cli",
     RUN + ["batch-se", "--instance", "C1", "--means", "0.9,0.1", "--horizon", "1e4",
            "--runs", "4"]),
    ("2-D means list (API)", "api",
     "bandsim.simulate('batch-se', means=[[0.9, 0.1], [0.5, 0.4]], horizon=10**4, runs=4)"),
    ("means as a string (API)", "api",
     "bandsim.simulate('batch-se', means='0.9,0.1', horizon=10**4, runs=4)"),
    ("instance_file=3 (API)", "api",
     "bandsim.simulate('batch-se', instance_file=3, horizon=10**4, runs=4)"),
    ("growth=inf (API)", "api",
     "bandsim.simulate('dist-dp-se', instance='C1', arms=3, epsilon=1, growth=float('inf'), "
     "horizon=10**4, runs=4)"),
    ("scale=inf (API)", "api",
     "bandsim.simulate('dist-rdp-se', instance='C1', arms=3, epsilon=1, scale=float('inf'), "
     "horizon=10**4, runs=4)"),
    ("an unregistered Algorithm object as the name (API)", "api",
     "import dataclasses; bandsim.simulate(dataclasses.replace(bandsim.registry.get_algorithm("
     "'batch-se'), name='my-se'), instance='C1', arms=3, horizon=10**4, runs=4)"),
    ("dist-cdp-se --scale 1 (eager audit: PmfTooLarge)", "cli",
     RUN + ["dist-cdp-se", "--means", "0.1,0", "--epsilon", "0.1", "--scale", "1",
            "--horizon", "1e5", "--runs", "4", "--json"]),
    ("sdp-ae --epsilon 178", "cli",
     RUN + ["sdp-ae", *C1, "--epsilon", "178", "--delta", "1e-6", "--horizon", "1e5",
            "--runs", "4", "--json"]),
    ("vb-sdp-ae --epsilon 200", "cli",
     RUN + ["vb-sdp-ae", *C1, "--epsilon", "200", "--delta", "1e-6", "--horizon", "1e5",
            "--runs", "4", "--json"]),
    ("sdp-ae --delta 1e-310", "cli",
     RUN + ["sdp-ae", *C1, "--epsilon", "0.5", "--delta", "1e-310", "--horizon", "1e5",
            "--runs", "4", "--json"]),
    ("dp-ucb --epsilon 1e-306 (Γ = ∞)", "cli",
     RUN + ["dp-ucb", *C1, "--epsilon", "1e-306", "--horizon", "1e4", "--runs", "2"]),
    ("sdp-ae --epsilon 1e-6 (24 GB)", "cli",
     RUN + ["sdp-ae", *C1, "--epsilon", "1e-6", "--delta", "1e-6", "--horizon", "1e7",
            "--runs", "4"]),
    ("dist-cdp-se --scale 3000 (MemoryError)", "cli",
     RUN + ["dist-cdp-se", *C1, "--epsilon", "1", "--scale", "3000", "--horizon", "1e9",
            "--runs", "4", "--json"]),
    ("--runs 1e8", "cli", RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5",
                                 "--runs", "1e8"]),
    ("--runs 1e7 (9.4 GiB of outputs)", "cli",
     RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e5", "--runs", "1e7"]),
    ("audit: PmfTooLarge (dist-cdp-se, s = 1, n = 65,536)", "cli",
     ["audit", "dist-cdp-se", "--epsilon", "0.1", "--batch-size", "65536", "--scale", "1"]),
    ("audit: PmfTooLarge (dist-rdp-se, ε = 1e7, s = 1e3)", "cli",
     ["audit", "dist-rdp-se", "--epsilon", "1e7", "--batch-size", "64", "--scale", "1e3"]),
    ("dist-rdp-se --scale 1e5 (Skellam μ > 2^52)", "cli",
     RUN + ["dist-rdp-se", *C1, "--epsilon", "1", "--scale", "1e5", "--horizon", "1e7"]),
    ("dist-cdp-se --scale 1e14 (σ² > 2^90)", "cli",
     RUN + ["dist-cdp-se", *C1, "--epsilon", "1", "--scale", "1e14", "--horizon", "1e3"]),
    ("cdp-se --epsilon 1e-15 (q < 2^-46)", "cli",
     RUN + ["cdp-se", *C1, "--epsilon", "1e-15", "--horizon", "1e5"]),
    ("audit --json with an infinite exact ε (sdp-ae, ε = 100, n = 1)", "cli",
     ["audit", "sdp-ae", "--epsilon", "100", "--delta", "1e-6", "--batch-size", "1", "--json"]),
    ("run --runs 1 --json (NaN CI)", "cli",
     RUN + ["batch-se", *C1, "--horizon", "1e4", "--runs", "1", "--json"]),
]

API_WRAPPER = """
import sys
import bandsim, bandsim.mechanisms, bandsim.registry
try:
    {code}
except bandsim.ConfigError as e:
    print(f"error: {{e}}", file=sys.stderr)
    sys.exit(2)
except Exception as e:
    print(f"{{type(e).__name__}}: {{e}}", file=sys.stderr)
    sys.exit(1)
print("ok (no error)", file=sys.stderr)
"""


def _limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_case(kind, spec, tmp):
    """(exit status, first line of stderr (or stdout), seconds)."""
    if kind == "cli":
        cmd = [sys.executable, "-m", "bandsim.cli"] + [a.replace("{tmp}", tmp) for a in spec]
    else:
        cmd = [sys.executable, "-c", API_WRAPPER.format(code=spec)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                           preexec_fn=_limit, cwd=tmp,
                           env={**os.environ, "COLUMNS": "200"})
    except subprocess.TimeoutExpired:
        return None, f"still running after {TIMEOUT} s", TIMEOUT
    secs = time.perf_counter() - t0
    lines = [x.strip() for x in p.stderr.splitlines() if x.strip() and "━━" not in x]
    tb = any(x.startswith("Traceback") for x in lines)
    if tb:  # the exception line, last
        line = "TRACEBACK: " + lines[-1]
    elif lines:
        line = " ".join(lines) if len(lines) <= 3 else lines[0]
    else:
        line = "(stdout) " + _stdout_line(p.stdout)
    return p.returncode, line, secs


def _stdout_line(text):
    """The gist of a run's standard output: JSON's key figures, or its last line."""
    import json

    try:
        d = json.loads(text)
    except ValueError:
        out = [x.strip() for x in text.splitlines() if x.strip()]
        return out[-1] if out else ""
    d = d[0] if isinstance(d, list) else d
    keys = ("algorithm", "regret_mean", "regret_ci95", "out", "verdict", "passed")
    shown = {k: d[k] for k in keys if k in d}
    if "rows" in d:
        shown["exact"] = [r["exact"] for r in d["rows"][:2]]
    return "strict JSON " + json.dumps(shown, ensure_ascii=False)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    only = [a for a in argv if not a.startswith("--")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, kind, spec in CASES:
            if only and not any(o in label for o in only):
                continue
            rc, line, secs = run_case(kind, spec, tmp)
            rows.append((label, rc, line, secs))
            print(f"{label} | {rc} | {line} | {secs:.1f} s", file=sys.stderr, flush=True)
    print("| input | exit | what bandsim prints | s |")
    print("|---|---|---|---|")
    for label, rc, line, secs in rows:
        print(f"| {label} | {rc} | {line.replace('|', '/')} | {secs:.1f} |")


if __name__ == "__main__":
    main()
