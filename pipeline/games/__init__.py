"""Game rules only (numpy + numba, no torch): the state, the compiled kernels, one module per game."""
