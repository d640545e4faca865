"""`zero play`: a game in the terminal against a model or pure MCTS, for machines with no
browser. Moves are typed like `e5` (Hex: `c3`, `swap`); `undo`, `hint` and `quit` work.
Under renju black's forbidden cells are drawn `×` on black's turn, and typing one is
refused with the reason ("forbidden to black: double three")."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from pipeline.games.base import GameSpec, GameState, IllegalMoveError
from pipeline.players.base import Player
from pipeline.players.discovery import choose_model
from pipeline.players.factory import PLAY_SECONDS, protocol_player

STONES = {0: ("·", "dim"), 1: ("●", "bold"), 2: ("○", "bold")}


def render(state: GameState) -> Text:
    spec = state.spec
    board = state.board()
    last = set(c for c, _ in state.hist_cells()[:1] if c >= 0)
    forbidden = set(state.forbidden_cells()) if state.current_player == 0 else set()
    text = Text()
    letters = [spec.column_label(c) for c in range(spec.width)]
    text.append("     " + " ".join(letters) + "\n", style="cyan")
    for r in range(spec.height):
        indent = " " * r if spec.geometry == "hex" else ""  # each hex row half a cell on
        text.append(f"{indent}{spec.row_label(r):>3}  ", style="cyan")
        for c in range(spec.width):
            v = int(board[r, c])
            char, style = STONES[v]
            if r * spec.width + c in forbidden:
                char, style = "×", "red"
            if r * spec.width + c in last:
                style += " red"
            text.append(char, style=style)
            text.append(" ")
        text.append("\n")
    return text


def describe(state: GameState) -> str:
    if state.is_terminal:
        return "Draw." if state.winner is None else f"{'Black' if state.winner == 0 else 'White'} wins."
    who = "Black (●)" if state.current_player == 0 else "White (○)"
    note = state.turn_note()
    return f"{who} to move{', ' + note if note else ''}."


def play_terminal(
    spec: GameSpec, player: Player, human: int, console: Console, seconds: float | None = None
) -> GameState:
    """A game against `player`, each of its moves (and hints) within `seconds` (None: its
    budget alone)."""
    state = spec.new_game()
    console.print(f"{spec} against {player.name}. You play {'black' if human == 0 else 'white'}.")

    def play(action: int) -> None:
        state.apply(action)
        if not state.is_terminal:
            player.observe(0, state, action)  # the bot's tree follows the game

    while not state.is_terminal:
        console.print(render(state))
        console.print(describe(state))
        if state.current_player != human:
            thought = player.think(state, seconds=seconds)
            play(thought.action)
            console.print(f"engine plays {spec.action_name(thought.action)} (value {thought.value:+.2f})")
            continue
        try:
            text = console.input("your move> ").strip().lower()
        except EOFError:
            console.print("bye")
            return state
        if text in ("quit", "exit", "q"):
            return state
        if text == "undo":
            moves = state.history[:-2] if len(state.history) >= 2 else []
            state = spec.replay(moves)
            continue
        if text == "hint":
            console.print(f"hint: {spec.action_name(player.think(state, seconds=seconds).action)}")
            continue
        try:
            play(spec.parse_action(text))
        except IllegalMoveError as exc:
            console.print(f"[red]{exc}[/red]")
    console.print(render(state))
    console.print(describe(state))
    return state


def run_terminal(
    spec: GameSpec, model: Path | None, budget: int, human: int, console: Console, seconds: float | None = PLAY_SECONDS
) -> GameState:
    """`zero play`: the given model, else the pretrained model or the champion that fits,
    else pure MCTS; `budget` simulations (or playouts) per move at most, within `seconds`."""
    choice = choose_model(spec, model)
    if choice.net_game is not None and choice.net_game != spec:
        console.print(choice.note)
    player = protocol_player(spec, choice.path, simulations=budget, playouts=budget, net_game=choice.net_game)
    return play_terminal(spec, player, human, console, seconds)
