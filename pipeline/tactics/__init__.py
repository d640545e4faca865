"""Compiled threat analysis and forcing-win solvers for Gomoku and Connect6."""
