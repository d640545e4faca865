"""A tournament's standings: the crosstable (each player's points against each other one),
and ratings by a Bradley-Terry fit with 95% intervals, Ordo-style: one player (the anchor)
at 0 Elo, the others relative to it.

The fit is `pipeline.match.rating.fit_ratings` (the maximum a posteriori estimate with one
virtual draw a pairing, so a clean sweep gives a finite rating); the intervals come from
the curvature of the same log-posterior at the fit (the inverse of the Fisher information
over the free players, the anchor fixed): rating +- 1.96 standard errors. A player with no
path of games to the anchor gets no rating. Written as Markdown (crosstable.md), JSON
(ratings.json) and a PNG plot of the ratings with their intervals (ratings.png)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.match.rating import ELO, fit_ratings
from pipeline.runtime.atomic import atomic_file

Z95 = 1.959964
PRIOR_DRAWS = 1.0  # virtual draws a pairing in the fit (as `fit_ratings` counts them)


def rating_errors(
    games: list[tuple[str, str, float]],
    ratings: dict[str, float],
    anchor: str | Iterable[str],
    prior_draws: float = PRIOR_DRAWS,
) -> dict[str, float]:
    """Standard error (Elo) of each rating relative to the anchor's (or anchors', all held
    fixed), from the fit's curvature: the inverse of the information matrix over the
    players other than the anchors. An anchor's own error is 0."""
    fixed = {anchor} if isinstance(anchor, str) else set(anchor)
    names = sorted(ratings)
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    played = np.zeros((n, n))
    for a, b, _ in games:
        played[index[a], index[b]] += 1
        played[index[b], index[a]] += 1
    played += prior_draws * (played > 0)
    r = np.array([ratings[name] / ELO for name in names])
    e = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
    w = played * e * (1.0 - e)
    information = np.diag(w.sum(axis=1)) - w
    free = [index[name] for name in names if name not in fixed]
    errors = dict.fromkeys(fixed, 0.0)
    if free:
        covariance = np.linalg.pinv(information[np.ix_(free, free)])
        for k, i in enumerate(free):
            errors[names[i]] = float(np.sqrt(max(covariance[k, k], 0.0)) * ELO)
    return errors


def connected(games: list[tuple[str, str, float]], start: str) -> set[str]:
    """The players linked to `start` by a chain of games."""
    neighbours: dict[str, set[str]] = {}
    for a, b, _ in games:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    seen, todo = {start}, [start]
    while todo:
        for other in neighbours.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


