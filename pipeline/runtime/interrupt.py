"""Ctrl-C and SIGTERM: stop soon, keep what is finished, leave nothing behind.

The first SIGINT or SIGTERM sets a stop flag. Long loops that can stop cleanly (the
self-play game loop between moves, training between steps) run inside `cooperative()`
and check the flag themselves; elsewhere the signal raises `Interrupted` in the main
thread at once. Either way a watchdog ends the process after `grace` seconds, and a
second signal ends it at once: both wait for an atomic write in progress (`write_lock`),
then stop this process's children (Prefect's temporary server, pool workers) and exit
with 128 + the signal number. Finished shards and files are always whole, because every
write is atomic and the hard exit never cuts one."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import NoReturn, TypeVar

T = TypeVar("T")

GRACE_SECONDS = 8.0  # the tests ask for an exit within 10 s of the first signal

write_lock = threading.RLock()  # held by atomic writes (`writing`); a hard exit waits for it
_local = threading.local()
_exit_after_write: str | None = None

_stop = threading.Event()
_signal: int | None = None
_cooperative = 0
_installed = False
_protected: set[int] = set()  # children that must outlive the graceful stop (the Prefect server)
_delegates: list[threading.Thread] = []  # threads the main thread waits on (`run_in_thread`)


class Interrupted(Exception):
    """Raised where work stopped because of a signal; the message says what was kept."""


def requested() -> bool:
    """True once SIGINT or SIGTERM has arrived (in this process)."""
    return _stop.is_set()


def check(what: str = "stopped") -> None:
    if _stop.is_set():
        raise Interrupted(what)


def exit_code() -> int:
    """The conventional status of a process ended by the signal: 130 (SIGINT), 143 (SIGTERM)."""
    return 128 + (_signal or signal.SIGINT)


def signal_name() -> str:
    return signal.Signals(_signal or signal.SIGINT).name


@contextmanager
def cooperative() -> Iterator[None]:
    """Inside, a first signal only sets the flag: the code here checks it and stops."""
    global _cooperative
    _cooperative += 1
    try:
        yield
    finally:
        _cooperative -= 1


def protect_child(pid: int) -> None:
    """A child that the graceful stop leaves running (it is still stopped on a hard exit)."""
    _protected.add(pid)


def _children() -> list:
    """This process's descendants, less multiprocessing's resource tracker: it ignores the
    signals by design and must outlive us to unlink the pool's semaphores. Killed, it is
    relaunched empty by the next semaphore collected, and that new tracker prints a
    `KeyError` traceback for every name it never saw (CI, 2026-12-02)."""
    try:
        import psutil

        tracker = _resource_tracker_pid()
        return [p for p in psutil.Process().children(recursive=True) if p.pid != tracker]
    except Exception:
        return []


def _resource_tracker_pid() -> int | None:
    module = sys.modules.get("multiprocessing.resource_tracker")
    tracker = getattr(module, "_resource_tracker", None)
    return getattr(tracker, "_pid", None)


def stop_children(timeout: float = 3.0) -> None:
    """Terminate every descendant of this process; kill those still there after `timeout`."""
    import psutil

    procs = _children()
    for p in procs:
        with suppress(psutil.Error):
            p.terminate()
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for p in alive:
        with suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(alive, timeout=1.0)


@contextmanager
def writing() -> Iterator[None]:
    """Around an atomic write: a hard exit waits until it is whole (or gone)."""
    global _exit_after_write
    with write_lock:
        _local.depth = getattr(_local, "depth", 0) + 1
        try:
            yield
        finally:
            _local.depth -= 1
    if _exit_after_write and not getattr(_local, "depth", 0):
        hard_exit(_exit_after_write)


def hard_exit(reason: str) -> None:
    """Exit now: after the atomic write in progress, with the children stopped."""
    global _exit_after_write
    if getattr(_local, "depth", 0):  # this very thread is writing: finish it first
        _exit_after_write = reason
        return
    write_lock.acquire(timeout=5.0)
    try:
        sys.stderr.write(f"\n{reason}\n")
    finally:
        exit_now()


def exit_now(timeout: float = 3.0) -> NoReturn:
    """Flush, stop this process's children, and exit with the signal's status."""
    try:
        for stream in (sys.stdout, sys.stderr):
            with suppress(Exception):
                stream.flush()
        stop_children(timeout)
        _unlink_semaphores()
    finally:
        os._exit(exit_code())


def _unlink_semaphores() -> None:
    """The semaphores of this process's pools and queues, unlinked as a normal exit would
    (`os._exit` skips multiprocessing's finalizers): else the resource tracker unlinks them
    after us with a "leaked semaphore objects" warning under the stop line."""
    from multiprocessing import synchronize, util

    for finalizer in list(getattr(util, "_finalizer_registry", {}).values()):
        if getattr(finalizer, "_callback", None) is synchronize.SemLock._cleanup:
            with suppress(Exception):
                finalizer()


def _watchdog(grace: float) -> None:
    time.sleep(grace)
    hard_exit(f"interrupted ({signal_name()}): still busy after {grace:.0f}s, stopped at once")


def _forward(signum: int) -> None:
    """Pool workers stop their games too (a terminal's Ctrl-C reaches them already; a
    `kill` of this process alone does not)."""
    for p in _children():
        if p.pid in _protected:
            continue
        try:
            if p.ppid() == os.getpid():
                p.send_signal(signum)
        except Exception:
            pass


def _quiet_libraries() -> None:
    # The libraries' own reports of the stop (Prefect's "crash detected", retries) say
    # nothing the one closing line does not.
    roots = ("prefect", "distributed", "lightning", "mlflow")
    names = [n for n in logging.Logger.manager.loggerDict if n.split(".")[0] in roots]
    for name in (*roots, *names):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _handler(signum: int, frame: FrameType | None) -> None:
    global _signal
    if _stop.is_set():
        hard_exit(f"interrupted again ({signal.Signals(signum).name}): stopped at once")
    _signal = signum
    _stop.set()
    _quiet_libraries()
    _forward(signum)
    threading.Thread(target=_watchdog, args=(GRACE_SECONDS,), daemon=True, name="interrupt-watchdog").start()
    if _cooperative:
        return
    if _delegates:  # the work runs in a thread the main thread waits on: stop it there
        _raise_in(_delegates[-1])
        return
    raise Interrupted("stopped")


def _raise_in(thread: threading.Thread) -> None:
    """Raise `Interrupted` in another thread at its next Python instruction."""
    import ctypes

    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Interrupted))


def run_in_thread(fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """`fn(*args, **kwargs)` in a worker thread (with this context) while the main thread
    waits, keeping the signal handlers ours: Prefect installs its own SIGTERM handler
    around a flow run only in the main thread, and that one raises into the flow at a
    random point instead of letting its games stop between moves."""
    import contextvars

    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    context = contextvars.copy_context()
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = context.run(fn, *args, **kwargs)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=getattr(fn, "__name__", "work"), daemon=True)
    _delegates.append(thread)
    try:
        thread.start()
        while thread.is_alive():
            try:
                thread.join(0.2)  # short waits, so the signal handlers run promptly
            except Interrupted:
                continue  # already forwarded to the thread; wait for it to wind down
    finally:
        _delegates.remove(thread)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def install() -> None:
    """Handle SIGINT and SIGTERM in this (main) process: see the module's docstring."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)
    _installed = True


def install_in_worker() -> None:
    """In a pool worker process: a signal only sets the flag; the parent decides the rest."""
    if _installed or threading.current_thread() is not threading.main_thread():
        return

    def flag(signum: int, frame: FrameType | None) -> None:
        global _signal
        _signal = signum
        _stop.set()

    try:
        signal.signal(signal.SIGINT, flag)
        signal.signal(signal.SIGTERM, flag)
    except ValueError:
        pass


def stop_line(stop: BaseException, nothing_said: str, resumable: bool = True) -> str:
    """The one line a stopped command prints: what was kept (the `Interrupted`'s own message,
    else `nothing_said`) and, when `resumable`, how to go on."""
    detail = str(stop) if isinstance(stop, Interrupted) and str(stop) != "stopped" else ""
    hint = f"; {resume_hint()}" if resumable else ""
    return f"interrupted ({signal_name()}): {detail or nothing_said}{hint}"


def resume_hint() -> str:
    """How to continue: `dvc repro` when running under DVC, else the same command."""
    if os.environ.get("DVC_STAGE"):
        return "`dvc repro` continues from there"
    return "run the same command again to continue"


StopCheck = Callable[[], bool]
