"""The manual: README.md stays a front page, every page under docs/ is in mkdocs.yml's nav,
the docs never link outside the repository, and `mkdocs build --strict` passes (a broken
link or anchor, or a page left out of the nav, fails it)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
README_MAX_LINES = 220
# A Markdown link or image to a web address, an autolink, or an HTML href/src to one.
EXTERNAL_LINK = re.compile(r"\]\(\s*<?(?:https?:)?//|<https?://|(?:href|src)\s*=\s*[\"'](?:https?:)?//", re.IGNORECASE)


def nav_pages(nav) -> list[str]:
    """Every page a MkDocs nav names (nested sections included)."""
    pages: list[str] = []
    for item in nav:
        if isinstance(item, str):
            pages.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def mkdocs_config() -> dict:
    return yaml.safe_load((REPO / "mkdocs.yml").read_text())


def doc_pages() -> list[str]:
    return sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def test_readme_is_a_front_page():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/"


def test_every_page_is_in_the_nav():
    config = mkdocs_config()
    assert config.get("docs_dir", "docs") == "docs"
    in_nav = nav_pages(config["nav"])
    missing = [page for page in doc_pages() if page not in in_nav]
    assert not missing, f"pages under docs/ missing from mkdocs.yml's nav: {missing}"
    absent = [page for page in in_nav if not (DOCS / page).is_file()]
    assert not absent, f"mkdocs.yml's nav names pages that are not under docs/: {absent}"


def test_docs_never_link_outside_the_repository():
    for path in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not EXTERNAL_LINK.search(line), f"{path.relative_to(REPO)}:{number} links outside the repository"


def mkdocs_program() -> str | None:
    here = Path(sys.executable).with_name("mkdocs")
    return str(here) if here.is_file() else shutil.which("mkdocs")


def test_mkdocs_build_strict(tmp_path):
    program = mkdocs_program()
    if program is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[dev]' installs mkdocs and mkdocs-material)")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    out = subprocess.run(
        [program, "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, f"mkdocs build --strict failed:\n{out.stdout}\n{out.stderr}"
    assert (site / "index.html").is_file()
