"""Hex knowledge, compiled: inferior cells (patterns), virtual connections (hsearch,
connect), and the solvers (solver: depth-first with the must-play region; dfpn; solve)."""
