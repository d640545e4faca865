"""Stage 5, report: reports/report.md with PNG plots. Training curves come back from
MLflow; the ladder and strength history from models/state.json."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import MaxNLocator

from pipeline.config import Params
from pipeline.runtime.atomic import atomic_file
from pipeline.runtime.tracking import metric_history
from pipeline.runtime.workspace import Paths, State, load_state
from pipeline.stages.interface import PromotionReport, StageContext, SummaryReport, details_path, read_report


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


# How a promoted generation is marked in both panels.
STAR = {"marker": "*", "s": 160, "color": "gold", "edgecolor": "k", "zorder": 3}


def plot_gate(ax, history: list[dict[str, Any]]) -> None:
    """The gate's score against the ladder level per generation, with its 95% interval."""
    gens = [h["generation"] for h in history]
    score = [h["vs_pure_score"] for h in history]
    low = [h["vs_pure_score"] - h["vs_pure_interval"][0] for h in history]
    high = [h["vs_pure_interval"][1] - h["vs_pure_score"] for h in history]
    ax.errorbar(gens, score, yerr=[low, high], fmt="o-", capsize=3, label="score vs ladder level (95% Wilson)")
    promoted = [(g, s) for g, s, h in zip(gens, score, history, strict=True) if h["promoted"]]
    if promoted:
        ax.scatter(*zip(*promoted, strict=True), label="promoted (sequential test passed)", **STAR)
    for g, h in zip(gens, history, strict=True):
        ax.annotate(f"{h['ladder']}", (g, -0.02), fontsize=7, ha="center", va="top", color="tab:red")
    ax.axhline(0.5, color="grey", lw=0.6, ls="--")
    ax.set_ylim(-0.12, 1.05)
    ax.set_xlabel("generation (red: pure-MCTS playouts of the ladder level)")
    ax.set_ylabel("score")
    ax.set_title("gate: candidate vs pure MCTS at the ladder level")


def plot_ratings(ax, history: list[dict[str, Any]], ratings: dict[int, float], anchors: dict[int, float]) -> None:
    """Every generation's rating on the pure-MCTS scale, the anchors as lines."""
    if ratings:
        g_r = sorted(ratings)
        ax.plot(g_r, [ratings[g] for g in g_r], "o-", color="tab:blue", label="candidate of each generation")
        champs = [h["generation"] for h in history if h["promoted"] and h["generation"] in ratings]
        if champs:
            ax.scatter(champs, [ratings[g] for g in champs], label="promoted", **STAR)
    first = history[0]["generation"] if history else 0
    for playouts, elo in sorted(anchors.items()):
        ax.axhline(elo, color="tab:red", lw=0.6, ls=":")
        ax.text(first, elo, f" pure:{playouts}", fontsize=7, color="tab:red", va="bottom")
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo (pure-MCTS levels fixed)")
    ax.set_title("rating (Bradley-Terry over all evaluation games)")


def plot_strength(history: list[dict[str, Any]], path, ratings: dict[int, float], anchors: dict[int, float]) -> None:
    """Two panels: the gate's score against the ladder level per generation, and the
    rating of every generation on the pure-MCTS scale."""
    fig, (ax, ax_r) = plt.subplots(1, 2, figsize=(12, 4.2))
    plot_gate(ax, history)
    plot_ratings(ax_r, history, ratings, anchors)
    for a in (ax, ax_r):
        a.grid(alpha=0.3)
        a.legend(loc="upper left", fontsize=8)
        a.xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def generation_ratings(
    params: Params, paths: Paths
) -> tuple[dict[int, float], dict[int, float], dict[str, float], dict[int, float]]:
    """Ratings of every evaluated generation, of the pure-MCTS anchors that were played,
    of any other opponent (external engines) on the same scale, and each generation's
    standard error (`pipeline.stages.promote.rating_fit`)."""
    from pipeline.match.rating import pure_playouts
    from pipeline.stages.promote import rating_fit

    ratings, errors = rating_fit(params, paths)
    gens = {int(n[4:]): v for n, v in ratings.items() if n.startswith("gen-")}
    anchors = {p: v for n, v in ratings.items() if (p := pure_playouts(n)) is not None}
    others = {n: v for n, v in ratings.items() if not n.startswith("gen-") and pure_playouts(n) is None}
    gen_errors = {int(n[4:]): v for n, v in errors.items() if n.startswith("gen-")}
    return gens, anchors, others, gen_errors


