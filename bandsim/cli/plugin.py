"""``bandsim plugin check MODULE_OR_DIST``: is a plug-in ready to be used and ranked?

Loads the plug-in (an installed distribution's ``bandsim.plugins`` entry
points, or an importable module) on its own, with its declarations staged,
then for every declaration: the validation of :func:`bandsim.register`
(numba hooks compiled against their signatures), the exact audit of a batch,
the sampled audit of the kernels that draw it
(:func:`bandsim.privacy.sampled.sampled`), and a smoke run. One line per
check, then a verdict: exit 0 PASS, 1 FAIL, 2 nothing to check (no such
module or distribution).

``--json`` prints one strict JSON list with one object per check: ``target``,
``declaration`` (e.g. ``algorithm my-se``), ``check`` (``load and
validation``, ``validation``, ``exact audit``, ``sampled audit``, ``smoke
run``), ``status`` (``PASS``, ``FAIL`` or a word that is not counted, such as
``n/a``) and ``text``. The verdict is the exit status: FAIL when any check's
status is FAIL.
"""
import argparse
import importlib.util
import json
import math
import sys

from .. import loading, provenance, registry
from ..bai import audit as bai_audit, simulate_bai
from ..errors import ConfigError, check_int
from ..params import BATCH_SIZE, EPSILON
from ..privacy.audit import audit
from ..privacy.sampled import DRAWS, sampled
from ..runner import simulate
from .common import command, one_int, plain, registers, strict_json, wide_console

#: The smoke run: small, fixed, every reward model's default.
SMOKE = dict(instance="C2", arms=3, horizon=10_000, runs=8, seed=1, threads=1)


