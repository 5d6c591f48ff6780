"""Randomized response's exact audit at the suite's largest batch sizes.

``python -m benchmarks.rr_audit`` registers example (e) of docs/plugins.md as
written (``rr``/``rr-se``, with ``report_probs``) and runs
:func:`bandsim.privacy.audit.audit` at n = 2²⁰ (the suite's largest batch at
T = 10⁶: the closed form, and ``release_logpmf`` matched at counts 0, 1,
n − 1, n) and n = 2²⁶ (T = 10⁸: the closed form; the plug-in's law is not
evaluated at that n, the report's note says so), printing verdict, exact ε
and seconds per case, at ε = 0.1, 0.5, 1 (tests/test_log_laws.py runs two).
"""
import sys
import time

from tests.conftest import doc_example

SIZES = (1 << 20, 1 << 26)
EPSILONS = (0.1, 0.5, 1.0)


def main(argv=None):
    """Print one line per (ε, n): verdict, exact ε, notes, seconds."""
    doc_example("def rr_logpmf", "docs_rr_example")
    from bandsim.privacy.audit import audit

    for eps in EPSILONS:
        for n in SIZES:
            t0 = time.perf_counter()
            rep = audit("rr-se", eps, n)
            row = rep.rows[rep.headline]
            print(f"ε = {eps:g}, n = {n:,}: {'PASS' if rep.passed else rep.verdict()}, "
                  f"exact ε = {row.exact:.12g} (claimed {row.claimed:g}), "
                  f"{time.perf_counter() - t0:.1f} s"
                  + (f"; note: {rep.notes[0]}" if rep.notes else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
