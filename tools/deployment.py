"""The server a class benchmark measures, and what its processes use.

Two deployments, chosen by ``bench_classroom.py --processes N``:

* :class:`OneProcess` (N = 1): ``streamlit run app.py`` from a checkout, as a teacher
  starts it (:func:`serve`, tests/_browser.py's ``StreamlitServer``);
* :class:`BehindProxy` (N > 1): ``nplk-lab classroom --workers N`` from that checkout:
  N Streamlit processes behind HAProxy, which pins each browser to one of them with its
  ``NPLK_WORKER`` cookie (``nplk_lab/serve/command.py``, docs/serving-a-class.md).

Both give ``url`` (what students open), ``pid`` (the root of the deployment's process
tree: :class:`Monitor` sums CPU and RSS over it, so with HAProxy it holds the command,
every Streamlit process, their fit workers and HAProxy), ``streamlit`` (each Streamlit
process's pid and port, for py-spy and :func:`open_sessions`), ``cookies(i)`` (what pins
a tab to process ``i``) and ``stop()``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, ROOT / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from _waits import OutputLines  # noqa: E402

from nplk_lab.serve.command import WORKER_COOKIE, find_proxy  # noqa: E402

START_TIMEOUT_S = 600.0    # N processes importing Streamlit on a busy machine
STOP_TIMEOUT_S = 60.0


def serve(script: str = "app.py", cwd: Path = ROOT, port: int | None = None,
          log: Path | None = None, env: dict | None = None):
    """A ``streamlit run`` of ``script`` (tests/_browser.py's StreamlitServer) on
    ``port`` (a free one when None), answering."""
    from _browser import StreamlitServer

    server = StreamlitServer(script, cwd=cwd, log=log)
    if port is not None:
        server.port, server.url = port, f"http://127.0.0.1:{port}"
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        server.start()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    server.wait_healthy()
    return server


def open_sessions(port: int) -> int:
    """A Streamlit process's own count of sessions with an open websocket (its
    ``/_stcore/metrics``, asked on its own port, not through a proxy)."""
    url = f"http://127.0.0.1:{port}/_stcore/metrics?families=active_sessions"
    with urllib.request.urlopen(url, timeout=30) as r:
        text = r.read().decode()
    found = re.search(r"^active_sessions\S* (\S+)$", text, re.M)
    if found is None:
        raise RuntimeError(f"no active_sessions in {url}: {text[:200]!r}")
    return int(float(found.group(1)))


class OneProcess:
    """``streamlit run app.py`` in ``root`` on ``port``."""

    def __init__(self, root: Path, port: int, log: Path) -> None:
        self.root, self.port, self.log = Path(root), port, log
        self.server = None
        self.url = ""
        self.pid = 0
        self.streamlit: list[tuple[int, int]] = []

    @staticmethod
    def describe() -> str:
        return "one Streamlit process (`streamlit run app.py`)"

    def start(self) -> OneProcess:
        self.server = serve("app.py", cwd=self.root, port=self.port, log=self.log)
        self.url, self.pid = self.server.url, self.server.proc.pid
        self.streamlit = [(self.pid, self.server.port)]
        return self

    def cookies(self, i: int) -> dict[str, str]:  # noqa: ARG002 (one process: no pinning)
        return {}

    def process_of(self, cookies: dict[str, str]) -> str:  # noqa: ARG002
        return "the one process"

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


class BehindProxy:
    """``nplk-lab classroom --workers N --port P`` serving ``root``: HAProxy on ``port``,
    the Streamlit processes on ``first_port``, ``first_port + 1``, ... (localhost)."""

    LINE = re.compile(r"^worker (\d+): http://127\.0\.0\.1:(\d+) \(pid (\d+)\)")
    HALL_LINE = re.compile(r"^light page (\d+): http://127\.0\.0\.1:(\d+) \(pid (\d+)\)")

    def __init__(self, root: Path, processes: int, port: int, first_port: int,
                 log: Path, extra: tuple[str, ...] = ()) -> None:
        self.root, self.n, self.port, self.first_port = Path(root), processes, port, first_port
        self.extra = tuple(extra)       # more of the command's options (--store, ...)
        self.log = log
        self.proc: subprocess.Popen | None = None
        self.output: OutputLines | None = None
        self.url = f"http://127.0.0.1:{port}"
        self.pid = 0
        self.streamlit: list[tuple[int, int]] = []
        self.hall: list[tuple[int, int]] = []   # the light page's own processes
        self.left_over: list[int] = []      # processes the command did not stop itself

    def describe(self) -> str:
        return (f"{self.n} Streamlit processes behind HAProxy (`nplk-lab classroom "
                f"--workers {self.n}`, cookie affinity)")

    def start(self) -> BehindProxy:
        if find_proxy() is None:
            raise SystemExit("--processes > 1 needs HAProxy (sudo apt-get install haproxy)")
        # the command's module in the served checkout (an older one, for a before/after
        # table, has it where it was before nplk_lab/serve/ held the server's machinery)
        command = next((f for f in ("serve/command.py", "ui/serve.py")
                        if (self.root / "nplk_lab" / f).is_file()), None)
        if command is None:
            raise SystemExit(f"{self.root} has no `nplk-lab classroom` "
                             "(nplk_lab/serve/command.py): serve it with --processes 1")
        # the command and its Streamlit processes import the served checkout, as the
        # one-process deployment does (`streamlit run app.py` in it)
        path = os.pathsep.join(p for p in (str(self.root), os.environ.get("PYTHONPATH"))
                               if p)
        module = "nplk_lab." + command.removesuffix(".py").replace("/", ".")
        cmd = [sys.executable, "-m", module, "classroom",
               "--workers", str(self.n), "--port", str(self.port),
               "--address", "127.0.0.1", "--first-worker-port", str(self.first_port),
               *self.extra]
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, "PYTHONPATH": path,
                                          "PYTHONUNBUFFERED": "1"},
                                     start_new_session=True)
        self.pid = self.proc.pid
        self.output = OutputLines(self.proc.stdout, self.log)
        try:
            ready = self.output.wait_line(lambda ln: "NPLK Lab for a class" in ln and ln,
                                          timeout_s=START_TIMEOUT_S,
                                          what="the class's URL line")
        except (EOFError, TimeoutError) as e:
            self.stop()
            raise RuntimeError(f"nplk-lab classroom did not start: {e}") from None
        if "behind HAProxy" not in ready:
            self.stop()
            raise RuntimeError(f"nplk-lab classroom did not start HAProxy: {ready}")
        found = [self.LINE.match(ln) for ln in self.output.lines()]
        self.streamlit = [(int(m.group(3)), int(m.group(2))) for m in found if m]
        halls = [self.HALL_LINE.match(ln) for ln in self.output.lines()]
        self.hall = [(int(m.group(3)), int(m.group(2))) for m in halls if m]
        if len(self.streamlit) != self.n:
            self.stop()
            raise RuntimeError(f"expected {self.n} worker lines:\n{self.output.text()}")
        return self

    def cookies(self, i: int) -> dict[str, str]:
        """What pins a tab to Streamlit process ``i`` (0-based): HAProxy's cookie."""
        return {WORKER_COOKIE: f"w{i + 1}"}

    def process_of(self, cookies: dict[str, str]) -> str:
        return cookies.get(WORKER_COOKIE) or "no cookie"

    def stop(self) -> None:
        """SIGTERM to the command alone (it stops its Streamlit processes and HAProxy);
        any process of its tree still alive afterwards is killed by its pid and listed
        in ``left_over``."""
        if self.proc is None or self.proc.poll() is not None:
            return
        import psutil

        try:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.Error:
            tree = []
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)     # its own process group
            self.proc.wait(timeout=10)
        _, alive = psutil.wait_procs(tree, timeout=10)
        for p in alive:
            try:
                p.kill()                    # psutil checks it is still the same process
                self.left_over.append(p.pid)
            except psutil.Error:
                continue


    def kill_all(self) -> None:
        """A host that dies at once: SIGKILL to the command and every process of its
        tree (its workers, their fit workers, HAProxy), as a machine losing power."""
        import psutil

        try:
            root = psutil.Process(self.proc.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            tree = []
        for p in tree:
            try:
                p.kill()
            except psutil.Error:
                continue
        psutil.wait_procs(tree, timeout=30)
        self.proc.wait(timeout=30)


class Front:
    """``nplk-lab front --port P --backend 127.0.0.1:Q ...``: one HAProxy in front of
    several :class:`BehindProxy` "hosts" (``nplk_lab/serve/command.py``)."""

    def __init__(self, root: Path, port: int, backends: list[str], log: Path) -> None:
        self.root, self.port, self.backends, self.log = Path(root), port, backends, log
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None
        self.pid = 0

    def start(self) -> Front:
        cmd = [sys.executable, "-m", "nplk_lab.serve.command", "front", "--address",
               "127.0.0.1", "--port", str(self.port)]
        for b in self.backends:
            cmd += ["--backend", b]
        path = os.pathsep.join(p for p in (str(self.root), os.environ.get("PYTHONPATH"))
                               if p)
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, "PYTHONPATH": path,
                                          "PYTHONUNBUFFERED": "1"},
                                     start_new_session=True)
        self.pid = self.proc.pid
        out = OutputLines(self.proc.stdout, self.log)
        try:
            out.wait_line(lambda ln: "NPLK Lab for a class" in ln and ln,
                          timeout_s=START_TIMEOUT_S, what="the front's URL line")
        except (EOFError, TimeoutError) as e:
            self.stop()
            raise RuntimeError(f"nplk-lab front did not start: {e}") from None
        return self

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


