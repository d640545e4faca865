"""Atomic writes: the file appears whole, with the mode the user's umask gives a new file
(not the 0600 of the temp file it is written through)."""

import os
import stat

import pytest

from pipeline.runtime.atomic import atomic_file, copy_atomic, current_umask, new_file_mode

pytestmark = pytest.mark.unit


@pytest.fixture
def umask():
    """Set the umask for one test and put the old one back."""
    before = os.umask(0o022)
    os.umask(before)

    def set_to(mask: int) -> None:
        os.umask(mask)

    yield set_to
    os.umask(before)


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_a_written_file_has_the_mode_the_umask_gives(tmp_path, umask, mask):
    umask(mask)
    assert current_umask() == mask
    path = tmp_path / "reports" / "promotion.json"
    with atomic_file(path, "w") as f:
        f.write("{}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask == new_file_mode()
    plain = tmp_path / "plain.json"
    plain.write_text("{}")
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)


def test_a_copy_has_the_mode_the_umask_gives_and_no_temp_file_stays(tmp_path, umask):
    umask(0o022)
    source = tmp_path / "candidate.pt"
    source.write_bytes(b"weights")
    source.chmod(0o600)
    target = tmp_path / "models" / "champion.pt"
    copy_atomic(source, target)
    assert target.read_bytes() == b"weights"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["champion.pt"]


def test_a_failed_write_leaves_the_old_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    with pytest.raises(RuntimeError), atomic_file(path, "w") as f:
        f.write("half")
        raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]
