"""The seeds' figures, as data: what to simulate for each panel and curve.

``bandsim reproduce FIGURE --out DIR`` simulates every curve, writes one
Parquet file per curve, a PNG of the figure and a JSON summary.

Figures
-------
``thesis-6.1`` … ``thesis-6.4``
    seed 001, Chapter 6: DP-SE vs DP-UCB on C1–C4, K = 5, T = 5×10⁷,
    ε ∈ {0.1, 0.25, 0.5, 1}, 30 runs, β = 1/T.
``thesis-6.5`` … ``thesis-6.8``
    seed 001, Chapter 6: the same on C1–C4 for K ∈ {3, 5, 10, 20},
    ε ∈ {0.25, 1}.
``thesis-A.1`` … ``thesis-A.8``
    seed 001, Appendix A.2: as above with DP-SE 2 and modified DP-SE 2 added.
``cz-fig1`` … ``cz-fig5``
    seed 002 Figure 1 / seed 003 Figures 2–4 / seed 004 Figure 5: time-average
    regret of DP-SE, Dist-DP-SE, Dist-RDP-SE (s = 10, 100), and (Figure 4)
    CDP-SE, LDP-SE, Dist-CDP-SE, on clipped-Gaussian easy/hard instances with
    K = 10, T = 10⁷, p = 0.1, 20 random instances; MSLR-WEB10K panels (K = 50,
    ε ∈ {1, 5, 10}) need ``--instance-file`` built by ``bandsim instances build
    mslr``. DP-SE runs with β = 0.1, the confidence p = 0.1 the paper fixes for
    every algorithm (Section 7), not the thesis' β = 1/T.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Curve:
    label: str
    algorithm: str
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Panel:
    title: str
    options: dict
    curves: tuple
    needs_instance_file: bool = False


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    source: str
    panels: tuple
    horizon: int
    runs: int
    time_average: bool = False


THESIS_EPS = (0.1, 0.25, 0.5, 1.0)
THESIS_K = (3, 5, 10, 20)
CZ_EPS = (0.1, 0.5, 1.0)


def _thesis(number, instance, appendix):
    curves = [Curve("DP-SE", "dp-se")]
    if appendix:
        curves += [Curve("DP-SE 2", "dp-se2"), Curve("modified DP-SE 2", "dp-se2-modified")]
    curves.append(Curve("DP-UCB", "dp-ucb"))
    by_k = number > 4
    if by_k:
        panels = [Panel(f"{instance}, ε = {e:g}, K = {k}", dict(instance=instance, arms=k,
                                                                  epsilon=e), tuple(curves))
                  for e in (0.25, 1.0) for k in THESIS_K]
    else:
        panels = [Panel(f"{instance}, K = 5, ε = {e:g}", dict(instance=instance, arms=5,
                                                               epsilon=e), tuple(curves))
                  for e in THESIS_EPS]
    prefix = "A" if appendix else "6"
    what = "K ∈ {3, 5, 10, 20}" if by_k else "ε ∈ {0.1, 0.25, 0.5, 1}"
    return Figure(f"thesis-{prefix}.{number}", f"Pseudo-regret under {instance}, {what}",
                  f"seed 001, {'Appendix A.2' if appendix else 'Chapter 6'}, "
                  f"Figure {prefix}.{number}", tuple(panels), 50_000_000, 30)


def _cz_curves(kind):
    if kind == "protocols":
        return (Curve("CDP-SE", "cdp-se"), Curve("LDP-SE", "ldp-se"),
                Curve("Dist-DP-SE", "dist-dp-se"),
                Curve("Dist-RDP-SE (s=10)", "dist-rdp-se", {"scale": 10.0}),
                Curve("Dist-CDP-SE (s=10)", "dist-cdp-se", {"scale": 10.0}))
    return (Curve("DP-SE", "dp-se", {"beta": 0.1}), Curve("Dist-DP-SE", "dist-dp-se"),
            Curve("Dist-RDP-SE (s=10)", "dist-rdp-se", {"scale": 10.0}),
            Curve("Dist-RDP-SE (s=100)", "dist-rdp-se", {"scale": 100.0}))


def _gauss(instance, eps, kind="main"):
    opts = dict(instance=instance, arms=10, epsilon=eps, rewards="gaussian", sigma=0.1)
    return Panel(f"{instance}, K = 10, ε = {eps:g}", opts, _cz_curves(kind))


def _mslr(eps):
    return Panel(f"MSLR-WEB10K, K = 50, ε = {eps:g}", dict(epsilon=eps), _cz_curves("main"),
                 needs_instance_file=True)


def _cz():
    src = "Chowdhury & Zhou, "
    T, runs = 10_000_000, 20
    return [
        Figure("cz-fig1", "Time-average regret: synthetic (a–c) and MSLR-WEB10K (d, e)",
               src + "seed 002, Figure 1",
               (_gauss("easy", 0.1), _gauss("easy", 0.5), _gauss("hard", 0.1),
                _mslr(1.0), _mslr(5.0)), T, runs, True),
        Figure("cz-fig2", "Time-average regret, easy instances", src + "seed 003, Figure 2",
               tuple(_gauss("easy", e) for e in CZ_EPS), T, runs, True),
        Figure("cz-fig3", "Time-average regret, hard instances", src + "seed 003, Figure 3",
               tuple(_gauss("hard", e) for e in CZ_EPS), T, runs, True),
        Figure("cz-fig4", "Time-average regret of every trust model, easy instances",
               src + "seed 003, Figure 4",
               tuple(_gauss("easy", e, "protocols") for e in CZ_EPS), T, runs, True),
        Figure("cz-fig5", "Time-average regret on MSLR-WEB10K", src + "seed 004, Figure 5",
               tuple(_mslr(e) for e in (1.0, 5.0, 10.0)), T, runs, True),
    ]


FIGURES = {f.name: f for f in
           [_thesis(i, f"C{(i - 1) % 4 + 1}", appendix) for appendix in (False, True)
            for i in range(1, 9)] + _cz()}
