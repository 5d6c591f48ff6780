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

from tests.test_plugin_check import GOOD as PLUGIN  # Dist-DP-SE named {name}

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
    # the bad inputs of the "what a researcher sees must be true" review (its bullets)
    ("plugin check --epsilon -1", "cli", ["plugin", "check", "chk_good", "--epsilon", "-1"]),
    ("plugin check of an algorithm named 'x,y'", "cli", ["plugin", "check", "chk_comma"]),
    ("list to a full stdout (/dev/full)", "sh", "{bandsim} list > /dev/full"),
    ("run --json to a full stdout (/dev/full)", "sh",
     "{bandsim} run batch-se --instance C1 --arms 3 --horizon 1e4 --runs 4 --json > /dev/full"),
    ("run --out into an unwritable directory (/sys)", "cli",
     RUN + ["dp-se", *C1, "--epsilon", "0.5", "--horizon", "1e4", "--runs", "4",
            "--out", "/sys/bandsim/r.parquet"]),
    ("sweep --out an unwritable directory (/sys)", "cli",
     ["sweep", "{tmp}/study.toml", "--out", "/sys/bandsim-sweep"]),
    ("results --consolidate into an unwritable directory", "cli",
     ["results", "/sys/kernel", "--consolidate"]),
    ("ucb1 for 10^13 steps", "cli",
     RUN + ["ucb1", *C1, "--horizon", "1e13", "--runs", "4"]),
    ("dp-ucb for 10^13 steps", "cli",
     RUN + ["dp-ucb", *C1, "--epsilon", "1", "--horizon", "1e13", "--runs", "4"]),
    ("audit --whole-run --horizon 1e8 (dp-ucb: memory guard)", "cli",
     ["audit", "dp-ucb", "--whole-run", "--epsilon", "1", "--horizon", "1e8"]),
    ("a plug-in's plan() raising (run)", "cli:plan",
     RUN + ["plan-raises", *C1, "--epsilon", "1", "--horizon", "1e4", "--runs", "2"]),
    ("a plug-in's plan() raising (audit --sampled)", "cli:plan",
     ["audit", "plan-raises", "--epsilon", "1", "--sampled", "--batch-size", "16"]),
    ("a plug-in's plan() raising (audit --whole-run)", "cli:plan",
     ["audit", "plan-raises", "--epsilon", "1", "--whole-run", "--horizon", "2000"]),
    ("--version with a plug-in hanging at import", "cli:hang", ["--version"]),
    ("audit dp-se with a plug-in hanging at import", "cli:hang",
     ["audit", "dp-se", "--epsilon", "1", "--batch-size", "64"]),
    ("audit --batch-size 1e40 (more users than any horizon)", "cli",
     ["audit", "dp-se", "--epsilon", "1", "--batch-size", "1e40"]),
    ("audit rr-se (randomized response) at n = 2^26", "cli:rr",
     ["audit", "rr-se", "--epsilon", "1", "--batch-size", "67108864"]),
]

#: Files a case reads, written into its temporary directory first.
FILES = {
    "chk_good.py": PLUGIN.format(name="chk-good-se"),
    "chk_comma.py": PLUGIN.format(name="x,y"),  # a name no command line can ask for
    "study.toml": "[study]\nhorizon = 1e4\nruns = 2\nseed = 1\n[grid]\nalgorithm = "
                  "['batch-se']\ninstance = ['C1']\narms = [3]\n",
    # installed plug-ins (a module and its dist-info), one site per case kind
    "plan/plan_raises/__init__.py": """
import dataclasses
import bandsim
def plan(prm, arms, horizon):
    return 1 / 0
bandsim.register(dataclasses.replace(bandsim.registry.get_algorithm("adap-ucb"),
                                     name="plan-raises", plan=plan))
""",
    "plan/plan_raises-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: plan-raises\n"
                                               "Version: 0.1\n",
    "plan/plan_raises-0.1.dist-info/entry_points.txt": "[bandsim.plugins]\n"
                                                       "plan_raises = plan_raises\n",
    "hang/hang_plugin/__init__.py": "import time\ntime.sleep(600)\n",
    "hang/hang_plugin-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: hang-plugin\n"
                                               "Version: 0.1\n",
    "hang/hang_plugin-0.1.dist-info/entry_points.txt": "[bandsim.plugins]\n"
                                                       "hang_plugin = hang_plugin\n",
}

#: Example (e) of docs/plugins.md (randomized response), installed as a plug-in.
RR_PLUGIN = """
import re
from pathlib import Path
doc = Path({docs!r}).read_text()
exec(next(b for b in re.findall(r"```python\\n(.*?)```", doc, re.S) if "def rr_logpmf" in b))
"""

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


def setup(tmp):
    """Write :data:`FILES` and the randomized-response plug-in site into ``tmp``."""
    from pathlib import Path

    for rel, text in FILES.items():
        path = Path(tmp) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    docs = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
    files = {"rr/rr_example/__init__.py": RR_PLUGIN.format(docs=str(docs)),
             "rr/rr_example-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: rr-example\n"
                                                     "Version: 0.1\n",
             "rr/rr_example-0.1.dist-info/entry_points.txt": "[bandsim.plugins]\n"
                                                             "rr_example = rr_example\n"}
    for rel, text in files.items():
        path = Path(tmp) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_case(kind, spec, tmp):
    """(exit status, first line of stderr (or stdout), seconds).

    ``kind``: ``cli`` (argv of ``bandsim``), ``cli:SITE`` (the same with the
    plug-ins installed under ``tmp/SITE`` on the path), ``sh`` (a shell line,
    ``{bandsim}`` the command) or ``api`` (Python source).
    """
    env = {**os.environ, "COLUMNS": "200"}
    if kind.startswith("cli:"):
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(tmp, kind[4:]),
                                             env.get("PYTHONPATH", "")])
        kind = "cli"
    if kind == "cli":
        cmd = [sys.executable, "-m", "bandsim.cli"] + [a.replace("{tmp}", tmp) for a in spec]
    elif kind == "sh":
        cmd = ["bash", "-c", spec.format(bandsim=f"{sys.executable} -m bandsim.cli")]
    else:
        cmd = [sys.executable, "-c", API_WRAPPER.format(code=spec)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT,
                           preexec_fn=_limit, cwd=tmp, env=env)
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
        setup(tmp)
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
