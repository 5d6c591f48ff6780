"""The seeds' figures, as data: what to simulate for each panel and curve.

``bandsim reproduce FIGURE --out DIR`` simulates every curve, writes one
Parquet file per curve (:mod:`bandsim.store`), the figure (PNG; PDF/SVG with --format) and
a JSON summary.

Figures
-------
``thesis-6.1`` … ``thesis-6.4``
    Sajed's MSc thesis (Sajed & Sheffet, ICML 2019), Chapter 6, Figures
    6.1–6.4: DP-SE vs DP-UCB on C1–C4, K = 5, T = 5×10⁷,
    ε ∈ {0.1, 0.25, 0.5, 1}, 30 runs, β = 1/T.
``thesis-6.5`` … ``thesis-6.8``
    The same thesis, Figures 6.5–6.8: C1–C4 for K ∈ {3, 5, 10, 20}, ε ∈ {0.25, 1}.
``thesis-A.1`` … ``thesis-A.8``
    The same thesis, Appendix A.2: as above with DP-SE 2 and modified DP-SE 2 added.
``cz-fig1`` … ``cz-fig5``
    Chowdhury & Zhou, "Distributed differential privacy in multi-armed
    bandits" (ICLR 2023 submission Section 7, Figure 1; arXiv 2022 Appendix J,
    Figures 2–4; workshop version Figure 5): time-average regret of DP-SE,
    Dist-DP-SE, Dist-RDP-SE (s = 10, 100), and (Figure 4) CDP-SE, LDP-SE,
    Dist-CDP-SE, on clipped-Gaussian easy/hard instances with K = 10, p = 0.1,
    20 random instances, over the papers' horizons: T = 10⁶ for the easy
    instance and MSLR-WEB10K (axis "Round ×10⁶"), T = 10⁷ for the hard
    instance ("Round ×10⁷"). MSLR-WEB10K panels (K = 50, ε ∈ {1, 5, 10})
    need ``--instance-file`` built by ``bandsim instances build mslr``. DP-SE
    runs with β = 0.1, the confidence p = 0.1 the paper fixes for every
    algorithm (Section 7), not the thesis' β = 1/T.
``shuffle-eps-delta``
    Tenenbaum, Kaplan, Mansour & Stemmer (NeurIPS 2021) have no experiments:
    final regret of SDP-AE and VB-SDP-AE against ε (δ = 10⁻⁶) and δ
    (ε = 0.25) on C1–C4, K = 5, T = 5×10⁷, beside Dist-DP-SE; the points
    where VB-SDP-AE's mean regret is below SDP-AE's are marked.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Curve:
    label: str
    algorithm: str
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Panel:
    """One panel: shared simulate() options and its curves.

    ``horizon`` is the paper's T for this panel (default: the figure's).
    ``x = (parameter, values)`` makes a panel of final regret against that
    parameter (one job per curve and value; a curve whose algorithm does not
    take the parameter is one job, drawn as a horizontal line).
    """

    title: str
    options: dict
    curves: tuple
    needs_instance_file: bool = False
    horizon: int = None
    x: tuple = None


@dataclass(frozen=True)
class Figure:
    """A figure: panels, the paper's T and runs, and how it is drawn.

    ``title`` says what the paper plots, never its scale: the horizon and runs
    drawn are those simulated, added when the figure is drawn.
    ``rows`` gives panels per row (shorter rows centred; three panels side
    by side rather than one tall column, so a figure fits a page);
    ``xlabel``/``ylabel`` are the paper's axis labels; ``highlight`` names two
    curve labels ``(a, b)`` whose points where b's mean regret is below a's
    are marked (and listed in the JSON).
    """

    name: str
    title: str
    source: str
    panels: tuple
    horizon: int
    runs: int
    time_average: bool = False
    rows: tuple = None
    xlabel: str = "t"
    ylabel: str = "Pseudo-regret"
    highlight: tuple = None


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
        panels = [Panel(f"ε = {e:g}, K = {k}", dict(instance=instance, arms=k, epsilon=e),
                        tuple(curves))
                  for e in (0.25, 1.0) for k in THESIS_K]
        rows = (4, 4)
    else:
        panels = [Panel(f"ε = {e:g}", dict(instance=instance, arms=5, epsilon=e), tuple(curves))
                  for e in THESIS_EPS]
        rows = (2, 2)
    prefix = "A" if appendix else "6"
    sub = f"$C_{instance[1:]}$"
    what = "with ε ∈ {0.25, 1}" if by_k else "with K = 5"
    return Figure(f"thesis-{prefix}.{number}", f"Under {sub} {what}",
                  f"Sajed, MSc thesis (Sajed & Sheffet, ICML 2019), "
                  f"{'Appendix A.2' if appendix else 'Chapter 6'}, Figure {prefix}.{number}",
                  tuple(panels), 50_000_000, 30, rows=rows)


def _cz_curves(kind):
    # legend labels as printed in the paper's figures
    if kind == "protocols":
        return (Curve("CDP-SE", "cdp-se"), Curve("LDP-SE", "ldp-se"),
                Curve("Dist-DP-SE", "dist-dp-se"),
                Curve("Dist-RDP-SE(s=10)", "dist-rdp-se", {"scale": 10.0}),
                Curve("Dist-CDP-SE(s=10)", "dist-cdp-se", {"scale": 10.0}))
    return (Curve("DP-SE", "dp-se", {"beta": 0.1}), Curve("Dist-DP-SE", "dist-dp-se"),
            Curve("Dist-RDP-SE(s=10)", "dist-rdp-se", {"scale": 10.0}),
            Curve("Dist-RDP-SE(s=100)", "dist-rdp-se", {"scale": 100.0}))


#: The papers' horizons: easy instances and MSLR-WEB10K plotted over 10⁶ rounds
#: (axis "Round ×10⁶", Chowdhury & Zhou, ICLR 2023 submission, Appendix J,
#: Figures 4 and 5), the hard instance over 10⁷ (Figure 1(c), "Round ×10⁷").
CZ_HORIZON = {"easy": 1_000_000, "hard": 10_000_000, "mslr": 1_000_000}


def _gauss(instance, eps, kind="main", tag=""):
    opts = dict(instance=instance, arms=10, epsilon=eps, rewards="gaussian", sigma=0.1)
    return Panel(f"{tag}ε = {eps:g}, K = 10", opts, _cz_curves(kind),
                 horizon=CZ_HORIZON[instance])


def _mslr(eps, tag=""):
    return Panel(f"{tag}ε = {eps:g}, K = 50", dict(epsilon=eps), _cz_curves("main"),
                 needs_instance_file=True, horizon=CZ_HORIZON["mslr"])


def _cz():
    src = "Chowdhury & Zhou, Distributed differential privacy in multi-armed bandits "
    arxiv, iclr = src + "(arXiv 2022), ", src + "(ICLR 2023 submission), "
    T, runs = 10_000_000, 20
    main = "Comparison of time-average regret for Dist-DP-SE, Dist-RDP-SE, and DP-SE"
    cz = dict(time_average=True, xlabel="Round", ylabel="Time-average Regret")
    return [
        Figure("cz-fig1", main + ": synthetic Gaussian (a, b easy; c hard) and MSLR-WEB10K (d, e)",
               iclr + "Section 7, Figure 1",
               (_gauss("easy", 0.1, tag="(a) "), _gauss("easy", 0.5, tag="(b) "),
                _gauss("hard", 0.1, tag="(c) "), _mslr(1.0, "(d) "), _mslr(5.0, "(e) ")),
               T, runs, rows=(3, 2), **cz),
        Figure("cz-fig2", main + " in Gaussian bandit instances, large reward gap (easy instance)",
               arxiv + "Appendix J, Figure 2",
               tuple(_gauss("easy", e) for e in CZ_EPS), T, runs, rows=(3,), **cz),
        Figure("cz-fig3", main + " in Gaussian bandit instances, small reward gap (hard instance)",
               arxiv + "Appendix J, Figure 3",
               tuple(_gauss("hard", e) for e in CZ_EPS), T, runs, rows=(3,), **cz),
        Figure("cz-fig4", "Comparison of time-average regret for CDP-SE, LDP-SE, Dist-DP-SE, "
               "Dist-RDP-SE and Dist-CDP-SE, easy instance", arxiv + "Appendix J, Figure 4",
               tuple(_gauss("easy", e, "protocols") for e in CZ_EPS), T, runs, rows=(3,),
               **cz),
        Figure("cz-fig5", main + " in bandit instances generated from real data (MSLR-WEB10K)",
               src + "(workshop version), Figure 5",
               tuple(_mslr(e) for e in (1.0, 5.0, 10.0)), T, runs, rows=(3,), **cz),
    ]


#: ε and δ of the shuffle-model study (regret against ε at δ = SHUFFLE_DELTA,
#: and against δ at ε = SHUFFLE_EPS).
SHUFFLE_EPS_VALUES = (0.05, 0.1, 0.25, 0.5, 1.0)
SHUFFLE_DELTA_VALUES = (1e-2, 1e-4, 1e-6, 1e-8, 1e-10)
SHUFFLE_DELTA, SHUFFLE_EPS = 1e-6, 0.25


def _shuffle():
    """Regret of SDP-AE and VB-SDP-AE against ε and δ, Dist-DP-SE beside them.

    Tenenbaum, Kaplan, Mansour & Stemmer (NeurIPS 2021) analyse SDP-AE
    (Algorithm 1) and VB-SDP-AE (Algorithm 2) but run no experiments; this
    study puts them on the thesis instances C1–C4 (K = 5, Bernoulli rewards,
    T = 5×10⁷, 30 runs) beside the pure ε-DP Dist-DP-SE of Chowdhury & Zhou,
    which has no δ (a horizontal line in the δ panels).
    """
    curves = (Curve("SDP-AE", "sdp-ae"), Curve("VB-SDP-AE", "vb-sdp-ae"),
              Curve("Dist-DP-SE", "dist-dp-se"))
    panels = [Panel(f"C{i}, K = 5, δ = {SHUFFLE_DELTA:g}",
                    dict(instance=f"C{i}", arms=5, delta=SHUFFLE_DELTA), curves,
                    x=("epsilon", SHUFFLE_EPS_VALUES)) for i in range(1, 5)]
    panels += [Panel(f"C{i}, K = 5, ε = {SHUFFLE_EPS:g}",
                     dict(instance=f"C{i}", arms=5, epsilon=SHUFFLE_EPS), curves,
                     x=("delta", SHUFFLE_DELTA_VALUES)) for i in range(1, 5)]
    return Figure("shuffle-eps-delta",
                  "Shuffle-model arm elimination: final pseudo-regret against ε and δ",
                  "Tenenbaum, Kaplan, Mansour & Stemmer, NeurIPS 2021, Algorithms 1–3 "
                  "(no experiments in the paper); Dist-DP-SE of Chowdhury & Zhou",
                  tuple(panels), 50_000_000, 30, rows=(4, 4), ylabel="Reg(T)",
                  highlight=("SDP-AE", "VB-SDP-AE"))


FIGURES = {f.name: f for f in
           [_thesis(i, f"C{(i - 1) % 4 + 1}", appendix) for appendix in (False, True)
            for i in range(1, 9)] + _cz() + [_shuffle()]}