@dataclass
class Standings:
    names: list[str]  # as listed
    anchor: str
    points: dict[tuple[str, str], float]  # (a, b): a's points against b
    played: dict[tuple[str, str], int]  # (a, b): games between them (both keys)
    ratings: dict[str, float | None]  # Elo, None: no games linking the player to the anchor
    errors: dict[str, float]  # standard error of the rating (Elo)

    @staticmethod
    def of(games: list[tuple[str, str, float]], names: list[str], anchor: str | None = None) -> Standings:
        """From (player, opponent, player's score) triples; `anchor` (default the first
        of `names`) is 0 Elo."""
        anchor = anchor or names[0]
        if anchor not in names:
            raise ValueError(f"--anchor {anchor}: not one of the players ({', '.join(names)})")
        points: dict[tuple[str, str], float] = {}
        played: dict[tuple[str, str], int] = {}
        for a, b, s in games:
            points[a, b] = points.get((a, b), 0.0) + s
            points[b, a] = points.get((b, a), 0.0) + 1.0 - s
            played[a, b] = played.get((a, b), 0) + 1
            played[b, a] = played.get((b, a), 0) + 1
        linked = connected(games, anchor)
        fitted = [g for g in games if g[0] in linked]
        ratings: dict[str, float | None] = dict.fromkeys(names)
        errors: dict[str, float] = {}
        if fitted:
            fit = fit_ratings(fitted, {anchor: 0.0}, prior_draws=PRIOR_DRAWS)
            ratings.update({name: fit[name] for name in fit if name in ratings})
            errors = rating_errors(fitted, fit, anchor)
        else:
            ratings[anchor] = 0.0
            errors = {anchor: 0.0}
        return Standings(names, anchor, points, played, ratings, errors)

    def total(self, name: str) -> tuple[float, int]:
        """(points, games) of `name` against everyone."""
        pts = sum(v for (a, _), v in self.points.items() if a == name)
        games = sum(v for (a, _), v in self.played.items() if a == name)
        return pts, games

    @property
    def games(self) -> int:
        return sum(self.played.values()) // 2

    def order(self) -> list[str]:
        """Best first: by rating, the unrated last (by score)."""

        def key(name: str) -> tuple[int, float, float]:
            rating = self.ratings[name]
            pts, games = self.total(name)
            return (rating is None, -(rating or 0.0), -(pts / games if games else 0.0))

        return sorted(self.names, key=key)

    def interval(self, name: str) -> tuple[float, float] | None:
        rating = self.ratings[name]
        if rating is None:
            return None
        half = Z95 * self.errors.get(name, 0.0)
        return rating - half, rating + half

    def cell(self, a: str, b: str) -> str:
        """a's result against b: `points/games`, `—` on the diagonal, `·` if they never met."""
        if a == b:
            return "—"
        games = self.played.get((a, b), 0)
        return f"{number(self.points[a, b])}/{games}" if games else "·"

    def rows(self) -> list[list[str]]:
        """The crosstable's rows, best first: rank, player, Elo, 95% interval, points,
        games, score, then a cell for each player (in the same order)."""
        order = self.order()
        out = []
        for rank, name in enumerate(order, start=1):
            rating, interval = self.ratings[name], self.interval(name)
            pts, games = self.total(name)
            out.append(
                [
                    str(rank),
                    name,
                    "—" if rating is None else f"{rating:+.0f}" if name != self.anchor else "0",
                    "—"
                    if interval is None
                    else "anchor"
                    if name == self.anchor
                    else f"[{interval[0]:+.0f}, {interval[1]:+.0f}]",
                    number(pts),
                    str(games),
                    f"{100 * pts / games:.1f}%" if games else "—",
                    *(self.cell(name, other) for other in order),
                ]
            )
        return out

    def header(self) -> list[str]:
        return ["#", "player", "Elo", "95%", "points", "games", "score", *self.order()]

    def as_dict(self) -> dict[str, Any]:
        players = []
        for name in self.order():
            pts, games = self.total(name)
            interval = self.interval(name)
            rating = self.ratings[name]
            players.append(
                {
                    "name": name,
                    "elo": None if rating is None else round(rating, 1),
                    "interval_95": None if interval is None else [round(interval[0], 1), round(interval[1], 1)],
                    "points": pts,
                    "games": games,
                    "score": round(pts / games, 4) if games else None,
                }
            )
        crosstable = {
            a: {
                b: {"points": self.points[a, b], "games": self.played[a, b]}
                for b in self.names
                if (a, b) in self.played
            }
            for a in self.names
        }
        return {"anchor": self.anchor, "games": self.games, "players": players, "crosstable": crosstable}

    def markdown(self, title: str, notes: list[str]) -> str:
        header = self.header()
        align = ["---:", "---", "---:", "---", "---:", "---:", "---:"] + [":---:"] * (len(header) - 7)
        lines = [f"# {title}", "", *notes, ""] if notes else [f"# {title}", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join(align) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows()]
        return "\n".join(lines) + "\n"

    def rich_table(self, title: str) -> Any:
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        numeric = {"#", "Elo", "points", "games", "score"}
        for i, column in enumerate(self.header()):
            table.add_column(
                column if i < 7 else f"{column}", justify="right" if column in numeric or i >= 7 else "left"
            )
        for row in self.rows():
            table.add_row(*row)
        return table

    def plot(self, path: Path, title: str) -> Path:
        """Each rated player's Elo with its 95% interval, best at the top (PNG)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rated = [n for n in self.order() if self.ratings[n] is not None][::-1]
        values = [float(self.ratings[n] or 0.0) for n in rated]
        intervals = [self.interval(n) or (v, v) for n, v in zip(rated, values, strict=True)]
        low = [v - lo for v, (lo, _) in zip(values, intervals, strict=True)]
        high = [hi - v for v, (_, hi) in zip(values, intervals, strict=True)]
        fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * max(1, len(rated))))
        ax.errorbar(values, range(len(rated)), xerr=[low, high], fmt="o", capsize=4, color="tab:blue")
        if self.anchor in rated:
            ax.plot([0.0], [rated.index(self.anchor)], "s", color="tab:red", label=f"anchor: {self.anchor} = 0")
            ax.legend(loc="lower right", fontsize=8)
        ax.axvline(0.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_yticks(range(len(rated)), rated)
        ax.set_xlabel("Elo (Bradley-Terry, 95% interval)")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path, "wb", suffix=".png") as f:
            fig.savefig(f, format="png", dpi=120)
        plt.close(fig)
        return path

    def write(self, directory: Path, title: str, notes: list[str], extra: dict[str, Any]) -> list[Path]:
        """crosstable.md, ratings.json (with `extra`: the settings) and ratings.png."""
        directory = Path(directory)
        table = directory / "crosstable.md"
        with atomic_file(table, "w") as f:
            f.write(self.markdown(title, notes))
        ratings = directory / "ratings.json"
        with atomic_file(ratings, "w") as f:
            f.write(json.dumps({**extra, **self.as_dict()}, indent=2) + "\n")
        return [table, ratings, self.plot(directory / "ratings.png", title)]


def number(points: float) -> str:
    """Points as a crosstable shows them: 7, 6.5."""
    return f"{points:g}"
