"""Threat analysis and solvers of the k-in-a-row games (Gomoku and Connect6), compiled:
threats, VCF (fours; Connect6 double threats), VCT (threes), the solver front door (solve)
and the shared scratch room and transposition table."""
