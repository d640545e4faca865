"""zero-pipeline: AlphaZero-style self-play for connection games."""

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"


def _numba_cache_dir() -> str:
    """numba's disk cache is keyed on each function's own file, so a change in a kernel it
    calls from another module would leave stale machine code. Keying the cache directory
    on the source of every compiled module makes any change start a fresh cache."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for sub in ("games", "search", "tactics"):
        for path in sorted((package / sub).rglob("*.py")):  # tactics/lines and tactics/hex too
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "zero-pipeline" / "numba"
    return str(base / digest.hexdigest()[:16])


# Must be set before numba is first imported; a user's own setting wins.
os.environ.setdefault("NUMBA_CACHE_DIR", _numba_cache_dir())