class Monitor(threading.Thread):
    """CPU seconds and RSS of a process and its children, sampled every 0.2 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        import psutil

        self.proc = psutil.Process(pid)
        self.peak = 0
        self.stop_event = threading.Event()
        self._cpu_dead = 0.0       # CPU of children that have exited
        self._last: dict[int, float] = {}

    def tree(self):
        try:
            return [self.proc, *self.proc.children(recursive=True)]
        except Exception:
            return [self.proc]

    def sample(self) -> tuple[float, int]:
        cpu, rss, seen = 0.0, 0, {}
        for p in self.tree():
            try:
                t = p.cpu_times()
                seen[p.pid] = t.user + t.system
                rss += p.memory_info().rss
            except Exception:
                continue
        for pid, c in self._last.items():
            if pid not in seen:
                self._cpu_dead += c
        self._last = seen
        cpu = sum(seen.values()) + self._cpu_dead
        return cpu, rss

    def run(self) -> None:
        while not self.stop_event.wait(0.2):
            _, rss = self.sample()
            self.peak = max(self.peak, rss)

    def stop(self) -> None:
        self.stop_event.set()


class Attribution:
    """Where the machine's CPU went over an interval, by part: the deployment's command,
    HAProxy, each Streamlit process, their fit workers, a database server, the
    benchmark's own threads (the simulated students), and the rest of the machine (other
    people's work). ``start()`` then ``stop()``; ``rows()`` gives (part, CPU seconds).

    ``threads`` names threads of this process by native id (``threading.get_native_id``)
    so the simulators that share the benchmark's process are told apart; the rest of its
    threads count as "the benchmark (other threads)"."""

    def __init__(self, server, threads: dict[int, str] | None = None,
                 extra: dict[int, str] | None = None) -> None:
        import psutil
        self.psutil = psutil
        self.server = server
        self.threads = dict(threads or {})
        self.extra = dict(extra or {})      # pid -> part (e.g. PostgreSQL's server)
        self._t0: dict[str, float] = {}
        self._seen: dict[int, tuple[str, float]] = {}
        self.used: dict[str, float] = {}
        self.wall = 0.0

    def _label(self, p, workers: dict[int, str]) -> str:
        if p.pid == self.server.pid:
            return "the classroom command"
        if p.pid in workers:
            return f"Streamlit process {workers[p.pid]}"
        if p.pid in {pid for pid, _ in getattr(self.server, "hall", ())}:
            return "the light page's process"
        try:
            if "haproxy" in p.name():
                return "HAProxy"
            if p.ppid() in workers:
                return "fit workers"
        except self.psutil.Error:
            pass
        return "other processes of the server"

    def _snapshot(self) -> dict[str, float]:
        psutil = self.psutil
        out: dict[str, float] = {}
        workers = {pid: f"w{i}" for i, (pid, _) in enumerate(self.server.streamlit, 1)}
        try:
            root = psutil.Process(self.server.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            procs = []
        for pid in self.extra:
            try:
                pg = psutil.Process(pid)
                procs += [pg, *pg.children(recursive=True)]
            except psutil.Error:
                continue
        seen: dict[int, tuple[str, float]] = {}
        for p in procs:
            try:
                t = p.cpu_times()
                c = t.user + t.system + t.children_user + t.children_system
            except psutil.Error:
                continue
            label = self.extra.get(p.pid)
            if label is None:
                try:
                    parent = p.ppid()
                except psutil.Error:
                    parent = 0
                label = self.extra.get(parent) or self._label(p, workers)
            out[label] = out.get(label, 0.0) + c
            seen[p.pid] = (label, c)
        self._seen = seen
        me = psutil.Process()
        for th in me.threads():
            part = self.threads.get(th.id, "the benchmark (other threads)")
            out[part] = out.get(part, 0.0) + th.user_time + th.system_time
        busy = psutil.cpu_times()
        out["the whole machine"] = (busy.user + busy.nice + busy.system + busy.irq
                                    + busy.softirq + getattr(busy, "steal", 0.0))
        return out

    def start(self) -> None:
        import time
        self._t0, self._w0 = self._snapshot(), time.perf_counter()

    def stop(self) -> None:
        import time
        before_seen = dict(self._seen)
        t1 = self._snapshot()
        self.wall = time.perf_counter() - self._w0
        # a process that exited during the interval: what it had used at the start
        # no longer counts (its use since is lost: rare, a fit worker stopped)
        for pid, (label, c) in before_seen.items():
            if pid not in self._seen:
                t1[label] = t1.get(label, 0.0) + c
        self.used = {k: max(0.0, t1.get(k, 0.0) - self._t0.get(k, 0.0))
                     for k in set(t1) | set(self._t0)}

    def rows(self) -> list[tuple[str, float]]:
        machine = self.used.get("the whole machine", 0.0)
        parts = sorted(((k, v) for k, v in self.used.items() if k != "the whole machine"),
                       key=lambda kv: -kv[1])
        known = sum(v for _, v in parts)
        return [*parts, ("the rest of the machine (other work)", max(0.0, machine - known)),
                ("the whole machine", machine)]

    def table(self) -> str:
        out = [f"CPU over {self.wall:.0f} s ({os.cpu_count()} cores = "
               f"{self.wall * (os.cpu_count() or 1):.0f} CPU-s):", "",
               "| part | CPU (s) | cores |", "|---|---|---|"]
        out += [f"| {k} | {v:.1f} | {v / self.wall:.2f} |" for k, v in self.rows()]
        return "\n".join(out)