def write_csv(path: Path, columns: list[str], rows: list[list[Any]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(rows)
    with atomic_file(path, "w") as f:
        f.write(out.getvalue())


def write_plot_data(curves, history: list[dict[str, Any]], ratings: dict[int, float], folder: Path) -> None:
    """The curves as CSV, for `dvc plots` and the VS Code DVC extension (dvc.yaml `plots:`)."""
    entropy = {s: v for s, v, _ in curves["policy_entropy"]}
    write_csv(
        folder / "training.csv",
        ["step", "generation", "loss", "policy_entropy"],
        [[s, g, round(v, 5), round(entropy.get(s, float("nan")), 5)] for s, v, g in curves["loss"]],
    )
    write_csv(
        folder / "strength.csv",
        ["generation", "games_played", "ladder", "score_vs_ladder", "promoted", "rating"],
        [
            [
                h["generation"],
                h["games_played"],
                h["ladder"],
                h["vs_pure_score"],
                int(h["promoted"]),
                "" if ratings.get(h["generation"]) is None else round(ratings[h["generation"]], 1),
            ]
            for h in history
        ],
    )


def ladder_phrase(state: State) -> str:
    """Where the ladder stands, in the names reports/promotion.json and MLflow use."""
    from pipeline.stages.promote import strongest_beaten

    beaten = strongest_beaten(state.history)
    done = "no pure-MCTS level beaten yet" if beaten is None else f"strongest level beaten pure:{beaten}"
    return f"{done} (`beaten`); the next candidate plays pure:{state.ladder} (`next_level`)"


def header_lines(params: Params, state: State, promotion: PromotionReport | None) -> list[str]:
    lines = [
        f"# zero-pipeline report: {params.game}",
        "",
        f"Generation {state.generation}; champion from generation {state.champion_generation}; "
        f"{state.games_played} self-play games so far; {ladder_phrase(state)}.",
        "",
    ]
    if promotion is not None:
        verdict = "promoted" if promotion.promoted else "not promoted"
        lines += [f"Last decision (generation {promotion.generation}): **{verdict}**.", ""]
        lines += [f"- {r}" for r in promotion.reasons] + [""]
    return lines


def rating_cell(rating: float | None, error: float | None) -> str:
    """A rating and the half-width of its 95% interval, e.g. `429 ± 1233`."""
    from pipeline.match.crosstable import Z95

    if rating is None:
        return ""
    return f"{rating:.0f}" if not error else f"{rating:.0f} ± {Z95 * error:.0f}"


def strength_lines(
    params: Params,
    history: list[dict[str, Any]],
    ratings: dict[int, float],
    errors: dict[int, float] | None = None,
) -> list[str]:
    """The strength section: how it is measured, and one table row per generation (with
    the deepest classical depth beaten once a generation has climbed that ladder)."""
    classical = any("classical_beaten" in h for h in history)
    earlier = any(h.get("vs_earlier_score") is not None for h in history)
    errors = errors or {}
    lines = [
        "## Strength",
        "",
        "Each candidate plays pure MCTS at the ladder level until a sequential probability ratio test "
        "decides; a pass promotes it, and that level is then the strongest beaten (`beaten`). "
        "The rating is a Bradley-Terry fit over every evaluation game, with pure-MCTS "
        f"{params.evaluate.anchor_playouts} playouts at 0 Elo and {params.evaluate.anchor_elo_per_doubling:g} "
        "Elo per doubling of playouts (a convention that fixes the scale), with its 95% interval. "
        "It is an estimate from the games a generation played, not a level it beat: one that played "
        "only the ladder level is placed by its score there (one virtual draw keeps a sweep finite), "
        "so a sweep of a few games can rate it above levels it never met, with a wide interval.",
        "",
    ]
    if classical:
        lines += [
            "Beside the gate, each candidate climbs the classical player's depths "
            f"({params.evaluate.classical_games} games each; alpha-beta over patterns, nothing learned) until it "
            "scores below 0.5: the deepest depth it scored 0.5 or more against is its classical column (0: none). "
            "Promotion still needs the pure-MCTS gate alone.",
            "",
        ]
    if earlier:
        lines += [
            "The gate also asks whether each candidate is clearly stronger than the champion of "
            f"{params.evaluate.vs_earlier.back if params.evaluate.vs_earlier else 'a few'} promotions ago "
            "(`evaluate.vs_earlier`): the last column, that champion's generation in brackets.",
            "",
        ]
    lines += [
        "| generation | self-play games so far | ladder level (playouts) | games | score vs level (95% interval) "
        "| LLR | score vs champion | promoted | strongest level beaten | rating (Elo, 95%) | self-play s | train s |"
        + (" classical depth beaten |" if classical else "")
        + (" score vs earlier champion |" if earlier else ""),
        "|---:|---:|---:|---:|---|---:|---:|:---:|---:|---:|---:|---:|"
        + ("---:|" if classical else "")
        + ("---:|" if earlier else ""),
    ]
    beaten = None
    for h in history:
        lo, hi = h["vs_pure_interval"]
        champ = "" if h.get("vs_champion_score") is None else f"{h['vs_champion_score']:.2f}"
        secs = h.get("seconds", {})
        if h["promoted"]:
            beaten = max(beaten or 0, h["ladder"])
        rating = rating_cell(ratings.get(h["generation"]), errors.get(h["generation"]))
        llr = "" if h.get("vs_pure_llr") is None else f"{h['vs_pure_llr']:+.2f}"
        lines.append(
            f"| {h['generation']} | {h['games_played']} | {h['ladder']} | {h.get('vs_pure_games', '')} "
            f"| {h['vs_pure_score']:.2f} ({lo:.2f}-{hi:.2f}) | {llr} | {champ} "
            f"| {'yes' if h['promoted'] else 'no'} | {beaten or '-'} "
            f"| {rating} | {secs.get('selfplay', '')} | {secs.get('train', '')} |"
            + (f" {h.get('classical_beaten', '')} |" if classical else "")
            + (f" {earlier_cell(h)} |" if earlier else "")
        )
    return lines


def earlier_cell(h: dict[str, Any]) -> str:
    if h.get("vs_earlier_score") is None:
        return ""
    return f"{h['vs_earlier_score']:.2f} ({h['vs_earlier_generation']})"


def replay_draws_line(params: Params, history: list[dict[str, Any]]) -> list[str]:
    """How often the training draws each position in its life, from the last generation's
    positions and the current steps and batch. The window does not enter: each generation
    adds a window's worth of draws and one generation's positions, and a position stays for
    `window` generations. Far above a handful, the net fits its own games (the long runs
    went flat at ~19-24 draws a position; docs/training.md)."""
    positions = history[-1].get("positions") if history else None
    if not positions:
        return []
    t = params.train
    draws = t.steps * t.batch_size / positions
    return [
        f"Each position is drawn about {draws:.1f} times in its life: {t.steps} steps of {t.batch_size} "
        f"over the {positions:,} positions a generation keeps (generation {history[-1]['generation']}), "
        f"in a window of {t.window} generations.",
        "",
    ]


def closing_lines(others: dict[str, float], curves) -> list[str]:
    """The other opponents' ratings (external engines, classical players), the plots, and
    the training figures."""
    lines = []
    if others:
        lines += ["", "Other opponents on the same scale (they take no part in promotion):", ""]
        lines += ["| opponent | rating (Elo) |", "|---|---:|"]
        lines += [f"| {n} | {v:.0f} |" for n, v in sorted(others.items(), key=lambda kv: -kv[1])]
    lines += ["", "![strength](strength.png)", "", "## Training", "", "![training](training.png)", ""]
    if curves["loss"]:
        first, last = curves["loss"][0][1], curves["loss"][-1][1]
        e_first, e_last = curves["policy_entropy"][0][1], curves["policy_entropy"][-1][1]
        lines += [f"Loss {first:.3f} -> {last:.3f}; policy entropy {e_first:.3f} -> {e_last:.3f}.", ""]
    return lines


def run(context: StageContext) -> SummaryReport:
    params, paths = context.params, context.paths
    state = load_state(paths)
    history = state.history
    paths.reports.mkdir(parents=True, exist_ok=True)
    curves = training_curves(context.tracking_uri, history)
    plot_training(curves, paths.report("training.png"))
    ratings, anchors, others, errors = generation_ratings(params, paths)
    if history:
        plot_strength(history, paths.report("strength.png"), ratings, anchors)
    write_plot_data(curves, history, ratings, paths.report("plots"))
    promotion = read_report(paths, PromotionReport) if details_path(paths, "promotion").is_file() else None
    lines = header_lines(params, state, promotion) + strength_lines(params, history, ratings, errors)
    lines += closing_lines(others, curves) + replay_draws_line(params, history)
    paths.report("report.md").write_text("\n".join(lines))
    return SummaryReport(generation=state.generation, report=str(paths.report("report.md")))
