"""What an audit reports: claimed versus exact privacy, row by row, and a verdict."""
import math
from dataclasses import KW_ONLY, asdict, dataclass, field

from ..compat import keyword_dataclass

#: Unit roundoff of float64.
EPS = 2.0**-53
#: Roundings behind a claimed figure (a closed form of a few operations).
CLAIM_ROUNDINGS = 8


@dataclass
class Row:
    """One audited quantity.

    Attributes
    ----------
    quantity : str
        E.g. ``"ε (max log-ratio)"``, ``"D_α, α = 8"``, ``"δ(ε = 0.5)"``.
    claimed : float or None
        The guarantee's value (None: informational row, not checked).
    exact : float
        The exact value computed from the output pmfs.
    error : float
        Bound on the absolute error of ``exact``: truncation, approximation
        and floating-point rounding (see :mod:`bandsim.privacy.audit`).
    also : str
        A further reference value for the table (e.g. a per-batch bound).
    shown : bool
        Shown in the short table (every row with a claim is checked).
    lower_bound : bool
        ``exact`` is only a lower bound (a pmf known on a truncated support):
        it can prove a violation but not a pass.
    short : str
        Short name for summary tables (default: ``quantity``).
    """

    quantity: str
    claimed: float
    exact: float
    _: KW_ONLY
    error: float = 0.0
    also: str = ""
    shown: bool = True
    lower_bound: bool = False
    short: str = ""

    @property
    def slack(self):
        """claimed − exact (None for informational rows)."""
        return None if self.claimed is None else self.claimed - self.exact

    @property
    def tolerance(self):
        """How far ``exact`` may exceed ``claimed`` and still pass: the row's
        error bound plus the rounding of the claim itself."""
        return self.error + CLAIM_ROUNDINGS * EPS * abs(self.claimed)

    @property
    def status(self):
        """``"ok"``, ``"FAIL"`` (exact > claimed + :attr:`tolerance`), ``"?"``
        (a lower bound below the claim) or ``""`` (informational row)."""
        if self.claimed is None:
            return ""
        if not self.exact <= self.claimed + self.tolerance:
            return "FAIL"
        return "?" if self.lower_bound else "ok"

    @property
    def ok(self):
        return self.status in ("ok", "")


@keyword_dataclass
@dataclass(kw_only=True)
class AuditReport:
    """Claimed versus exact privacy of one batch of one algorithm.

    Attributes
    ----------
    algorithm : str
    guarantee : str
        The claimed guarantee, in words (e.g. ``"ε-DP per batch (Chowdhury & Zhou (2023)
        Theorem 1)"``).
    view : str
        What the audited output is and what the neighbouring inputs are.
    params : dict
        The batch's parameters as the simulator derives them (n, ε, g, τ, m,
        noise, …).
    rows : list of Row
    headline : int
        Index of the row that summarizes the audit.
    notes : list of str
    seconds : float
        Wall time of the audit.
    """

    algorithm: str
    guarantee: str
    view: str
    params: dict
    rows: list
    headline: int = 0
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self):
        return all(r.ok for r in self.rows)

    @property
    def failures(self):
        return [r for r in self.rows if r.status == "FAIL"]

    @property
    def worst_ratio(self):
        """max over checked rows of exact/claimed (> 1 means a violated claim)."""
        ratios = [r.exact / r.claimed for r in self.rows if r.claimed]
        return max(ratios) if ratios else math.nan

    def verdict(self):
        """One line: PASS, FAIL naming the worst violated claim, or INCONCLUSIVE."""
        if not self.failures and not self.passed:
            return (f"INCONCLUSIVE: {self.algorithm} at n = {self.params['n']:,}: only lower "
                    "bounds below the claims could be computed")
        if self.passed:
            h = self.rows[self.headline]
            return (f"PASS: {self.algorithm} at n = {self.params['n']:,}: exact {h.quantity} = "
                    f"{h.exact:.6g} ≤ claimed {h.claimed:.6g}")
        worst = max(self.failures, key=lambda r: r.exact / r.claimed if r.claimed else math.inf)
        return (f"FAIL: {self.algorithm} at n = {self.params['n']:,}: exact {worst.quantity} = "
                f"{'≥ ' if worst.lower_bound else ''}{worst.exact:.6g} exceeds the claimed {worst.claimed:.6g} "
                f"({len(self.failures)} of {sum(r.claimed is not None for r in self.rows)} "
                f"claims violated)")

    def to_dict(self):
        """Plain-data form: strict JSON (a non-finite figure is None, i.e. null)."""
        d = asdict(self)
        d["passed"] = self.passed
        d["verdict"] = self.verdict()
        for r, row in zip(d["rows"], self.rows):
            r["status"] = row.status
            for k in ("claimed", "exact", "error"):
                if isinstance(r[k], float) and not math.isfinite(r[k]):
                    r[k] = None
        worst = self.worst_ratio
        d["worst_exact_over_claimed"] = worst if math.isfinite(worst) else None
        return d

    def table(self, full=False):
        """A ``rich`` table of claimed vs exact (``full``: every α)."""
        from rich.table import Table

        t = Table(title=f"{self.algorithm}: exact privacy of one batch — {self.guarantee}")
        also = any(r.also for r in self.rows)
        for c, j in (("quantity", "left"), ("claimed", "right"), ("exact", "right"),
                     ("slack", "right"), ("", "left")) + ((("also", "left"),) if also else ()):
            t.add_column(c, justify=j)
        for r in self.rows:
            if not (full or r.shown or not r.ok):
                continue
            status = {"ok": "[green]ok[/]", "FAIL": "[bold red]FAIL[/]",
                      "?": "[yellow]?[/]", "": ""}[r.status]
            t.add_row(r.quantity, "—" if r.claimed is None else f"{r.claimed:.6g}",
                      ("≥ " if r.lower_bound else "") + _fmt(r.exact, r.error),
                      "" if r.slack is None else f"{r.slack:+.3g}", status,
                      *((r.also,) if also else ()))
        return t

    def params_line(self):
        keys = [k for k in ("n", "epsilon", "delta", "scale", "p", "g", "tau", "m", "noise")
                if k in self.params]
        return ", ".join(f"{k}={_short(self.params[k])}" for k in keys)


def _short(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _fmt(x, err):
    s = f"{x:.6g}" if math.isfinite(x) else str(x)
    if err and err > 1e-9 * max(1.0, abs(x)):
        s += f" ± {err:.1g}"
    return s


__all__ = ["AuditReport", "Row"]
