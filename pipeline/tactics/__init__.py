"""Tactics beside the rules, compiled, one subpackage per family; depends only on
pipeline.games: `lines` (threats, VCF and VCT for Gomoku and Connect6) and `hex`
(inferior cells, virtual connections, solvers)."""
