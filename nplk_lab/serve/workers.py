"""Fits off the page's process: a bounded pool of worker processes, fair across sessions.

A Streamlit server runs every session's script in a thread of one process, so fits of
thirty students shared one core (the GIL) with the page runs, the websockets and the
figure encoding. Here each fit is a job for a small pool of worker processes (one per
core by default, ``NPLK_LAB_WORKERS``; 0 keeps fits in the page's process, as under
``AppTest``):

* **one computation per request**: a session asking for a fit that is queued or running
  for another session waits for that job instead of queueing a copy;
* **fair queueing**: each session has its own queue and the pool takes the sessions in
  turn (round robin), so nobody waits behind another student's ten fits;
* **superseded moves cancelled**: a session's new request drops its own queued jobs no
  other session waits for, and a page run that is cut short (a newer move, Stop, a
  closed tab) gives up its job, which is cancelled when nobody else waits for it;
* **where the fit stands**: while it waits, the page's status line says how many fits
  will run before this one ("2 fits ahead of yours"), then the solver's iteration
  (shared memory slots, one per worker);
* **Stop and closed tabs still stop the work**: a running job nobody waits for any more
  gets its slot's stop flag, its solver's callback stops at the next iteration, and the
  half-done result is not stored.

A job's result goes into the shared fit store (:mod:`.stores`) when it finishes, also
when the page that asked has moved on, so a later move back finds it. The workers are
spawned (not forked: the server has threads) from a main module of their own
(:mod:`.worker_main`: never the page that asked) and import the solvers once; the reaper
(:mod:`.reaper`) stops them when the class has gone.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamlit.logger import get_logger

_LOG = get_logger("nplk_lab.workers")


# In a worker process: the shared slots through which a running job reports its
# iteration and learns that nobody waits for it any more (set by _worker_init).
_STOP: Any = None
_ITER: Any = None
# A test hook, off unless the server's environment names a file: while that file
# exists, a running job waits at each iteration it reports until it is told to stop or
# the file is removed, so a browser test can hold a fit "still running" for as long as
# it needs, whatever the machine's speed (tests/test_browser_stop.py).
_HOLD_ENV = "NPLK_LAB_TEST_HOLD_FILE"
_HOLD: str = ""


def _worker_init(stop: Any = None, iters: Any = None) -> None:
    """One BLAS thread per worker (the pool already uses every core); the shared slots.
    The worker ends when the server that started it dies (a SIGKILLed classroom worker
    left its pool under PID 1)."""
    import os

    from .parent_watch import die_with_parent

    if os.getppid() > 1:    # a server running as PID 1 (a container) takes its pool along
        die_with_parent()
    global _STOP, _ITER, _HOLD
    _STOP, _ITER = stop, iters
    _HOLD = os.environ.get(_HOLD_ENV, "")
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass


def import_solvers() -> None:
    """In a worker: import every method's estimator (scikit-learn with them)."""
    from nplk_lab.model.methods import METHODS, available

    for method in METHODS:
        available(method)


def run_job(slot: int, fn: Callable, args: tuple, kwargs: dict) -> Any:
    """Run ``fn`` in a worker; a function taking ``callback`` gets one that writes the
    iteration to the job's slot and stops the solver once the slot's stop flag is set
    (every page that waited for the job has gone)."""
    if _STOP is not None and slot >= 0:
        _STOP[slot], _ITER[slot] = 0, 0

        def callback(iteration: int, info: Any, elapsed: float) -> bool:
            _ITER[slot] = int(iteration) + 1
            if _HOLD:
                _held(slot)
            return bool(_STOP[slot])
        kwargs = {**kwargs, "callback": callback}
    return fn(*args, **kwargs)


def _held(slot: int) -> None:
    """The test hook of :data:`_HOLD`: wait while the hold file exists and the job has not
    been told to stop."""
    while not _STOP[slot] and os.path.exists(_HOLD):  # noqa: ASYNC110 (another process)
        time.sleep(0.02)


@dataclass(eq=False)
class Job:
    key: Any
    session: str
    fn: Callable
    args: tuple
    kwargs: dict
    done: cf.Future = field(default_factory=cf.Future)
    waiters: set = field(default_factory=set)
    started: float | None = None
    on_result: list = field(default_factory=list)
    slot: int = -1            # its shared progress/stop slot while it runs
    abandoned: bool = False   # stopped while running: its result is not kept
    stop_asked_at: int = 0    # the solver's iteration when it was told to stop


