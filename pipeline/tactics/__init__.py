"""Threat analysis, connection knowledge and solvers, compiled; depends only on pipeline.games."""
