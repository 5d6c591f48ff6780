"""Studies: many simulations at once (jobs, TOML sweeps, the papers' figures, plots)."""