class Pool:
    """The fair, bounded job queue in front of a process pool (see the module doc)."""

    def __init__(self, workers: int, executor_factory: Callable[[], Any] | None = None
                 ) -> None:
        self.workers = max(1, int(workers))
        self._factory = executor_factory or self._spawn_pool
        self._executor: Any = None
        self._lock = threading.RLock()
        self._queues: OrderedDict[str, deque] = OrderedDict()
        self._jobs: dict[Any, Job] = {}
        self._running: list[Job] = []
        self._free = list(range(self.workers))
        self._stop: Any = None       # shared with the workers (process pools only)
        self._iter: Any = None

    def _spawn_pool(self):
        # spawned, starting from a module of their own, not from the page that asked
        # (nplk_lab/serve/worker_main.py says why)
        from .worker_main import context

        ctx = context()
        self._stop = ctx.Array("i", self.workers, lock=False)
        self._iter = ctx.Array("i", self.workers, lock=False)
        return cf.ProcessPoolExecutor(self.workers, mp_context=ctx,
                                      initializer=_worker_init,
                                      initargs=(self._stop, self._iter))

    def start(self) -> None:
        """Start every worker now and have it import the solvers, so that the first fit
        pays neither (a new server's warm-up calls this once its first picture is
        drawn: :func:`nplk_lab.serve.firstpaint._start_pool`). Each warm-up task is a short
        job of the process pool outside the sessions' queues; a fit asked for meanwhile
        waits for at most one of them."""
        with self._lock:
            if self._executor is not None:
                return
            try:
                self._executor = self._factory()
            except Exception:  # noqa: BLE001 (the first fit starts the pool and says why)
                return
            ex = self._executor
        for _ in range(self.workers):  # one task each: every submit spawns a process
            try:
                ex.submit(run_job, -1, import_solvers, (), {})
            except Exception:  # noqa: BLE001 (a broken pool: the next fit restarts it)
                return

    def iteration(self, job: Job) -> int | None:
        """The solver iteration a running job has reached (None if unknown)."""
        if self._iter is None or job.slot < 0 or job.started is None:
            return None
        return int(self._iter[job.slot]) or None

    # -- asking ------------------------------------------------------------------------
    def submit(self, session: str, key: Any, fn: Callable, *args: Any,
               on_result: Callable[[Any], None] | None = None, **kwargs: Any) -> Job:
        """The job computing ``fn(*args, **kwargs)`` for ``key``: an existing one when
        another session asked first, else a new one at the end of ``session``'s queue
        (whose older queued jobs nobody else waits for are cancelled)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.done.done():
                job.waiters.add(session)
                if on_result is not None:
                    job.on_result.append(on_result)
                return job
            q = self._queues.setdefault(session, deque())
            for old in list(q):
                old.waiters.discard(session)
                if not old.waiters:          # superseded: nobody waits for it any more
                    self._drop(old)
            job = Job(key, session, fn, args, kwargs, waiters={session},
                      on_result=[on_result] if on_result is not None else [])
            q.append(job)
            self._jobs[key] = job
            self._dispatch()
            return job

    def release(self, job: Job, session: str) -> None:
        """``session`` no longer waits for ``job`` (its page run ended early): a queued
        job nobody waits for is cancelled; a running one finishes and is stored."""
        with self._lock:
            job.waiters.discard(session)
            if job.waiters:
                return
            if job.started is None:
                self._drop(job)
            elif job.slot >= 0 and self._stop is not None and not job.done.done():
                # running for nobody: its solver stops at the next iteration, and the
                # half-done result is not stored
                job.abandoned = True
                self._stop[job.slot] = 1
                job.stop_asked_at = int(self._iter[job.slot])
                if self._jobs.get(job.key) is job:
                    self._jobs.pop(job.key, None)

    def _drop(self, job: Job) -> None:
        for q in self._queues.values():
            if job in q:
                q.remove(job)
        if self._jobs.get(job.key) is job:
            self._jobs.pop(job.key, None)
        job.done.cancel()

    # -- running -----------------------------------------------------------------------
    def _next(self) -> Job | None:
        """Round robin over the sessions with queued jobs."""
        for session in list(self._queues):
            q = self._queues[session]
            if not q:
                del self._queues[session]
                continue
            job = q.popleft()
            self._queues.move_to_end(session)
            if not q:
                del self._queues[session]
            return job
        return None

    def _dispatch(self) -> None:
        while len(self._running) < self.workers:
            job = self._next()
            if job is None:
                return
            if self._executor is None:
                self._executor = self._factory()
            job.started = time.monotonic()
            job.slot = self._free.pop() if self._free else -1
            self._running.append(job)
            try:
                fut = self._executor.submit(run_job, job.slot, job.fn, job.args,
                                            job.kwargs)
            except Exception as exc:  # a broken pool: fail this job, start afresh
                self._executor = None
                self._finish(job, None, exc)
                continue
            fut.add_done_callback(lambda f, job=job: self._done(job, f))

    def _done(self, job: Job, fut: cf.Future) -> None:
        try:
            result, exc = fut.result(), None
        except BaseException as e:  # noqa: BLE001 (handed to the waiting page)
            result, exc = None, e
        self._finish(job, result, exc)

    def _finish(self, job: Job, result: Any, exc: BaseException | None) -> None:
        with self._lock:
            if job in self._running:
                self._running.remove(job)
            if job.slot >= 0:
                self._free.append(job.slot)
            if self._jobs.get(job.key) is job:
                self._jobs.pop(job.key, None)
            callbacks = [] if job.abandoned else list(job.on_result)
        if job.abandoned:
            # the evidence that a closed tab or Stop ended the work itself, not only the
            # page's wait for it (tests/test_browser_stop.py reads this line)
            _LOG.info("A fit nobody waits for ended at iteration %s (told to stop at "
                      "iteration %d), %.1f s after it started%s; session %s",
                      getattr(result, "n_iter", None), job.stop_asked_at,
                      time.monotonic() - (job.started or time.monotonic()),
                      "" if exc is None else f" ({type(exc).__name__})", job.session)
        if exc is None:
            for cb in callbacks:
                try:
                    cb(result)
                except Exception:
                    _LOG.exception("storing a finished fit failed")
        if not job.done.done():
            if exc is None:
                job.done.set_result(result)
            else:
                job.done.set_exception(exc)
        with self._lock:
            self._dispatch()

    # -- where a job stands --------------------------------------------------------------
    def ahead(self, job: Job) -> int:
        """Fits that will run (or are running) before ``job``: 0 once it runs."""
        with self._lock:
            if job.started is not None:
                return 0
            for session, q in self._queues.items():  # noqa: B007 (read after the loop)
                if job in q:
                    rank = list(q).index(job)
                    break
            else:
                return 0
            order = list(self._queues)
            mine = order.index(session)
            before = 0
            for i, s in enumerate(order):
                if s == session:
                    continue
                n = len(self._queues[s])
                # sessions before mine in the rotation get rank+1 turns, after it rank
                before += min(n, rank + 1 if i < mine else rank)
            return len(self._running) + rank + before

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"running": len(self._running),
                    "queued": sum(len(q) for q in self._queues.values()),
                    "sessions": len(self._queues)}

    def shutdown(self) -> None:
        with self._lock:
            if self._running or any(self._queues.values()):
                return                      # still in use: the reaper tries again later
            ex, self._executor = self._executor, None
        if ex is not None:
            ex.shutdown(wait=False, cancel_futures=True)


_POOL: Pool | None = None
_POOL_LOCK = threading.Lock()


def worker_count() -> int:
    """``NPLK_LAB_WORKERS`` (default: the cores) inside a Streamlit server; 0 (fits in
    the page's process) elsewhere, e.g. under ``AppTest``."""
    from streamlit import runtime

    if not runtime.exists() or type(runtime.get_instance()) is not runtime.Runtime:
        return 0
    raw = os.environ.get("NPLK_LAB_WORKERS", "")
    try:
        return max(0, int(raw)) if raw.strip() else (os.cpu_count() or 1)
    except ValueError:
        return os.cpu_count() or 1


def pool() -> Pool | None:
    """This server's pool, or None when fits run in the page's process."""
    global _POOL
    if _POOL is not None:
        return _POOL
    n = worker_count()
    if n == 0:
        return None
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = Pool(n)
    return _POOL


def shutdown() -> None:
    if _POOL is not None:
        _POOL.shutdown()


def wait(job: Job, session: str, report: Callable[[str], Any],
         p: Pool | None = None) -> Any:
    """Wait for ``job``, reporting where it stands through ``report`` (the page's
    progress line: the Streamlit call where a newer move ends the wait); give it up
    when the wait ends early."""
    p = p or _POOL
    ok = False
    try:
        while True:
            try:
                out = job.done.result(timeout=0.1)
                ok = True
                return out
            except cf.TimeoutError:
                pass
            n = p.ahead(job) if p is not None else 0
            if job.started is None:
                report(f"{n} fit{'s' if n != 1 else ''} ahead of yours" if n else
                       "next in line")
            else:
                it = p.iteration(job) if p is not None else None
                report(f"iteration {it}" if it else
                       f"running for {time.monotonic() - job.started:.1f} s")
    finally:
        if not ok and p is not None:
            p.release(job, session)
