"""Package data: the Open Bandit Dataset instance of the benchmark suite (see README.md here)."""
