"""What the engine thinks of a position: its last search's visits and value, and (for a
network opponent) the raw policy and value of the position shown."""

from __future__ import annotations

from fastapi import APIRouter

from pipeline.players.search import NetPlayer
from pipeline.serve.routes.deps import Store

router = APIRouter(prefix="/api/games")


@router.get("/{game_id}/analysis")
def analysis(game_id: str, store: Store) -> dict:
    s = store.get(game_id)
    out: dict = {"policy": None, "value": None, "visits": s.visits, "search_value": s.search_value, "proof": s.proof}
    if s.human != "both" and s.opponent != "pure" and not s.state.is_terminal:
        player = store.models.player(s.opponent, s.state.spec, s.budget)
        if isinstance(player, NetPlayer):
            policy, value = player.policy_value(s.state)
            out["policy"], out["value"] = policy.tolist(), value
    return out
