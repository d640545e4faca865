"""A tool piped into a reader that stops early (`| head`) ends without a traceback."""

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.runtime.pipe import SIGPIPE_EXIT

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]

# Enough output to outgrow the pipe's buffer after the reader has gone.
NOISY = "def main():\n    for _ in range(20000):\n        print('a line of a long table ' * 4)\n"


def read_one_line_then_close(code: str) -> tuple[int, bytes]:
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=60), err


def test_a_closed_stdout_ends_the_tool_quietly_with_141():
    code, err = read_one_line_then_close(NOISY + "from pipeline.runtime.pipe import run_main\nrun_main(main)\n")
    assert code == SIGPIPE_EXIT
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()


def test_without_it_python_prints_the_traceback():
    # The control: the same program with a bare main() is what the tools did before.
    code, err = read_one_line_then_close(NOISY + "main()\n")
    assert code != 0
    assert b"BrokenPipeError" in err


@pytest.mark.parametrize(("returned", "status"), [(3, 3), (None, 0), ({"figures": 1}, 0)])
def test_the_status_is_what_main_returns_when_it_is_an_int(returned, status):
    from pipeline.runtime.pipe import run_main

    with pytest.raises(SystemExit) as stop:
        run_main(lambda: returned)
    assert stop.value.code == status
