"""Dropping the openings one side has already lost (Connect6): a suite's openings are meant
to be balanced, and a net's value near even does not say that the solver finds no forced
win in them.

The 19x19 suite of 2026-11 was chosen by value alone (within 0.15 of even). In 6 of its 26
openings black's first turn, as our champions play it, leaves white no turn that meets
black's VCF (`tactics.lines.c6_holding`): both champions lost those openings as white
every time, and they made 10 of generation 78's 25 white losses in its 80-game match
(RESULTS.md, Connect6 19x19). A white score over such a suite measures the suite.

The screen, per opening: if the side to move already faces a VCF it has no turn to meet,
that side has lost; else the champion plays its turn (both stones, its own search), and if
the other side then faces one it cannot meet, that side has lost. Only Connect6 is screened
(the solvers' holding-turn search is Connect6's); other games pass unchanged. The verdict is
the solver's partial search (see `c6_holding`): an opening it keeps may still be lost deeper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pipeline.games.base import GameSpec
from pipeline.games.connect6 import stones_left_in_turn
from pipeline.players.base import Player
from pipeline.tactics.lines.c6_holding import holding_turn

COLOURS = ("black", "white")


@dataclass(frozen=True)
class Screened:
    """One opening's verdict: the side the solver finds lost (None: neither), the turn the
    champion played from it (names), and a line saying why."""

    moves: list[int]
    lost: str | None
    turn: str
    reason: str


def screens(spec: GameSpec) -> bool:
    """Whether `screen_openings` judges this game's openings (Connect6 only)."""
    return spec.game == "connect6"


def screen_openings(
    spec: GameSpec,
    player: Player,
    openings: list[list[int]],
    seed: int = 0,
    on_opening: Callable[[int], None] | None = None,
) -> list[Screened]:
    """The verdict of each opening (see the module's docstring); `player` (a champion) plays
    the turn after it, all openings in lockstep; `on_opening(n)` after each judged."""
    if not screens(spec):
        return [Screened(list(m), None, "", "not screened: Connect6 only") for m in openings]
    states = [spec.replay(m) for m in openings]
    verdicts: list[Screened | None] = [None] * len(openings)
    judged = 0
    pending: list[int] = []
    for i, state in enumerate(states):
        if state.is_terminal or stones_left_in_turn(state.ply) != 2:
            verdicts[i] = Screened(list(openings[i]), None, "", "not screened: not the start of a two-stone turn")
            judged += 1
        elif holding_turn(state).lost:
            side = COLOURS[state.current_player]
            verdicts[i] = Screened(list(openings[i]), side, "", f"{side}, to move, has no turn that meets the VCF")
            judged += 1
        else:
            pending.append(i)
            continue
        if on_opening:
            on_opening(judged)
    turns: dict[int, list[int]] = {i: [] for i in pending}
    if pending:
        player.start(spec, len(pending), seed)
        for _ in range(2):
            live = [j for j, i in enumerate(pending) if not states[i].is_terminal]
            if not live:
                break
            actions = player.choose(live, [states[pending[j]] for j in live])
            for j, a in zip(live, actions, strict=True):
                i = pending[j]
                states[i].apply(a)
                turns[i].append(int(a))
                player.observe(j, states[i], a)
    for i in pending:
        state = states[i]
        turn = " ".join(spec.action_name(a) for a in turns[i])
        mover = COLOURS[1 - state.current_player] if not state.is_terminal else ""
        if state.is_terminal or stones_left_in_turn(state.ply) != 2:
            verdicts[i] = Screened(list(openings[i]), None, turn, "the champion's turn ended the game or the turn")
        elif holding_turn(state).lost:
            side = COLOURS[state.current_player]
            verdicts[i] = Screened(
                list(openings[i]), side, turn, f"after {mover}'s {turn}, {side} has no turn that meets {mover}'s VCF"
            )
        else:
            verdicts[i] = Screened(list(openings[i]), None, turn, f"after {mover}'s {turn}, neither side found lost")
        judged += 1
        if on_opening:
            on_opening(judged)
    return [v for v in verdicts if v is not None]
