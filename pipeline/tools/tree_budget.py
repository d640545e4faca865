"""The repository's weight: what git tracks at HEAD against the budget the project keeps.

A fresh clone carries every file that was ever committed, so the tree stays small by rule:
checkpoints and replay shards outside `models/pretrained/` and a run's resume point
(`reports/runs/*/snapshot/`) go through DVC, and the whole tracked tree stays under a budget
that a device trip (64 MiB) can carry. `make test` runs this check (tests/unit/
test_tree_budget.py); run it by hand to see where the bytes are:

    python -m pipeline.tools.tree_budget [--budget-mib 48] [--file-mib 5] [--top 10]

It prints the tracked tree's size, the largest files, and each breach; exit 1 on a breach."""

from __future__ import annotations

import argparse
import fnmatch
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime.pipe import run_main

MIB = 1024 * 1024
TREE_BUDGET_MIB = 48.0  # what HEAD may weigh: a device trip carries 64 MiB with the runs' work folders
FILE_LIMIT_MIB = 5.0  # one tracked file, outside the places below
# Where a big file belongs in git: the shipped models, and a run's resume point.
BIG_FILE_HOMES = ("models/pretrained/*", "reports/runs/*/snapshot/*")  # fnmatch: * spans folders


@dataclass
class TreeWeight:
    total: int = 0
    files: list[tuple[str, int]] = field(default_factory=list)  # (path, bytes), largest first
    breaches: list[str] = field(default_factory=list)


def tracked_files(root: Path) -> list[str]:
    """The files git tracks in `root` (its index: HEAD plus what is staged)."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True)
    return [name for name in out.stdout.decode().split("\0") if name]


def may_be_big(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in BIG_FILE_HOMES)


def weigh(root: Path, budget_mib: float = TREE_BUDGET_MIB, file_mib: float = FILE_LIMIT_MIB) -> TreeWeight:
    weight = TreeWeight()
    for name in tracked_files(root):
        path = root / name
        if path.is_file() and not path.is_symlink():
            weight.files.append((name, path.stat().st_size))
    weight.files.sort(key=lambda item: -item[1])
    weight.total = sum(size for _, size in weight.files)
    for name, size in weight.files:
        if size > file_mib * MIB and not may_be_big(name):
            weight.breaches.append(
                f"{name}: {size / MIB:.1f} MiB, over {file_mib:g} MiB outside models/pretrained/ and run "
                "snapshots (track it with `dvc add`, or delete it)"
            )
    if weight.total > budget_mib * MIB:
        weight.breaches.append(
            f"the tracked tree weighs {weight.total / MIB:.1f} MiB, over its {budget_mib:g} MiB budget"
        )
    return weight


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.tools.tree_budget", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path("."), help="the repository (default: here)")
    parser.add_argument("--budget-mib", type=float, default=TREE_BUDGET_MIB, help="the whole tracked tree")
    parser.add_argument("--file-mib", type=float, default=FILE_LIMIT_MIB, help="one file outside its homes")
    parser.add_argument("--top", type=int, default=10, help="how many of the largest files to list")
    args = parser.parse_args(argv)
    try:
        weight = weigh(args.root, args.budget_mib, args.file_mib)
    except (subprocess.CalledProcessError, FileNotFoundError):
        print(f"{args.root}: not a git checkout", file=sys.stderr)
        return 2
    print(f"tracked tree: {weight.total / MIB:.1f} MiB in {len(weight.files)} files (budget {args.budget_mib:g} MiB)")
    for name, size in weight.files[: args.top]:
        print(f"  {size / MIB:6.2f} MiB  {name}")
    for breach in weight.breaches:
        print(f"over budget: {breach}")
    return 1 if weight.breaches else 0


if __name__ == "__main__":
    run_main(main)
