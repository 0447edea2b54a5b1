"""``nplk-lab classroom``'s supervisor: keeps the workers and HAProxy running.

A child that dies while the class runs (a worker killed by the out-of-memory killer or
by hand, a crash) is restarted on the same port, the others untouched: HAProxy's health
checks take the dead worker out of the rotation meanwhile, so new students and the
dead worker's reconnecting students go to a live one (docs/serving-a-class.md).

No orphans, whatever stops what:

* each child runs in its own process group; when a worker dies, everything left in its
  group (its fit pool's processes, multiprocessing's resource tracker) is killed and
  reaped before the worker is started again. The supervisor is the *child subreaper*
  (Linux), so those orphans are re-parented to it, not to PID 1, and it can wait until
  the last one is gone;
* each child gets SIGTERM from the kernel when the supervisor dies, even by SIGKILL
  (``PR_SET_PDEATHSIG``, :mod:`.parent_watch`): a worker stopped by SIGTERM shuts its
  fit pool down, HAProxy stops;
* a stop by signal (SIGINT, SIGTERM, SIGHUP) stops every child, then kills whatever is
  left in their groups.

A child that dies more than :data:`MAX_DEATHS` times within :data:`DEATH_WINDOW_S`
seconds (a worker that cannot start, a port taken) ends the class with exit code 1 and
the last lines of its log; a restart after the first death in that window waits 1, 2,
4 ... (at most 30) seconds.

Standard library only, as :mod:`.serve`.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .parent_watch import become_subreaper, pdeathsig_preexec

HEALTH = "/_stcore/health"
MAX_DEATHS = 5
DEATH_WINDOW_S = 300.0
MAX_BACKOFF_S = 30.0
CHECK_EVERY_S = 0.2      # how often a restarted child's health is asked until it answers


@dataclass(eq=False)
class Child:
    """One supervised process: a worker or HAProxy."""

    name: str
    command: list[str]
    url: str                         # where it answers HEALTH
    log: Path | None = None          # its output (appended across restarts)
    proc: subprocess.Popen | None = None
    deaths: deque = field(default_factory=deque)
    died_at: float | None = None     # while it is being restarted
    start_at: float | None = None    # a restart waiting for its back-off
    started_at: float = 0.0
    is_worker: bool = True
    restart_note: str = ""           # what happens meanwhile (default: a worker's words)


class GiveUp(Exception):
    pass


# straight to the child on this machine, whatever proxy the environment names
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def health_ok(url: str, timeout: float = 1.0) -> bool:
    try:
        with _DIRECT.open(url + HEALTH, timeout=timeout) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def tail(path: Path | None, n: int = 20) -> str:
    if path is None:
        return ""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def how_it_ended(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with code {code}"


def _say(text: str, err: bool = True) -> None:
    print(text, file=sys.stderr if err else sys.stdout, flush=True)


class Supervisor:
    def __init__(self, env: Mapping[str, str], health_timeout: float,
                 on_down: Callable[[Child], None] | None = None) -> None:
        """``on_down(worker)``: called first thing when a worker has died (before its
        leftovers are cleared), to take it out of the proxy at once."""
        self.env = dict(env)
        self.on_down = on_down
        self.health_timeout = health_timeout
        self.children: list[Child] = []
        self.groups: set[int] = set()    # process groups of every child ever started
        become_subreaper()

    # -- starting ------------------------------------------------------------------------
    def start(self, child: Child) -> None:
        if child not in self.children:
            self.children.append(child)
        out = open(child.log, "a") if child.log else None  # noqa: SIM115 (child holds it)
        try:
            child.proc = subprocess.Popen(
                child.command, env=self.env, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT if out else None,
                process_group=0, preexec_fn=pdeathsig_preexec(signal.SIGTERM))
        finally:
            if out is not None:
                out.close()
        child.started_at = time.monotonic()
        child.start_at = None
        self.groups.add(child.proc.pid)

    def wait_first_health(self, child: Child) -> None:
        """Block until ``child`` answers (at the class's start): a child that exits or
        does not answer in time raises ``RuntimeError`` / ``TimeoutError``."""
        deadline = time.monotonic() + self.health_timeout
        while time.monotonic() < deadline:
            if child.proc.poll() is not None:
                raise RuntimeError(f"{child.name} exited with code {child.proc.returncode}")
            if health_ok(child.url, timeout=2):
                return
            time.sleep(0.1)
        raise TimeoutError(f"{child.name} did not answer {HEALTH} within "
                           f"{self.health_timeout:.0f} s")

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> None:
        """Supervise until a signal handler raises or a child dies too often
        (:class:`GiveUp`). Wakes on SIGCHLD (through a wake-up pipe, no lost wake-ups),
        on a restart's back-off and, while a restarted child is not yet answering,
        every :data:`CHECK_EVERY_S`."""
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        old_chld = signal.signal(signal.SIGCHLD, lambda *_: None)
        try:
            while True:
                self._reap()
                now = time.monotonic()
                self._start_due(now)
                self._check_restarted(now)
                select.select([r], [], [], self._timeout(time.monotonic()))
                try:
                    while os.read(r, 512):
                        pass
                except BlockingIOError:
                    pass
        finally:
            signal.signal(signal.SIGCHLD, old_chld)
            signal.set_wakeup_fd(old_fd)
            os.close(r)
            os.close(w)

    def _timeout(self, now: float) -> float | None:
        waits = [max(0.0, c.start_at - now) for c in self.children
                 if c.proc is None and c.start_at is not None]
        if any(c.died_at is not None and c.proc is not None for c in self.children):
            waits.append(CHECK_EVERY_S)
        return min(waits) if waits else None

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = next((c for c in self.children
                          if c.proc is not None and c.proc.pid == pid), None)
            if child is None:
                continue                     # an adopted orphan, reaped
            child.proc.returncode = os.waitstatus_to_exitcode(status)
            self._died(child)

    def _died(self, child: Child) -> None:
        if child.is_worker and self.on_down is not None:
            self.on_down(child)
        proc, now = child.proc, time.monotonic()
        left = self.clear_group(proc.pid)
        was_up = child.died_at is None
        child.proc = None
        child.died_at = child.died_at if child.died_at is not None else now
        child.deaths.append(now)
        while child.deaths and now - child.deaths[0] > DEATH_WINDOW_S:
            child.deaths.popleft()
        text = f"nplk-lab: {child.name} (pid {proc.pid}) {how_it_ended(proc.returncode)}"
        if left:
            text += f"; stopped the {left} process{'es' if left > 1 else ''} it left"
        n = len(child.deaths)
        if n > MAX_DEATHS:
            _say(f"{text}; it died {n} times in {DEATH_WINDOW_S:.0f} s, so the class "
                 "stops")
            log = tail(child.log)
            if log:
                _say(f"the last lines of {child.name}'s output:\n{log}")
            raise GiveUp(child.name)
        delay = 0.0 if n == 1 else min(2.0 ** (n - 2), MAX_BACKOFF_S)
        who = child.restart_note or (
            "its students' pages reconnect to another worker and redraw from their URL"
            if child.is_worker else "every page reconnects once it is back")
        _say(f"{text}; restarting it{f' in {delay:.0f} s' if delay else ''}"
             f"{f' ({who})' if was_up else ''}")
        child.start_at = now + delay

    def _start_due(self, now: float) -> None:
        for c in self.children:
            if c.proc is None and c.start_at is not None and c.start_at <= now:
                self.start(c)

    def _check_restarted(self, now: float) -> None:
        for c in self.children:
            if c.died_at is None or c.proc is None or c.proc.returncode is not None:
                continue
            if health_ok(c.url):
                _say(f"nplk-lab: {c.name} is back (pid {c.proc.pid}, {c.url}), "
                     f"{time.monotonic() - c.died_at:.1f} s after it died", err=False)
                c.died_at = None
            elif now - c.started_at > self.health_timeout:
                _say(f"nplk-lab: {c.name} (pid {c.proc.pid}) did not answer {HEALTH} "
                     f"within {self.health_timeout:.0f} s; killing it")
                self._kill(c.proc)           # reaped (and counted) by the loop

    # -- stopping ------------------------------------------------------------------------
    @staticmethod
    def _kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def clear_group(self, pgid: int) -> int:
        """SIGKILL whatever is left in the process group ``pgid`` (its leader is dead)
        and reap it: with the supervisor as subreaper the leftovers are its children, so
        ``waitpid(-pgid)`` returns once the last one is gone. Returns how many."""
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return 0
        n = 0
        while True:
            try:
                os.waitpid(-pgid, 0)
            except ChildProcessError:
                return n
            n += 1

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM every running child (HAProxy first: no new connection reaches a
        stopping worker), SIGKILL those still there after ``timeout`` s, then clear
        every child's process group and reap any adopted orphan."""
        live = [c.proc for c in sorted(self.children, key=lambda c: c.is_worker)
                if c.proc is not None and c.proc.returncode is None]
        for p in live:
            try:
                p.terminate()
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        for p in live:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            except ChildProcessError:
                pass
        for pgid in sorted(self.groups):
            self.clear_group(pgid)
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break


def make_children(worker_commands: Sequence[list[str]], worker_ports: Sequence[int],
                  logs: Callable[[int], Path], proxy_command: list[str],
                  proxy_url: str) -> tuple[list[Child], Child]:
    workers = [Child(f"worker {i}", cmd, f"http://127.0.0.1:{p}", logs(i))
               for i, (cmd, p) in enumerate(zip(worker_commands, worker_ports,
                                                strict=True), start=1)]
    return workers, Child("HAProxy", proxy_command, proxy_url, None, is_worker=False)
