"""``nplk-lab classroom``'s supervisor (nplk_lab/serve/supervise.py) and the parent-death
hooks (nplk_lab/serve/parent_watch.py), fast: real HAProxy, stand-in workers.

The stand-in worker is a small HTTP server answering every GET (so HAProxy's health
check and a page load both get 200, with the worker's port and pid in the body) that
starts one idle process of its own, as a Streamlit worker starts its fit pool; on
SIGTERM it stops that process and exits, as Streamlit does. The command is the real
``nplk-lab classroom`` (``command.main``) with only the worker's command swapped.
``tests/test_browser_classroom_faults.py`` does the same with Streamlit and browsers.

Waits are on the command's output lines and on pidfds (no sleeps, no polling)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest
from _ports import free_port_block
from _procs import alive, descendants, in_group, snapshot
from _waits import OutputLines, wait_gone

from nplk_lab.serve import command

ROOT = Path(__file__).resolve().parents[1]
WORKERS = 2
TIMEOUT_S = 120

FAKE_WORKER = textwrap.dedent('''\
    import http.server, os, signal, subprocess, sys
    port = int(sys.argv[1])
    # stands for the fit pool: a process of its own, idle until it is stopped
    pool = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])

    def stop(*_):  # as a Streamlit worker on SIGTERM: its pool goes with it
        pool.terminate()
        pool.wait()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = f"port {port} pid {os.getpid()}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    http.server.HTTPServer(("127.0.0.1", port), Answer).serve_forever()
''')

COMMAND = textwrap.dedent('''\
    import os, sys
    from nplk_lab.serve import command, supervise
    supervise.MAX_DEATHS = int(os.environ.get("TEST_MAX_DEATHS", supervise.MAX_DEATHS))
    fake = sys.argv[1]
    command.streamlit_command = lambda options, extra=(), folder=None: [
        sys.executable, fake, str(options["server.port"])]
    sys.exit(command.main(["classroom", *sys.argv[2:]]))
''')


class Room:
    """``nplk-lab classroom --workers 2`` with stand-in workers, started in its own
    session (so the test can end everything if the command hangs)."""

    def __init__(self, tmp_path: Path, max_deaths: int | None = None) -> None:
        self.fake = fake = tmp_path / "fake_worker.py"
        fake.write_text(FAKE_WORKER)
        self.port = free_port_block(WORKERS + 1)
        self.url = f"http://127.0.0.1:{self.port}"
        # stand-in workers draw no pictures: no first pictures to prepare
        env = dict(os.environ, NPLK_LAB_FIRST_PAINT="0", PYTHONPATH=os.pathsep.join(
            [str(ROOT), os.environ.get("PYTHONPATH", "")]))
        if max_deaths is not None:
            env["TEST_MAX_DEATHS"] = str(max_deaths)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", COMMAND, str(fake), "--workers", str(WORKERS),
             "--port", str(self.port), "--address", "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, env=env)
        self.out = OutputLines(self.proc.stdout, tmp_path / "classroom.log")
        self.out.wait_line(lambda ln: "NPLK Lab for a class:" in ln, timeout_s=TIMEOUT_S,
                           what="the class's URL line")
        self.workers = {int(m[1]): (int(m[2]), int(m[3])) for m in (
            re.search(r"^worker (\d): http://127\.0\.0\.1:(\d+) \(pid (\d+)\)", ln)
            for ln in self.out.lines()) if m}
        assert sorted(self.workers) == [1, 2], self.out.text()

    def get(self, url: str, cookie: str | None = None) -> str:
        req = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200
            return r.read().decode()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)


@pytest.fixture
def room(tmp_path, request):
    if command.find_proxy() is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    r = Room(tmp_path, getattr(request, "param", None))
    try:
        yield r
    finally:
        r.close()


def test_a_killed_worker_is_restarted_and_its_processes_are_stopped(room):
    port2, pid2 = room.workers[2]
    port1, pid1 = room.workers[1]
    left = descendants(pid2)
    assert left, "the stand-in worker started no process of its own"
    everything = snapshot([pid1, *[p for p, _ in descendants(pid1)]])
    mark = room.out.mark()

    os.kill(pid2, signal.SIGKILL)
    # a browser pinned to the dead worker (its cookie) is answered, by a live one
    body = room.get(room.url + "/", cookie=f"{command.WORKER_COOKIE}=w2")
    assert f"pid {pid2}" not in body, body
    # a new browser too
    assert "pid" in room.get(room.url + "/")

    back = room.out.wait_line(
        lambda ln: re.search(r"worker 2 is back \(pid (\d+).*, ([\d.]+) s after", ln),
        timeout_s=TIMEOUT_S, what="worker 2's restart", start=mark)
    died = "\n".join(room.out.lines(mark))
    assert "worker 2 (pid %d) was killed by SIGKILL" % pid2 in died, died
    assert "stopped the 1 process it left; restarting it" in died, died
    new_pid = int(back.group(1))
    assert new_pid != pid2
    # its port answers again, from the new process
    assert room.get(f"http://127.0.0.1:{port2}{command.HEALTH}") == f"port {port2} pid {new_pid}"
    # nothing of the killed worker is left: the supervisor reaped its group before the
    # restart line
    assert not [p for p, s in left if alive(p, s)]
    assert in_group(pid2) == []
    # worker 1 and its own process were never touched
    assert all(alive(p, s) for p, s in everything)

    # a stop by SIGTERM after all that: exit code 0, nothing left
    after = snapshot([p for p, _ in descendants(room.proc.pid)])
    assert len(after) >= 2 * WORKERS + 1          # workers, their processes, HAProxy
    room.proc.send_signal(signal.SIGTERM)
    assert room.proc.wait(timeout=TIMEOUT_S) == 0, room.out.text()
    assert not [p for p, s in after if alive(p, s)], room.out.text()
    assert "SIGTERM received; stopping the workers and the proxy" in room.out.text()


def test_a_killed_worker_is_taken_out_of_the_proxy_by_the_command_at_once(room):
    """The supervisor knows of a death at once; HAProxy's health checks only within
    about a second, and meanwhile it sent a reconnecting browser's every try there (each
    refused, retried a second later). The command tells HAProxy through its runtime
    socket first thing: the line that takes the worker out says it came from there, and
    its checks bring the restarted worker back in."""
    _, pid2 = room.workers[2]
    mark = room.out.mark()
    os.kill(pid2, signal.SIGKILL)
    down = room.out.wait_line(lambda ln: ln if "nplk_workers/w2 is DOWN" in ln else None,
                              timeout_s=TIMEOUT_S, what="w2 taken out", start=mark)
    assert "CLI" in down, down
    room.out.wait_line(lambda ln: "nplk_workers/w2 is UP" in ln, timeout_s=TIMEOUT_S,
                       what="w2 back in the proxy", start=mark)
    assert "pid" in room.get(room.url + "/", cookie=f"{command.WORKER_COOKIE}=w2")


def test_a_killed_proxy_is_restarted(room):
    proxy = [p for p, _ in descendants(room.proc.pid)
             if Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")[0].endswith(b"haproxy")]
    assert len(proxy) == 1, proxy
    workers = snapshot([pid for _, pid in room.workers.values()])
    assert len(workers) == WORKERS
    mark = room.out.mark()
    os.kill(proxy[0], signal.SIGKILL)
    back = room.out.wait_line(lambda ln: re.search(r"HAProxy is back \(pid (\d+)", ln),
                              timeout_s=TIMEOUT_S, what="HAProxy's restart", start=mark)
    assert int(back.group(1)) != proxy[0]
    assert "HAProxy (pid %d) was killed by SIGKILL" % proxy[0] in room.out.text()
    assert "pid" in room.get(room.url + "/")       # the class is served again
    # the workers were not touched
    assert all(alive(pid, s) for pid, s in workers)


def test_killing_the_command_stops_the_workers_and_the_proxy(room):
    everything = descendants(room.proc.pid)
    assert len(everything) >= 2 * WORKERS + 1
    os.kill(room.proc.pid, signal.SIGKILL)        # the command alone
    room.proc.wait(timeout=30)
    # each child got SIGTERM from the kernel (PR_SET_PDEATHSIG) and stopped
    wait_gone(everything, TIMEOUT_S, what="the killed command's workers and proxy")


MAX_DEATHS = 2


@pytest.mark.parametrize("room", [MAX_DEATHS], indirect=True)
def test_a_worker_that_keeps_dying_ends_the_class(room):
    """With the stand-in's script gone every restart fails at once: after MAX_DEATHS
    + 1 deaths (here 2 + 1, the command's limit set low) the command stops the class
    with exit code 1 and says why; nothing is left."""
    everything = descendants(room.proc.pid)
    room.fake.rename(room.fake.with_suffix(".gone"))
    os.kill(room.workers[2][1], signal.SIGKILL)
    code = room.proc.wait(timeout=TIMEOUT_S)
    text = room.out.text()
    assert code == 1, text
    assert f"it died {MAX_DEATHS + 1} times" in text, text
    assert "so the class stops" in text
    assert "restarting it in 1 s" in text           # the back-off after a second death
    assert not [p for p, s in everything if alive(p, s)], text


# ---------------------------------------------------------------------------
# the parent-death hooks
# ---------------------------------------------------------------------------

PARENT = textwrap.dedent('''\
    import signal, subprocess, sys, threading
    from nplk_lab.serve import parent_watch
    how = sys.argv[1]
    CHILD = ("import signal, sys\\n"
             "from nplk_lab.serve import parent_watch\\n"
             "if sys.argv[1] == 'watch':\\n"
             "    parent_watch.die_with_parent()\\n"
             "print('child ready', flush=True)\\n"
             "signal.pause()\\n")
    kids = []
    def start():
        kids.append(subprocess.Popen(
            [sys.executable, "-c", CHILD, how],
            preexec_fn=parent_watch.pdeathsig_preexec() if how == "pdeathsig" else None))
    # started from a thread that ends (as a page thread starts the fit pool)
    t = threading.Thread(target=start) if how == "watch" else None
    if t:
        t.start()
        t.join()
    else:
        start()
    print(f"child {kids[0].pid}", flush=True)
    signal.pause()
''')


@pytest.mark.parametrize("how", ["watch", "pdeathsig"])
def test_a_child_dies_with_its_parent(tmp_path, how):
    """``die_with_parent`` (in the child, for a child started by a thread that then
    ended) and ``pdeathsig_preexec`` (for a child started by the main thread)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    parent = subprocess.Popen([sys.executable, "-c", PARENT, how], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    out = OutputLines(parent.stdout, tmp_path / "parent.log")
    try:
        out.wait_line(lambda ln: ln == "child ready", timeout_s=60, what="the child")
        pid = int(out.wait_line(lambda ln: re.fullmatch(r"child (\d+)", ln),
                                timeout_s=60, what="the child's pid").group(1))
        child = snapshot([pid])
        # the thread that started it has ended: the child is still there
        assert child and alive(*child[0])
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        wait_gone(child, 30, what="the child of a killed parent")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if in_group(parent.pid):
            os.killpg(parent.pid, signal.SIGKILL)


POOL_PARENT = textwrap.dedent('''\
    import concurrent.futures as cf, multiprocessing, os, signal, sys, threading
    from nplk_lab.serve import parent_watch

    def start():
        # as nplk_lab/serve/workers.py builds its pool: spawned, shared slots, an
        # initializer; submitted from a thread that then ends (a page run)
        ctx = multiprocessing.get_context("spawn")
        slots = ctx.Array("i", 2, lock=False)
        pool = cf.ProcessPoolExecutor(2, mp_context=ctx,
                                      initializer=parent_watch.die_with_parent)
        pools.append((pool, slots))
        print("pool", *sorted({pool.submit(os.getpid).result() for _ in range(8)}),
              flush=True)

    if __name__ == "__main__":
        pools = []
        t = threading.Thread(target=start)
        t.start()
        t.join()
        signal.pause()
''')


def test_a_fit_pool_with_the_hook_dies_with_its_server(tmp_path):
    """What ``die_with_parent`` as the pool's initializer gives (the hook the fit
    pool's ``_worker_init`` is to call): the server SIGKILLed, its pool's processes
    and multiprocessing's resource tracker all end."""
    script = tmp_path / "pool_parent.py"
    script.write_text(POOL_PARENT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")]))
    parent = subprocess.Popen([sys.executable, str(script)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    out = OutputLines(parent.stdout, tmp_path / "parent.log")
    try:
        out.wait_line(lambda ln: ln.startswith("pool "), timeout_s=120, what="the pool")
        below = descendants(parent.pid)
        assert len(below) >= 2, below           # the pool's workers (and the tracker)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=30)
        wait_gone(below, 60, what="the pool of a killed server")
    finally:
        if in_group(parent.pid):
            os.killpg(parent.pid, signal.SIGKILL)


def test_the_fit_pools_workers_watch_their_server(monkeypatch):
    """The lab's own pool initializer installs the parent hook (a killed classroom worker
    left its fit pool under PID 1), without touching this process's BLAS threads."""
    import sys
    import types

    from nplk_lab.serve import parent_watch, workers

    called = []
    monkeypatch.setattr(parent_watch, "die_with_parent", lambda *a: called.append(a))
    monkeypatch.setitem(sys.modules, "threadpoolctl",
                        types.SimpleNamespace(threadpool_limits=lambda n: None))
    workers._worker_init()
    assert called == [()]
