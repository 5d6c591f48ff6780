"""``bandsim instances build|show``: instance files from real data.

``bandsim instances build mslr PATH --out FILE``
    MSLR-WEB10K / LETOR relevance labels clustered into arms (k-means), each
    arm a categorical reward distribution (Chowdhury & Zhou's real-data setting).
``bandsim instances build obd PATH --out FILE``
    Open Bandit Dataset logs of the uniform-random policy: one Bernoulli arm
    per item, its click rate.
``bandsim instances show FILE [--json]``
    The arms of an instance file: label, mean, gap, size, provenance.

Simulate on a file with ``bandsim run ALGO --instance-file FILE`` (docs/data.md).
"""
import json

from pathlib import Path

from .. import datasets
from ..atomic import probe, target
from ..datasets import load_instance, read_instance_table
from .common import command, one_int, plain, strict_json, wide_console


def add_parser(sub):
    """``bandsim instances build mslr|obd PATH --out FILE`` and ``bandsim instances show FILE``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``bandsim`` subcommands.
    """
    inst = sub.add_parser("instances", help="build instance files from data, show them")
    isub = inst.add_subparsers(dest="instances_command", required=True)
    build = isub.add_parser("build", help="build an instance file from a dataset")
    bsub = build.add_subparsers(dest="kind", required=True)
    mslr = bsub.add_parser("mslr", help="MSLR-WEB10K / LETOR file: k-means clusters as "
                                        "categorical arms (relevance/4); needs bandsim[data]")
    mslr.add_argument("path", nargs="+",
                      help="LETOR text file(s), e.g. MSLR-WEB10K/Fold1/{train,vali,test}.txt "
                           "(several are concatenated)")
    mslr.add_argument("--clusters", type=one_int, default=50, help="K (default 50, as the paper)")
    mslr.add_argument("--seed", type=one_int, default=0, help="clustering seed (default 0)")
    mslr.add_argument("--standardize", action="store_true",
                      help="scale features to unit variance before clustering")
    obd = bsub.add_parser("obd", help="Open Bandit Dataset log (uniform-random policy): "
                                      "items as Bernoulli arms with their CTR")
    obd.add_argument("path", help="e.g. open-bandit-dataset/random/all/all.csv")
    obd.add_argument("--position", type=one_int, default=None,
                     help="keep only this slot (1-3; default: all slots pooled)")
    obd.add_argument("--min-clicks", type=one_int, default=10,
                     help="warn about arms with fewer clicks (default 10)")
    for p in (mslr, obd):
        p.add_argument("--out", required=True, help="output instance file (.parquet)")
        p.add_argument("--name", default=None, help="instance name (default: file stem)")
    show = isub.add_parser("show", help="print an instance file's arms")
    show.add_argument("file")
    show.add_argument("--json", action="store_true", help="print the arms as JSON")


@command
def cmd_instances(args, console):
    """Build (``mslr``/``obd``) or show an instance file."""
    import warnings

    if args.instances_command == "show":
        return show_instance(args.file, args.json)
    target(args.out)  # a directory or device is refused, and a full or read-only
    probe(Path(args.out).parent, "out", args.out)  # disk, before the data are read
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if args.kind == "mslr":
            inst = datasets.build_mslr(args.path, args.out, clusters=args.clusters,
                                       seed=args.seed, standardize=args.standardize,
                                       name=args.name)
        else:
            inst = datasets.build_obd(args.path, args.out, position=args.position,
                                      min_clicks=args.min_clicks, name=args.name)
    for w in caught:
        console.print(f"[bold yellow]warning:[/] {plain(w.message)}")
    console.print(f"wrote {args.out}: {inst.arms} arms, {inst.rewards} rewards, "
                  f"best mean {inst.location.max():.6g}")
    return show_instance(args.out, False)


def show_instance(path, as_json):
    """Print an instance file's arms (mean, gap, support, data size, extras).

    Parameters
    ----------
    path : str
        The instance file.
    as_json : bool
        Print JSON instead of a table.

    Returns
    -------
    int
        Exit status 0.

    Raises
    ------
    ConfigError
        Not a readable instance file.
    """
    import numpy as np
    from rich.table import Table

    table, meta = read_instance_table(path)
    inst = load_instance(path)
    cols = table.to_pydict()
    means = inst.means
    gaps = means.max() - means
    rows = []
    for a in range(inst.arms):
        row = {"arm": a, "label": cols.get("label", [f"arm {a}"] * inst.arms)[a],
               "mean": float(means[a]), "gap": float(gaps[a]),
               "support": [v for v, p in zip(cols["values"][a], cols["probs"][a]) if p > 0]}
        for k, v in cols.items():
            if k not in ("arm", "label", "values", "probs", "mean"):
                row[k] = v[a]
        rows.append(row)
    if as_json:
        print(json.dumps(strict_json({"meta": meta, "arms": rows}), indent=2, default=float,
                         allow_nan=False))
        return 0
    extra = [k for k in rows[0] if k not in ("arm", "label", "mean", "gap", "support")
             and not (k == "size" and "impressions" in rows[0])]
    src = meta.get("provenance", {}).get("source", {})
    src = ", ".join(x.get("path", "?") for x in (src if isinstance(src, list) else [src]))
    t = Table(title=f"{meta.get('name')} ({meta.get('kind')}, {inst.rewards} rewards, "
                    f"K = {inst.arms}) from {src}")
    for c in ["arm", "label", "mean", "gap", "support"] + extra:
        t.add_column(c, justify="left" if c in ("label", "support") else "right")
    order = np.argsort(-means, kind="stable")
    for a in order:
        r = rows[a]
        support = ", ".join(f"{v:g}" for v in r["support"])
        t.add_row(str(r["arm"]), str(r["label"]), f"{r['mean']:.6g}", f"{r['gap']:.6g}",
                  "{" + support + "}", *(f"{r[k]:.4g}" if isinstance(r[k], float)
                                         else f"{r[k]}" for k in extra))
    console = wide_console()
    console.print(t)
    second = np.sort(means)[-2]
    console.print(f"best arm {int(order[0])} (mean {means.max():.6g}); smallest positive gap "
                  f"{means.max() - second:.6g}; arms sorted by mean")
    return 0


