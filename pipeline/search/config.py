"""The knobs of the network-guided search (`pipeline.search.mcts.BatchedMCTS`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.search.gumbel import GumbelConfig
from pipeline.search.hex_forced import hex_tactics_flags


class SearchConfig(BaseModel):
    """Knobs of the network-guided search."""

    model_config = ConfigDict(extra="forbid")

    simulations: int = Field(200, ge=1)
    leaves_per_step: int = Field(8, ge=1, description="leaves selected per game per evaluator call")
    c_puct: float = Field(1.5, gt=0)
    fpu_reduction: float = Field(0.2, ge=0, description="unvisited children: parent value minus this")
    root_fpu_reduction: float = Field(0.0, ge=0, description="the same at the root, where noise should explore")
    virtual_loss: float = Field(1.0, ge=0)
    dirichlet_alpha: float = Field(10.0, gt=0, description="alpha = this / number of legal moves")
    dirichlet_eps: float = Field(0.25, ge=0, le=1)
    prove_wins: bool = Field(True, description="MCTS-Solver: moves that win at once are known on expansion")
    threat_guidance: bool = Field(False, description="immediate wins and forced blocks only; never for evaluation")
    tactics: Literal["off", "vcf", "vct"] = Field(
        "vcf",
        description="threat solvers at every expansion (Gomoku, Connect6): a VCF (or VCT) is a proven win, "
        "an opponent's threat narrows the moves to its defences (pipeline.search.forced)",
    )
    tactics_root: Literal["same", "vcf", "vct"] = Field(
        "same",
        description="the root guard's solver: as `tactics` (same), or vcf or vct (Connect6: the tree's VCF, the "
        "guard's VCT)",
    )
    tactics_nodes: int = Field(200, ge=1, description="node budget of each solver call in the tree")
    tactics_depth: int = Field(12, ge=1, description="attacker moves a solver call looks ahead")
    tactics_defer: bool = Field(
        False,
        description="Gomoku: below the root, the moves that could refute the opponent's VCF are kept as children "
        "and each judged when the tree expands it (the same solver call), instead of all at once (self-play's "
        "budget policy; the root always judges them all)",
    )
    tactics_root_nodes: int = Field(
        5000,
        ge=0,
        description="node budget of the root's last look: the chosen move is dropped if the opponent then has "
        "a VCF within it, and the next is checked (pipeline.search.root_guard; 0: off)",
    )
    hex_tactics: str = Field(
        "all",
        description="Hex connection knowledge at every expansion (pipeline.search.hex_forced): off, all, or "
        "pieces joined by '+' of inferior (dead and captured cells never children), connect (winning "
        "connections prove nodes), mustplay (the opponent's semi-connections narrow the children), "
        "bridge (the reply to a bridge intrusion takes half the prior), and at the root hsearch (H-search: a "
        "semi-connection's key is a proven win, moves outside the opponent's must-play region proven lost)",
    )
    hex_root_solver_nodes: int = Field(
        0,
        ge=0,
        description="Hex: after the search, DFPN with H-search at the root within this many nodes "
        "(pipeline.search.hex_root_solver): a proven win is played (its visits become the only ones), a "
        "proven loss keeps the search's move (0: off)",
    )
    hex_root_solver_empty_cells: int | None = Field(
        None,
        ge=0,
        description="Hex: the root solver runs only once at most this many cells are empty (None: at every "
        "move); before that a position seldom falls within the budget, and each try costs all of it",
    )
    hex_root_solver_won_nodes: int | None = Field(
        None,
        ge=0,
        description="Hex: the root solver's budget in a position that follows its own proven winning move "
        "(so is won, whatever the reply), where it also runs before `hex_root_solver_empty_cells` (None: "
        "8 times hex_root_solver_nodes)",
    )
    hex_root_solver_refute_nodes: int | None = Field(
        None,
        ge=0,
        description="Hex: where the root solver proves no win, the search's move is dropped when the opponent "
        "is proven to win after it within this many nodes, and the next is checked (None: a tenth of "
        "hex_root_solver_nodes; 0: off)",
    )
    reuse_tree: bool = True
    empty_board_centre: bool = Field(
        False,
        description="a net player (not self-play) of a line game plays the centre from the empty board, the "
        "convention of Connect6 and Gomoku play, after its search (whose analysis stays); its search cannot "
        "tell the central stones apart, so its own pick there is its prior's noise (RESULTS.md, twenty-third "
        "session)",
    )
    root: Literal["puct", "gumbel"] = Field(
        "puct",
        description="the root's choice: PUCT (Dirichlet noise, visit counts) or Gumbel top-m with sequential "
        "halving over the simulations (pipeline.search.gumbel; no Dirichlet noise, the move is the halving's)",
    )
    gumbel: GumbelConfig = GumbelConfig()

    @field_validator("hex_tactics")
    @classmethod
    def _known_hex_pieces(cls, value: str) -> str:
        hex_tactics_flags(value)  # raises on an unknown piece
        return value
