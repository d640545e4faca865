"""The DQN baseline against AlphaZero on the same board and the same ladder, after equal
wall-clock training: win rates against pure MCTS (50 games, 25 with each colour, as the
Hex study judged its agent), the two against each other, and their learning curves.
It plays matches, so it sits above the players and the DQN package (beside the stages)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from pipeline.games.base import GameSpec
from pipeline.match.arena import play_match
from pipeline.players.factory import make_player
from pipeline.players.models import checkpoint_game
from pipeline.players.search import NetPlayer, PurePlayer
from pipeline.runtime.tracking import metric_history
from pipeline.search.mcts import SearchConfig


@dataclass
class Side:
    root: Path
    kind: str  # "alphazero" | "dqn"

    @property
    def model(self) -> Path:
        return self.root / "models" / ("champion.pt" if self.kind == "alphazero" else "dqn.pt")

    @property
    def uri(self) -> str:
        return f"sqlite:///{(self.root / 'mlflow.db').resolve()}"


def training_summary(side: Side) -> dict[str, Any]:
    if side.kind == "alphazero":
        state = json.loads((side.root / "models/state.json").read_text())
        history = state["history"]
        seconds = sum(sum(h.get("seconds", {}).values()) for h in history)
        return {
            "generations": state["generation"],
            "self_play_games": state["games_played"],
            "champion_generation": state["champion_generation"],
            "stage_seconds": round(seconds, 1),
            "runs": [h["train_run_id"] for h in history],
            "history": history,
        }
    report = json.loads((side.root / "reports/dqn.json").read_text())
    return {
        "steps": report["steps"],
        "self_play_games": report["games"],
        "seconds": report["seconds"],
        "runs": [report["run_id"]],
    }


def judge(
    spec: GameSpec, sides: dict[str, Side], ladder: list[int], games: int, simulations: int, seed: int
) -> dict[str, Any]:
    search = SearchConfig(simulations=simulations)
    players = {name: make_player(str(side.model), spec, search) for name, side in sides.items()}
    out: dict[str, Any] = {"ladder": {}, "head_to_head": None}
    for name, player in players.items():
        player.name = name
        out["ladder"][name] = {}
        for level in ladder:
            result = play_match(spec, player, PurePlayer(level), games, seed, opening_plies=0)
            out["ladder"][name][level] = result.summary()
    az, dqn = players["alphazero"], players["dqn"]
    if isinstance(az, NetPlayer):
        az.temperature_moves = 0
    out["head_to_head"] = play_match(spec, az, dqn, games, seed + 1, opening_plies=2).summary()
    return out


def plot_curves(spec: GameSpec, sides: dict[str, Side], summaries: dict[str, Any], path: Path) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    offset = 0
    xs, ys = [], []
    for run in summaries["alphazero"]["runs"]:
        points = metric_history(sides["alphazero"].uri, run, "loss")
        xs += [offset + s for s, _ in points]
        ys += [v for _, v in points]
        offset += len(points)
    axes[0].plot(xs, ys, lw=0.8)
    axes[0].set_title(f"AlphaZero training loss ({spec})")
    axes[0].set_xlabel("optimiser step")
    run = summaries["dqn"]["runs"][0]
    loss = metric_history(sides["dqn"].uri, run, "loss")
    eps = metric_history(sides["dqn"].uri, run, "epsilon")
    axes[1].plot([s for s, _ in loss], [v for _, v in loss], lw=0.5, label="TD loss (Huber)")
    axes[1].plot([s for s, _ in eps], [v for _, v in eps], lw=1.2, label="epsilon")
    axes[1].set_title("DQN")
    axes[1].set_xlabel("gradient step")
    axes[1].legend(fontsize=8)
    history = summaries["alphazero"]["history"]
    axes[2].plot([h["generation"] for h in history], [h["vs_pure_score"] for h in history], "o-")
    axes[2].set_title("AlphaZero score vs pure MCTS at its ladder level")
    axes[2].set_xlabel("generation")
    axes[2].set_ylim(-0.05, 1.05)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def board_section(
    spec: GameSpec, sides: dict[str, Side], ladder: list[int], games: int, simulations: int, seed: int, plot: Path
) -> list[str]:
    summaries = {name: training_summary(side) for name, side in sides.items()}
    judged = judge(spec, sides, ladder, games, simulations, seed)
    plot_curves(spec, sides, summaries, plot)
    az, dq = summaries["alphazero"], summaries["dqn"]
    lines = [
        f"## {spec}",
        "",
        f"- AlphaZero: {az['generations']} generations, {az['self_play_games']} self-play games; champion from "
        f"generation {az['champion_generation']}; {az['stage_seconds']} s in self-play + training (the rest of its "
        "budget went to its own evaluation games).",
        f"- DQN: {dq['steps']} gradient steps, {dq['self_play_games']} self-play games, {dq['seconds']:.0f} s.",
        f"- Judged with {games} games per match, colours alternating ({games // 2} as first player); "
        f"AlphaZero searches {simulations} simulations per move, DQN plays its greedy Q move.",
        "",
        "| opponent | AlphaZero score (95% interval) | AlphaZero W-L-D | DQN score (95% interval) | DQN W-L-D |",
        "|---|---|---|---|---|",
    ]
    for level in ladder:
        a, d = judged["ladder"]["alphazero"][level], judged["ladder"]["dqn"][level]
        lines.append(
            f"| pure MCTS {level} | {a['score']:.2f} ({a['interval_95'][0]:.2f}-{a['interval_95'][1]:.2f}) "
            f"| {a['wins']}-{a['losses']}-{a['draws']} | {d['score']:.2f} ({d['interval_95'][0]:.2f}-"
            f"{d['interval_95'][1]:.2f}) | {d['wins']}-{d['losses']}-{d['draws']} |"
        )
    h = judged["head_to_head"]
    lines += [
        "",
        f"Head to head, AlphaZero against DQN: {h['wins']}-{h['losses']}-{h['draws']}, score {h['score']:.2f} "
        f"({h['interval_95'][0]:.2f}-{h['interval_95'][1]:.2f}), Elo {h['elo']:+.0f}.",
        "",
        f"![learning curves]({plot.name})",
        "",
    ]
    return lines


def read_times(path: Path) -> dict[str, float]:
    """Wall-clock of the training runs from lines like `alphazero gomoku:7 seconds 361.2`."""
    measured = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] == "seconds":
            measured[f"{parts[0]} {parts[1]}"] = float(parts[3])
    return measured


def write_report(
    pairs: list[tuple[Path, Path]],
    out: Path,
    ladder: list[int],
    games: int,
    simulations: int,
    seed: int,
    times: dict[str, float] | None = None,
) -> Path:
    lines = [
        "# DQN against AlphaZero at equal wall-clock",
        "",
        "Both trained from scratch on 2 CPU cores for the same wall-clock budget, then judged on the same pure-MCTS "
        "ladder. AlphaZero is the real pipeline (`zero iterate`), its own evaluation games included in its budget; "
        "DQN is `zero dqn train` (Q-eval and Q-target networks, replay memory, RMSProp, epsilon-greedy self-play, "
        "Double DQN, pattern reward shaping for Gomoku, terminal reward only for Hex).",
        "",
    ]
    if times:
        lines += ["Wall-clock of the training runs: " + ", ".join(f"{k} {v:.0f} s" for k, v in times.items()), ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    for az_root, dqn_root in pairs:
        sides = {"alphazero": Side(az_root, "alphazero"), "dqn": Side(dqn_root, "dqn")}
        spec = checkpoint_game(sides["alphazero"].model)
        plot = out.parent / f"dqn_vs_alphazero_{spec.game}{spec.height}.png"
        lines += board_section(spec, sides, ladder, games, simulations, seed, plot)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    return out
