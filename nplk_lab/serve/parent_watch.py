"""Processes that die with their parent (Linux), so a killed server leaves no orphans.

Two tools, both standard library only (the ``nplk-lab`` command imports this module):

* :func:`die_with_parent` — for a process spawned by a *thread* of a long-lived
  server, such as the fit pool's workers (:mod:`.workers`, spawned from whichever page
  thread first submitted a fit). It starts a daemon thread that waits on a pidfd of the
  parent (no polling) and ends this process at once when the parent has gone, whatever
  the parent died of (SIGKILL, the out-of-memory killer). ``PR_SET_PDEATHSIG`` is not
  usable there: Linux sends that signal when the parent *thread* that forked the child
  ends, and Streamlit's page threads end after every run.
* :func:`pdeathsig_preexec` — for a child forked by the main (only) thread of a
  supervisor (``nplk-lab classroom`` starting its Streamlit workers and HAProxy): a
  ``preexec_fn`` setting ``PR_SET_PDEATHSIG``, which survives ``exec``, so the child
  gets ``sig`` when the supervisor dies, even by SIGKILL.

Elsewhere than Linux both are no-ops (:func:`die_with_parent` falls back to checking
the parent once a second where there is no ``os.pidfd_open``).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import threading
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, arg: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def pdeathsig_preexec(sig: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child gets ``sig`` when the
    process that starts it (from its main thread) dies. If that process died between
    the fork and this call, the child ends at once."""
    parent = os.getpid()

    def preexec() -> None:
        _prctl(PR_SET_PDEATHSIG, int(sig))
        if os.getppid() != parent:          # the parent died before prctl took effect
            os._exit(1)
    return preexec


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux 3.4+): a killed
    child's own children are re-parented here, not to PID 1, so this process can stop
    and reap them (``os.waitpid(-pgid, 0)``)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


_WATCHING = False


def die_with_parent(exit_code: int = 1) -> None:
    """End this process (``os._exit``) as soon as its parent has gone. Call it once,
    early, in the child (e.g. in a process pool's initializer); later calls do nothing."""
    global _WATCHING
    if _WATCHING:
        return
    _WATCHING = True
    parent = os.getppid()
    if parent <= 1:
        os._exit(exit_code)     # born an orphan: the parent is already gone
    fd = None
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(parent)
        except OSError:
            fd = None
        if os.getppid() != parent:   # it died before the pidfd was opened
            os._exit(exit_code)

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])      # readable once the parent has exited
        else:
            ev = threading.Event()
            while os.getppid() == parent:
                ev.wait(1.0)
        os._exit(exit_code)

    threading.Thread(target=watch, name="nplk-parent-watch", daemon=True).start()
