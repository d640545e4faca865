"""Threat analysis and solvers of the k-in-a-row games (Gomoku and Connect6), compiled:
threats (`threats`), the Gomoku VCF/VCT search (`gomoku_vcf`), the Connect6 line tables,
turn generation and threat-space search (`c6_tables`, `c6_turns`, `c6_search`), their
front doors (`vcf`, `vct`, and `solve` for Python callers), the shared scratch room and
transposition table (`scratch`, `table`)."""