@registers
def add_parser(sub):
    """Register ``bandsim plugin check``."""
    p = sub.add_parser("plugin", help="check a plug-in: validation, audits, a smoke run")
    psub = p.add_subparsers(dest="plugin_command", required=True)
    c = psub.add_parser("check", help="validate, audit (exact and sampled) and smoke-run a "
                                      "plug-in; exit 0 PASS, 1 FAIL, 2 not found",
                        description=__doc__.strip(),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("target", metavar="MODULE_OR_DIST",
                   help="an installed distribution with bandsim.plugins entry points, or a "
                        "module that registers declarations")
    c.add_argument("--epsilon", type=float, default=1.0, help="ε of the audits (default 1)")
    c.add_argument("--batch-size", type=one_int, default=64,
                   help="users in the audited batch (default 64)")
    c.add_argument("--draws", type=one_int, default=None,
                   help="draws per path of the sampled audit (default: its own, ≥ 10⁶)")
    c.add_argument("--json", action="store_true",
                   help="print one JSON list, one object per check")
    return p


def _unload(match):
    """Forget declarations (and modules) of an earlier load of the checked plug-in."""
    algos = {**registry.algorithms(), **registry.algorithms("identification")}
    names = [n for kind, table in (("algorithm", algos),
                                   ("mechanism", registry.mechanisms()))
             for n in table if not registry.is_builtin(n, kind) and match(registry.origin(n, kind))]
    registry.unregister(*names)


def _drop_modules(tops):
    for name in list(sys.modules):
        if name.split(".")[0] in tops:
            del sys.modules[name]


def load(target):
    """Load ``target`` on its own, its declarations staged and committed.

    Parameters
    ----------
    target : str
        An installed distribution's name or an importable module.

    Returns
    -------
    stages : list
        The committed stages (their declarations: :func:`bandsim.registry.declarations`).
    error : str or None
        The first load or validation failure, in one line (None if none).

    Raises
    ------
    ConfigError
        ``target`` is neither a distribution with ``bandsim.plugins`` entry
        points nor an importable module.
    """
    eps = loading.plugin_entry_points(target)
    if eps:
        dist = provenance.dist_name(eps[0])
        _unload(lambda o: o.get("distribution") == dist)
        _drop_modules({ep.value.split(":")[0].split(".")[0] for ep in eps})
        loaders = [(f"entry point {ep.name} = {ep.value}",
                    lambda ep=ep: loading.load_entry_point(ep)) for ep in eps]
    else:
        try:
            found = importlib.util.find_spec(target) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise ConfigError("target", target, "is neither an installed distribution with "
                                                "bandsim.plugins entry points nor a module")
        top = target.split(".")[0]
        _unload(lambda o: top in (o.get("modules") or []))
        _drop_modules({top})

        def import_module():
            with registry.staged(dict(distribution=provenance.RUN_TIME, version="",
                                      modules=[top], sha256=provenance.source_digest(top))) as st:
                importlib.import_module(target)
            return st
        loaders = [(f"module {target}", import_module)]
    stages = []
    for what, load_one in loaders:
        try:
            stage = load_one()
            registry.commit(stage)
            stages.append(stage)
        except (Exception, SystemExit) as e:
            msg = f"SystemExit {e.code!r}" if isinstance(e, SystemExit) else str(e)
            return stages, f"{what}: {type(e).__name__}: {msg}"
    return stages, None


def _params(algo, epsilon):
    out = {}
    if algo.param("epsilon") is not None:
        out["epsilon"] = epsilon
    if algo.param("delta") is not None and algo.param("delta").required:
        out["delta"] = 1e-6
    return out


def check_algorithm(algo, epsilon, n, draws):
    """The exact audit, sampled audit and smoke run of one plug-in algorithm.

    Parameters
    ----------
    algo : bandsim.Algorithm
    epsilon : float
        ε of the audits (and of the smoke run, when the algorithm takes one).
    n : int
        Users in the audited batch.
    draws : int or None
        Draws per path of the sampled audit (None: its default).

    Returns
    -------
    list of (str, str, str)
        (check, status, text); status ``PASS``, ``FAIL`` or a word that is
        not counted (``n/a``, ``not auditable``, ``cannot sample``).
    """
    if algo.task == "identification":
        return _check_identifier(algo, epsilon)
    out = []
    prm = _params(algo, epsilon)
    mech = registry.get_mechanism(algo.mechanism) if algo.mechanism else None
    if mech is None or not mech.guarantee.private:
        out.append(("exact audit", "n/a", "non-private"))
    elif not mech.auditable:
        out.append(("exact audit", "not auditable", f"mechanism {mech.name} has no exact audit"))
    else:
        try:
            rep = audit(algo.name, prm.get("epsilon", epsilon), n, delta=prm.get("delta"))
            out.append(("exact audit", "PASS" if rep.passed else "FAIL", rep.verdict()))
        except Exception as e:  # a failing audit is the plug-in's failure
            out.append(("exact audit", "FAIL", f"{type(e).__name__}: {e}"))
    if mech is not None and mech.guarantee.private and mech.auditable:
        try:
            rep = sampled(algo.name, prm.get("epsilon", epsilon), n, draws=draws or DRAWS,
                          delta=prm.get("delta"))
            status = {0: "PASS", 1: "FAIL", 2: "cannot sample"}[rep.code]
            out.append(("sampled audit", status, rep.verdict()))
        except Exception as e:
            out.append(("sampled audit", "FAIL", f"{type(e).__name__}: {e}"))
    try:
        res = simulate(algo.name, **SMOKE, **prm)
        regret = res.summary()["regret_mean"]
        ok = (int(res.pulls.sum()) == SMOKE["runs"] * SMOKE["horizon"] and math.isfinite(regret))
        out.append(("smoke run", "PASS" if ok else "FAIL",
                    f"{SMOKE['runs']} runs, T = {SMOKE['horizon']:,} on C2 (K = 3): mean "
                    f"regret {regret:.4g}" + ("" if ok else "; pulls do not add up to T")))
    except Exception as e:
        out.append(("smoke run", "FAIL", f"{type(e).__name__}: {e}"))
    return out


#: The smoke run of a fixed-confidence plug-in: C3 (K = 5), a budget that bounds its cost.
SMOKE_BAI = dict(instance="C3", arms=5, delta=0.01, budget=10**6, runs=8, seed=1, threads=1)


def _check_identifier(algo, epsilon):
    """A fixed-confidence plug-in: the recorded-release whole-run check and a smoke run."""
    out = []
    private = algo.param("epsilon") is not None and algo.mechanism not in (None, "none")
    if not private:
        out.append(("whole-run audit", "n/a", "non-private"))
    else:
        try:
            r = bai_audit.whole_run(algo.name, epsilon, runs=200, seed=1, budget=10**6)
            out.append(("whole-run audit", r["verdict"], f"{r['releases']:,} recorded releases "
                        f"of {r['runs']} runs: scale as declared {r['scale_ok']}, one "
                        f"episode sum per user {r['blocks_ok']}, replays unchanged "
                        f"{r['replay_ok']}, KS p = {r['ks_pvalue']:.3g}"
                        + (f"; {r['failures'][0]}" if r["failures"] else "")))
        except Exception as e:
            out.append(("whole-run audit", "FAIL", f"{type(e).__name__}: {e}"))
    try:
        kw = dict(SMOKE_BAI, **({"epsilon": epsilon} if algo.param("epsilon") else {}))
        s = simulate_bai(algo.name, **kw).summary()
        out.append(("smoke run", "PASS", f"{kw['runs']} runs on C3 (K = 5, δ = 0.01): "
                    f"{s['stopped']} stopped, {s['errors']} wrong, {s['censored']} censored "
                    f"at T_max = {kw['budget']:,}"))
    except Exception as e:
        out.append(("smoke run", "FAIL", f"{type(e).__name__}: {e}"))
    return out


def check(target, epsilon=1.0, batch_size=64, draws=None):
    """All checks of a plug-in, loaded alone.

    Parameters
    ----------
    target : str
        An installed distribution's name or an importable module.
    epsilon : float
        ε of the audits.
    batch_size : int
        Users in the audited batch.
    draws : int, optional
        Draws per path of the sampled audit.

    Returns
    -------
    code : int
        0 if no check FAILs, else 1.
    rows : list of dict
        ``declaration``, ``check``, ``status``, ``text``.

    Raises
    ------
    ConfigError
        ``target`` is neither a distribution nor a module (:func:`load`).
    """
    registry.plugins_loaded()  # the checked plug-in loads alone, below
    registry.algorithms()  # built-ins complete first
    stages, error = load(target)
    rows = []
    if error:
        rows.append(dict(declaration=target, check="load and validation", status="FAIL",
                         text=error))
    decls = [d for st in stages for d in registry.declarations(st)]
    if not decls and not error:
        rows.append(dict(declaration=target, check="load and validation", status="FAIL",
                         text="it registered no declaration"))
    for d in decls:
        kind = "mechanism" if isinstance(d, registry.Mechanism) else "algorithm"
        rows.append(dict(declaration=f"{kind} {d.name}", check="validation", status="PASS",
                         text=f"{type(d).__name__}; provenance "
                              f"{registry.origin(d.name, kind)['sha256'][:12]}"))
        if kind == "algorithm":
            for name, status, text in check_algorithm(d, epsilon, batch_size, draws):
                rows.append(dict(declaration=f"algorithm {d.name}", check=name, status=status,
                                 text=text))
    code = 1 if any(r["status"] == "FAIL" for r in rows) else 0
    return code, rows


@command(returns="0 if every check passes (PASS), 1 if one FAILs, 2 nothing to check")
def cmd_plugin(args, console):
    """``bandsim plugin check``: one line per check and a verdict, or a JSON list of checks."""
    EPSILON.validate(args.epsilon)  # bad input: one line, before any plug-in is imported
    BATCH_SIZE.validate(args.batch_size)
    if args.draws is not None:
        check_int("draws", args.draws, 1, None)
    code, rows = check(args.target, args.epsilon, args.batch_size, args.draws)
    if args.json:
        print(json.dumps(strict_json([dict(target=args.target, **r) for r in rows]),
                         ensure_ascii=False, indent=1))
        return code
    out = wide_console()
    style = {"PASS": "green", "FAIL": "bold red"}
    for r in rows:
        s = style.get(r["status"], "yellow")
        out.print(f"{plain(r['declaration']):<28} {r['check']:<18} [{s}]{plain(r['status'])}[/]  "
                  f"{plain(r['text'])}", highlight=False, soft_wrap=True)
    verdict = "PASS" if code == 0 else "FAIL"
    out.print(f"[{style[verdict]}]{verdict}[/]: {plain(args.target)} "
              f"({sum(r['status'] == 'FAIL' for r in rows)} failed check(s))", highlight=False)
    return code


__all__ = ["add_parser", "check", "cmd_plugin", "load"]
