"""Two (or more) `zero iterate` runs side by side at equal wall-clock: for each generation,
the minutes since the run started when it was done, and what its gate said (RESULTS.md:
learner against champion self-play, the 15x15 curriculum, Gumbel against PUCT).

    python -m pipeline.tools.compare_runs reports/runs/9x9-gumbel-vs-puct/g9g \\
        reports/runs/9x9-gumbel-vs-puct/g9p --minutes 45

A run folder holds `started` (an ISO time written just before `zero iterate`), `run.log`
(its output) and `reports/plots/strength.csv`. A generation is done when the next
iteration starts, or at `ended` for the last one. The ratings of two runs come from
separate fits, but both are anchored to the same pure-MCTS levels (pure:1000 = 0, +100 per
doubling), so they are on one scale as far as the pure-MCTS games tie them to it."""

from __future__ import annotations

import argparse
import csv
import re
from datetime import datetime, timedelta
from pathlib import Path

ITERATION = re.compile(r"^(\d\d):(\d\d):(\d\d)\.\d+ \|.* iteration (\d+)/\d+: generation (\d+)")


def moment(path: Path) -> datetime:
    return datetime.fromisoformat(path.read_text().strip().replace("Z", "+00:00"))


def done_times(run: Path) -> dict[int, float]:
    """generation -> minutes from the start to its end."""
    start = moment(run / "started")
    begun: dict[int, datetime] = {}
    for line in (run / "run.log").read_text(errors="replace").splitlines():
        m = ITERATION.match(line)
        if m:
            t = start.replace(hour=int(m[1]), minute=int(m[2]), second=int(m[3]), microsecond=0)
            if t < start - timedelta(minutes=1):
                t += timedelta(days=1)
            begun[int(m[5])] = t
    out = {g - 1: (t - start).total_seconds() / 60 for g, t in begun.items() if g - 1 in begun}
    if begun and (run / "ended").is_file():
        out[max(begun)] = (moment(run / "ended") - start).total_seconds() / 60
    return out


def rows(run: Path) -> list[dict]:
    """strength.csv's rows, each with the minutes it was done at and the strongest level beaten so far."""
    times = done_times(run)
    with open(run / "reports" / "plots" / "strength.csv") as f:
        table = list(csv.DictReader(f))
    best = 0
    out = []
    for r in table:
        g = int(r["generation"])
        if r["promoted"] == "1":
            best = max(best, int(r["ladder"]))
        out.append({**r, "minutes": times.get(g), "beaten": best})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--minutes", type=float, default=45.0, help="the wall-clock mark to compare at")
    args = parser.parse_args(argv)
    for run in args.runs:
        missing = [name for name in ("started", "run.log", "reports/plots/strength.csv") if not (run / name).is_file()]
        if missing:
            parser.error(f"{run}: not a run folder (missing {', '.join(missing)})")
    marks = []
    for run in args.runs:
        table = rows(run)
        print(f"\n### {run.name}\n")
        print("| gen | done at (min) | self-play games | ladder | score vs ladder | promoted | beaten | rating |")
        print("|---:|---:|---:|---:|---:|:---:|---:|---:|")
        for r in table:
            at = f"{r['minutes']:.1f}" if r["minutes"] is not None else "-"
            print(
                f"| {r['generation']} | {at} | {r['games_played']} | {r['ladder']} | {float(r['score_vs_ladder']):.2f} "
                f"| {'yes' if r['promoted'] == '1' else 'no'} | {r['beaten'] or '-'} | {float(r['rating']):.0f} |"
            )
        within = [r for r in table if r["minutes"] is not None and r["minutes"] <= args.minutes]
        marks.append((run.name, within[-1] if within else None))
    print(f"\n### at {args.minutes:g} minutes\n")
    print("| run | generations done | self-play games | strongest level beaten | rating |")
    print("|---|---:|---:|---:|---:|")
    for name, r in marks:
        if r is None:
            print(f"| {name} | 0 | 0 | - | - |")
        else:
            beaten = r["beaten"] or "-"
            print(f"| {name} | {r['generation']} | {r['games_played']} | {beaten} | {float(r['rating']):.0f} |")


if __name__ == "__main__":
    main()
