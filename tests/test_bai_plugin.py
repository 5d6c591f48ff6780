"""A researcher's top-two rule, installed as a plug-in, runs through every identification command.

The plug-in is the module of docs/bai-toptwo.md (an empirical-best leader and a
noise-ratio stop, at most 40 lines) in a package found through the entry-point
group ``bandsim.plugins`` (as tests/test_loading.py builds one), with a negative
controls beside it: a stop rule that ignores every threshold (it recommends the
released argmax at the first release; the board must not rank it) and the docs' rule
with 80 % of the declared noise on every episode sum (the whole-run check must FAIL it). One subprocess runs ``list``, ``run``,
``sweep``, ``audit`` (exact, ``--sampled``, ``--whole-run``), ``suite`` and ``plugin check`` through
:func:`bandsim.cli.main`.
"""
import json
import re

from tests.test_docs import BLOCK, ROOT
from tests.test_loading import make_plugin, run

#: The negative control, appended to the docs' module: a stop rule without any threshold.
GREEDY = '''
@numba.njit
def greedy_stop(mt, nt, c):                # recommends the released argmax at once
    return np.argmax(mt)

bandsim.register(TopTwoBAI(name="greedy-tt", summary="stops at the first release",
                           source="tests", params=EB.params, stop=greedy_stop))


class Thin(TopTwoBAI):                     # a 20 % noise deficit on every episode sum
    def _plan(self, params, arms, budget):
        plan = super()._plan(params, arms, budget)
        plan.tables.fpar[0] *= 0.8
        return plan


bandsim.register(Thin(name="thin-tt", summary="Lap(0.8/ε)", source="tests", params=EB.params,
                      leader=eb_leader, stop=ratio_stop))
'''


def docs_plugin():
    """The plug-in module of docs/bai-toptwo.md ("Plug-in rules"): its first Python block."""
    text = (ROOT / "docs" / "bai-toptwo.md").read_text()
    code = BLOCK.findall(text[text.index("## Plug-in rules"):])[0][1]
    assert len(code.splitlines()) <= 40  # the rule is a plug-in of at most 40 lines
    return code


SCRIPT = r'''
import glob, json, sys, warnings
warnings.simplefilter("ignore")
from bandsim.cli import main
out = sys.argv[1]
open(out + "/s.toml", "w").write('[study]\nruns = 4\nseed = 1\n[grid]\nalgorithm = '
                                 '["eb-tt-demo"]\ninstance = ["C3"]\nepsilon = [1, 2]\n')
codes = [main(["list"]),
         main(["run", "eb-tt-demo", "--instance", "C3", "--arms", "5", "--epsilon", "1",
               "--delta", "0.01", "--runs", "8", "--seed", "1", "--json"]),
         main(["sweep", out + "/s.toml", "--out", out + "/sw"]),
         main(["audit", "eb-tt-demo", "--epsilon", "1", "--whole-run", "--json"]),
         main(["audit", "eb-tt-demo", "--epsilon", "1"]),
         main(["audit", "eb-tt-demo", "--epsilon", "1", "--sampled"]),
         main(["suite", "--quick", "--algorithms", "eb-tt-demo,greedy-tt", "--runs", "12",
               "--out", out + "/suite", "--no-progress"]),
         main(["plugin", "check", "tt-plugin"]),
         main(["audit", "thin-tt", "--epsilon", "1", "--whole-run"])]
board = json.load(open(out + "/suite/bai_board.json"))
print("RESULT " + json.dumps([codes, len(glob.glob(out + "/sw/*.parquet")),
                              [(r["algorithm"], r["instance"], r["epsilon_cell"], r["status"],
                                r["rank"]) for r in board]]))
'''


def test_a_plugin_top_two_rule_runs_through_list_run_sweep_audit_and_suite(tmp_path):
    site = tmp_path / "site"
    make_plugin(site, "tt-plugin", "tt_plugin", docs_plugin() + GREEDY)
    proc = run(site, code=SCRIPT.replace("sys.argv[1]", repr(str(tmp_path))), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    codes, n_swept, board = json.loads(out.rsplit("RESULT ", 1)[1])
    # list, run, sweep, the whole-run, exact and sampled audits (the scale the top-two engine
    # reads from the plug-in's plan) and the suite succeed
    assert codes == [0, 0, 0, 0, 0, 0, 0, 1, 1], (codes, proc.stderr[-2000:])
    assert "eb-tt-demo ε=1 Lap(1): PASS" in out
    assert "eb-tt-demo ε=1 sampled (release primitive): PASS" in out
    # listed in the identification table only (it comes after the regret tables)
    first = out.index("eb-tt-demo")
    assert out.index("best-arm identification, fixed confidence") < first
    assert '"algorithm": "eb-tt-demo"' in out and '"stopped": 8' in out  # run --json
    assert n_swept == 2  # sweep: one file per ε
    assert '"verdict": "PASS"' in out and '"blocks_ok": true' in out and '"scale_ok": true' in out
    # plugin check: the recorded-release audit and a smoke run of each identification rule
    assert re.search(r"algorithm eb-tt-demo +whole-run audit +PASS", out)
    assert re.search(r"algorithm greedy-tt +smoke run +PASS", out)
    # ... and the plug-in with 80 % of the declared noise FAILs it, there and in `audit`
    assert re.search(r"algorithm thin-tt +whole-run audit +FAIL", out)
    assert "thin-tt ε=1: whole-run (record–replay) FAIL" in out
    assert "scale as declared False" in out
    good = [b for b in board if b[0] == "eb-tt-demo"]
    bad = [b for b in board if b[0] == "greedy-tt"]
    assert len(good) == len(bad) == 8  # C1-C4 x epsilon in {0.1, 1}
    assert all(b[3] == "ranked" and b[4] == 1 for b in good), good  # exact audit: PASS
    # the rule that ignores the threshold is wrong far more often than δ: never ranked
    assert all(b[3] == "fails correctness (error rate > δ)" and b[4] is None for b in bad), bad


def test_one_table_two_tasks():
    """Identification declarations share the registry's names but not the regret look-ups."""
    import pytest

    from bandsim import registry
    from bandsim.bai import declarations
    from bandsim.errors import ConfigError

    assert set(declarations.ALGORITHMS) == set(registry.algorithms("identification"))
    assert not set(declarations.ALGORITHMS) & set(registry.algorithms())
    assert registry.is_builtin("adap-tt")  # a plug-in cannot take a built-in's name
    for name in ("adap-tt", "no-such-rule"):  # a regret look-up refuses both, in one line
        with pytest.raises(ConfigError, match=f"algorithm='{name}' is invalid"):
            registry.get_algorithm(name)
