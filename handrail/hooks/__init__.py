"""Entry points: one outside event in, one policy answer out. Lean imports only."""
