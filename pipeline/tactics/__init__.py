"""Threat analysis, connection knowledge and solvers, compiled; depends only on pipeline.games:
VCF/VCT and threats for Gomoku and Connect6 (threats, vcf, vct, solve), and for Hex inferior
cells, virtual connections and a solver (hex_*)."""
