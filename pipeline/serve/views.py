"""The JSON the web page draws from. Everything game-specific arrives ready to show (the
board's geometry and labels, move names, the note on whose turn it is), so the page never
asks which game it is."""

from __future__ import annotations

import numpy as np

from pipeline.games.renju import FORBIDDEN_NAMES
from pipeline.serve.store import Session


def game_view(game_id: str, s: Session) -> dict:
    st = s.state
    spec = st.spec
    winner = st.winner if s.resigned is None else 1 - s.resigned
    # Renju: black's forbidden cells (the page marks them), with why; none once it is over.
    kinds = st.forbidden_kinds() if s.resigned is None else np.zeros(spec.cells, dtype=np.int8)
    forbidden = np.flatnonzero(kinds).tolist()
    return {
        "id": game_id,
        "spec": {**spec.model_dump(), "name": str(spec)},
        "geometry": spec.geometry,
        "row_labels": [spec.row_label(r) for r in range(spec.height)],
        "column_labels": [spec.column_label(c) for c in range(spec.width)],
        "cell_names": spec.cell_names(),
        "board": st.board().ravel().tolist(),
        "to_move": st.current_player,
        "ply": st.ply,
        "legal": np.flatnonzero(st.legal_mask()).tolist() if s.resigned is None else [],
        "forbidden": forbidden,
        "forbidden_reasons": [FORBIDDEN_NAMES[int(kinds[a])] for a in forbidden],
        "history": [spec.action_name(a) for a in st.history],
        "moves": st.history,
        "last_turn": st.last_turn_cells(),
        "stones_left_in_turn": st.stones_left_in_turn,
        "turn_note": st.turn_note(),
        "swap_available": st.swap_available,
        "over": s.over,
        "winner": winner,
        "draw": st.is_draw,
        "resigned": s.resigned,
        "winning_cells": st.winning_line() if s.resigned is None else [],
        "human": s.human,
        "opponent": s.opponent,
        "ai_to_move": s.ai_to_move,
        "visits": s.visits,
        "search_value": s.search_value,
        "proof": s.proof,
    }
