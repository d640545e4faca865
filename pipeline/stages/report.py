"""Stage 5, report: reports/report.md with PNG plots. Training curves come back from
MLflow; the ladder and strength history from models/state.json."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from pipeline.config import Params
from pipeline.tracking import metric_history
from pipeline.workspace import Paths, load_state, read_json


def training_curves(uri: str, history: list[dict[str, Any]]) -> dict[str, list[tuple[int, float, int]]]:
    """loss and policy_entropy of every generation's run on one step axis:
    (global step, value, generation)."""
    curves: dict[str, list[tuple[int, float, int]]] = {"loss": [], "policy_entropy": []}
    offset = 0
    for h in history:
        run_id = h.get("train_run_id")
        if not run_id:
            continue
        last = 0
        for key in curves:
            points = metric_history(uri, run_id, key)
            curves[key] += [(offset + s, v, h["generation"]) for s, v in points]
            if points:
                last = max(last, points[-1][0] + 1)
        offset += last
    return curves


def plot_training(curves, path) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, key, title in ((axes[0], "loss", "training loss"), (axes[1], "policy_entropy", "policy entropy")):
        pts = curves[key]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=0.8)
            starts = {}
            for s, _, g in pts:
                starts.setdefault(g, s)
            for g, s in starts.items():
                ax.axvline(s, color="grey", lw=0.5, ls=":")
                ax.text(s, ax.get_ylim()[1], f"g{g}", fontsize=7, va="top")
        ax.set_title(title)
        ax.set_xlabel("optimiser step (all generations)")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_strength(history, path) -> None:
    gens = [h["generation"] for h in history]
    score = [h["vs_pure_score"] for h in history]
    low = [h["vs_pure_score"] - h["vs_pure_interval"][0] for h in history]
    high = [h["vs_pure_interval"][1] - h["vs_pure_score"] for h in history]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.errorbar(gens, score, yerr=[low, high], fmt="o-", capsize=3, label="score vs pure MCTS (95% Wilson)")
    ax.scatter(
        [g for g, h in zip(gens, history, strict=True) if h["promoted"]],
        [s for s, h in zip(score, history, strict=True) if h["promoted"]],
        marker="*",
        s=140,
        color="gold",
        edgecolor="k",
        zorder=3,
        label="promoted",
    )
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("generation")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("score")
    ax.grid(alpha=0.3)
    ax2 = ax.twinx()
    ax2.step(gens, [h["ladder"] for h in history], where="mid", color="tab:red", label="ladder (playouts)")
    ax2.set_ylabel("pure-MCTS playouts")
    lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + ax2.get_legend_handles_labels()[1]
    ax.legend(lines, labels, loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_report(params: Params, paths: Paths, tracking_uri: str) -> dict[str, Any]:
    state = load_state(paths)
    history = state.history
    paths.reports.mkdir(parents=True, exist_ok=True)
    curves = training_curves(tracking_uri, history)
    plot_training(curves, paths.report("training.png"))
    if history:
        plot_strength(history, paths.report("strength.png"))
    promotion = read_json(paths.report("promotion.json")) if paths.report("promotion.json").is_file() else {}
    lines = [
        f"# zero-pipeline report: {params.game}",
        "",
        f"Generation {state.generation}; champion from generation {state.champion_generation}; "
        f"{state.games_played} self-play games so far; ladder at pure MCTS {state.ladder} playouts.",
        "",
    ]
    if promotion:
        verdict = "promoted" if promotion["promoted"] else "not promoted"
        lines += [f"Last decision (generation {promotion['generation']}): **{verdict}**.", ""]
        lines += [f"- {r}" for r in promotion["reasons"]] + [""]
    lines += [
        "## Strength",
        "",
        "| generation | games played so far | pure-MCTS playouts | score vs pure (95% interval) "
        "| score vs champion | promoted | self-play s | train s |",
        "|---:|---:|---:|---|---:|:---:|---:|---:|",
    ]
    for h in history:
        lo, hi = h["vs_pure_interval"]
        champ = "" if h.get("vs_champion_score") is None else f"{h['vs_champion_score']:.2f}"
        secs = h.get("seconds", {})
        lines.append(
            f"| {h['generation']} | {h['games_played']} | {h['ladder']} | {h['vs_pure_score']:.2f} "
            f"({lo:.2f}-{hi:.2f}) | {champ} | {'yes' if h['promoted'] else 'no'} "
            f"| {secs.get('selfplay', '')} | {secs.get('train', '')} |"
        )
    lines += ["", "![strength](strength.png)", "", "## Training", "", "![training](training.png)", ""]
    if curves["loss"]:
        first, last = curves["loss"][0][1], curves["loss"][-1][1]
        e_first, e_last = curves["policy_entropy"][0][1], curves["policy_entropy"][-1][1]
        lines += [f"Loss {first:.3f} -> {last:.3f}; policy entropy {e_first:.3f} -> {e_last:.3f}.", ""]
    paths.report("report.md").write_text("\n".join(lines))
    return {"generation": state.generation, "report": str(paths.report("report.md"))}
