"""Negative controls: do the exact and sampled audits FAIL a broken mechanism?

``python -m benchmarks.audit_controls [--epsilon 0.5] [--batch-size 16]`` audits one
batch of every mechanism with batch kernels (the built-ins and the ``dist-binomial``
plug-in of docs/plugins.md) as derived, then deliberately broken
(:mod:`bandsim.privacy.controls`): its noise standard deviation 10 % and 30 % too
small, and — for the Pólya mechanisms — the per-user Pólya sampler inverted, once
in its parameter (β ← 1 − β, what the inverted Gamma scale computes) and once in
the kernel's code (rebound, source untouched). It prints one markdown table of
verdicts, and for each mechanism how tight its claim is: the exact/claimed ratio
of the correct batch and the smallest under-noise the exact audit detects.
"""
import argparse
import dataclasses
import math
import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"

#: (row label, mechanism, parameters of its batch)
ROWS = [
    ("dist-dp (Pólya → Lap_Z)", "dist-dp", {}),
    ("central (Lap_Z at A)", "central", {}),
    ("local (Lap_Z per user)", "local", {}),
    ("dist-dp-shuffle (relaxed SecAgg)", "dist-dp-shuffle", {}),
    ("dist-rdp (Skellam, s = 10)", "dist-rdp", dict(scale=10.0)),
    ("dist-cdp (discrete Gaussian, s = 10)", "dist-cdp", dict(scale=10.0)),
    ("laplace (DP-SE)", "laplace", {}),
    ("binary-summation (shuffle, δ = 1e-6)", "binary-summation", dict(delta=1e-6)),
    ("dist-binomial (plug-in, δ = 1e-6)", "dist-binomial", dict(delta=1e-6)),
]
POLYA = ("dist-dp", "dist-dp-shuffle")


def load_plugin():
    """Register the plug-in of docs/plugins.md, example (b) (as its test does)."""
    block = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[1]
    block = block.split("res = bandsim.simulate")[0]  # the declarations, not the demo
    exec(compile(block, str(DOC), "exec"), {"__name__": "docs_plugins_example"})


def under(b, f):
    from bandsim.privacy.controls import under_noised

    if b.name == "dist-binomial":  # fpar[0] = r, an even number of trials per user
        r = max(2, int(round(b.fpar[0] * (1 - f) ** 2 / 2)) * 2)
        return dataclasses.replace(b, fpar=(float(r),) + tuple(b.fpar[1:]))
    return under_noised(b, f)


def exact(b):
    from bandsim.registry import get_mechanism

    return get_mechanism(b.name).audit(b, b.name)


def fmt_exact(r):
    if r.passed:
        return "PASS"
    w = max(r.failures, key=lambda x: round(x.exact / x.claimed, 9) if x.claimed else math.inf)
    return f"**FAIL** ({w.short or w.quantity} {w.exact:.3g} > {w.claimed:.3g})"


def fmt_sampled(r):
    if r.code == 2:
        return "cannot audit"
    bad = [c for c in r.checks if not c.passed]
    if bad:
        return f"**FAIL** (G-test, {bad[0].path}: p = {bad[0].p_value:.1g})"
    lb = f"ε_lb {r.epsilon_lb:.3g} vs {r.claim['epsilon']:.3g}"
    return f"**FAIL** ({lb})" if r.code == 1 else f"PASS ({lb})"


def detect_threshold(b, lo=0.0, hi=0.95, steps=14):
    """Smallest under-noise fraction f at which the exact audit FAILs (None if none ≤ hi)."""
    if exact(under(b, hi)).passed:
        return None
    for _ in range(steps):
        mid = (lo + hi) / 2
        if exact(under(b, mid)).passed:
            lo = mid
        else:
            hi = mid
    return hi


def main(argv=None):
    from bandsim.mechanisms import batch
    from bandsim.privacy import controls as C
    from bandsim.privacy.sampled import sampled_audit
    from bandsim.registry import get_mechanism

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epsilon", type=float, default=0.5)
    ap.add_argument("--batch-size", type=int, default=16)
    args = ap.parse_args(argv)
    load_plugin()
    eps, n = args.epsilon, args.batch_size
    lines = [f"Negative controls at ε = {eps:g}, n = {n} (10⁶ draws per path and input; "
             "α = 10⁻⁶; ε_lb at confidence 1 − 10⁻⁶):", "",
             "| mechanism | exact | sampled | 10 % less noise: exact / sampled "
             "| 30 % less noise: exact / sampled | inverted Pólya β ← 1 − β: exact / sampled "
             "| inverted Pólya kernel (plug-in): exact / sampled | claim tightness |",
             "|---|---|---|---|---|---|---|---|"]
    for label, name, kw in ROWS:
        b = batch(name, n, epsilon=eps, **kw)
        cells = [label, fmt_exact(exact(b)), fmt_sampled(sampled_audit(b))]
        for f in (0.1, 0.3):
            u = under(b, f)
            cells.append(f"{fmt_exact(exact(u))} / {fmt_sampled(sampled_audit(u))}")
        if name in POLYA:
            inv = C.inverted_polya_parameter(b)
            cells.append(f"{fmt_exact(exact(inv))} / {fmt_sampled(sampled_audit(inv))}")
            bug = C.inverted_polya_mechanism(name)
            kb = get_mechanism(bug).derive(n, dict(epsilon=eps, p=0.1))
            ex = exact(kb)
            cells.append(f"{fmt_exact(ex)}{' (blind: reads parameters)' if ex.passed else ''}"
                         f" / {fmt_sampled(sampled_audit(kb))}")
        else:
            cells += ["—", "—"]
        good = exact(b)
        f = detect_threshold(b)
        if f is None:
            seen = "no under-noise up to 95 % FAILs"
        elif f < 1e-3:
            seen = "any under-noise FAILs (checked down to 0.01 %)"
        else:
            seen = f"FAILs from {100 * f:.3g} % less noise"
        cells.append(f"exact/claimed {good.worst_ratio:.2g}; {seen}")
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], file=sys.stderr, flush=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
