"""The `zero` command line. Heavy imports (torch, the pipeline stages) happen inside the
commands, so `zero --help` and the compiled engine start fast."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="zero-pipeline: AlphaZero-style self-play for Gomoku, Connect6 and Hex.", no_args_is_help=True)
# A pipe gets a wide table rather than Rich's 80-column default with truncated cells.
console = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True)


@app.callback()
def main() -> None:
    """Self-play, training, evaluation and play for connection games."""


@app.command()
def bench(
    quick: Annotated[bool, typer.Option(help="small budgets: a smoke run in about a minute")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print records as JSON instead of a table")] = False,
    board: Annotated[list[str] | None, typer.Option(help="game spec to measure, e.g. gomoku:15 (repeatable)")] = None,
    games: Annotated[int, typer.Option(min=1, help="games in lockstep (self-play batch = games x leaves)")] = 32,
    threads: Annotated[int | None, typer.Option(min=1, help="torch threads for the forward pass")] = None,
) -> None:
    """Measure pure-MCTS playouts/s, network search sims/s and the bare forward rate."""
    from pipeline.bench import BOARDS, as_dicts, run_bench
    from pipeline.games.base import GameSpec

    boards = tuple(board) if board else BOARDS
    for text in boards:
        try:
            GameSpec.parse(text)
        except ValueError as exc:
            err.print(f"[red]error:[/red] --board {text!r}: {exc}")
            raise typer.Exit(2) from None
    with err.status("benchmarking") as status:
        records = run_bench(quick, boards, games, threads, progress=lambda m: status.update(f"benchmarking: {m}"))
    if as_json:
        print(json.dumps(as_dicts(records), indent=1))
        return
    table = Table(title="zero bench" + (" (quick)" if quick else ""))
    for col in ("game", "size", "rules", "position", "figure", "value", "unit"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for r in records:
        table.add_row(r.game, r.size, r.rules, r.position, r.figure, f"{r.value:,.3f}", r.unit)
    console.print(table)


if __name__ == "__main__":
    app()
