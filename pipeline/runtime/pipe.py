"""A reader that stops reading: `python -m pipeline.tools.X | head` ends the tool quietly.

Python ignores SIGPIPE and raises `BrokenPipeError` at the next write instead, which a tool
would print as a traceback. Restoring the signal's default would end the process on any
closed socket as well (Python's documentation warns against it), so the error is caught at
the entry point only."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import NoReturn

SIGPIPE_EXIT = 141  # 128 + SIGPIPE: what a shell tool ended by the signal returns


def run_main(main: Callable[[], object]) -> NoReturn:
    """Run a command-line entry point and exit: with what it returns where that is a status
    (an int), else 0 (the tools' mains return their figures, for the tests); a closed stdout
    exits 141 without a traceback."""
    try:
        code = main()
    except BrokenPipeError:
        # The interpreter flushes stdout again at exit: point it at devnull so that flush
        # cannot raise a second time.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(SIGPIPE_EXIT)
    sys.exit(code if isinstance(code, int) else 0)
