"""How the generated HAProxy configuration spreads a class over the workers, driven for
real: HAProxy with ``command.haproxy_config`` in front of two small recording servers
that stand in for the workers (they answer the health check, a page, and hold a light
page's long poll open until told).

A class's light page keeps nothing in a worker: its requests are spread one by one and
ignore the worker cookie, so a hall's long polls, whichever worker holds them, leave
the lab's own tabs spread evenly by their own count (with one backend, polls pinned to
one worker sent every new tab to the other)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import threading
from http.cookies import SimpleCookie

import pytest

from nplk_lab.serve import command
from nplk_lab.serve.class_hall import API, HALL_PATH

WAIT_S = 30.0


class Recorder:
    """A stand-in worker on its own event loop (in a thread): answers the health check
    and pages at once, holds long polls until ``release()``; counts what it served."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = _free_port()
        self.pages = 0
        self.polls = 0
        self.held = 0
        self.loop = asyncio.new_event_loop()
        self.release_event: asyncio.Event | None = None
        self.stop_event: asyncio.Event | None = None
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.release_event, self.stop_event = asyncio.Event(), asyncio.Event()
        self.loop.run_until_complete(self._serve())
        self.loop.close()

    async def _serve(self) -> None:
        server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
        self.ready.set()
        async with server:
            await self.stop_event.wait()

    async def _client(self, reader, writer) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                if path.startswith(API + "/state"):
                    self.polls += 1
                    self.held += 1
                    await self.release_event.wait()
                    self.held -= 1
                elif not path.startswith("/_stcore/health"):
                    self.pages += 1
                body = self.name.encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def start(self) -> Recorder:
        self.thread.start()
        assert self.ready.wait(WAIT_S)
        return self

    def release(self) -> None:
        self.loop.call_soon_threadsafe(self.release_event.set)

    def stop(self) -> None:
        self.release()
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(WAIT_S)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _get(port: int, path: str, cookies: dict[str, str]) -> tuple[str, dict[str, str]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                 f"{'Cookie: ' + cookie + chr(13) + chr(10) if cookie else ''}\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    got: dict[str, str] = {}
    for line in head.decode("latin-1").split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "set-cookie":
            got.update({n: m.value for n, m in SimpleCookie(v.strip()).items()})
    return body.decode(), got


@pytest.fixture
def proxied(tmp_path):
    proxy = command.find_proxy()
    if proxy is None:
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    workers = [Recorder("w1").start(), Recorder("w2").start()]
    port = _free_port()
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(command.haproxy_config("127.0.0.1", port, [w.port for w in workers]))
    proc = subprocess.Popen([proxy, "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        # up once both workers answered their first health check through the proxy
        async def up() -> None:
            while True:
                try:
                    names = {(await _get(port, "/", {}))[0] for _ in range(4)}
                except OSError:
                    names = set()
                if names == {"w1", "w2"}:
                    return
                await asyncio.sleep(0.1)
        asyncio.run(asyncio.wait_for(up(), WAIT_S))
        for w in workers:
            w.pages = 0
        yield port, workers
    finally:
        proc.terminate()
        proc.wait(timeout=WAIT_S)
        for w in workers:
            w.stop()


def test_light_page_polls_do_not_skew_where_new_tabs_go(proxied):
    port, (w1, w2) = proxied

    async def main() -> tuple[list[str], list[dict[str, str]]]:
        # ten light-page students whose browsers carry w1's cookie (e.g. from the full
        # lab) hold their long polls open
        polls = [asyncio.ensure_future(_get(port, f"{API}/state?class=C&since=1",
                                            {command.WORKER_COOKIE: "w1"}))
                 for _ in range(10)]

        async def all_held() -> None:
            while w1.held + w2.held < 10:
                await asyncio.sleep(0.02)
        await asyncio.wait_for(all_held(), WAIT_S)
        # the polls went one by one, the cookie ignored: both workers hold some
        assert w1.held > 0 and w2.held > 0, (w1.held, w2.held)
        # six new tabs of the lab's pages while the polls are held
        tabs = [await _get(port, "/", {}) for _ in range(6)]
        w1.release()
        w2.release()
        answered = await asyncio.wait_for(asyncio.gather(*polls), WAIT_S)
        # the light page sets no worker cookie
        assert all(command.WORKER_COOKIE not in c for _, c in answered)
        return [name for name, _ in tabs], [c for _, c in tabs]
    names, cookies = asyncio.run(main())
    # the tabs spread evenly, each pinned by its cookie to the worker that served it
    assert sorted(names) == ["w1"] * 3 + ["w2"] * 3, names
    assert [c[command.WORKER_COOKIE] for c in cookies] == names


def test_the_light_page_and_its_files_go_to_the_spread_backend():
    cfg = command.haproxy_config("127.0.0.1", 8600, [8601, 8602])
    assert f"use_backend {command.HALL_BACKEND} if {{ path {HALL_PATH} }} || " \
           f"{{ path_beg {HALL_PATH}/ }}" in cfg
    hall = cfg.split(f"backend {command.HALL_BACKEND}\n")[1].split("\nbackend ")[0]
    assert "cookie" not in hall.replace("# ", "").split("balance")[1].split("server")[0]
    assert [ln.split()[1:] for ln in hall.splitlines() if ln.strip().startswith("server")] \
        == [["w1", "127.0.0.1:8601", "track", f"{command.BACKEND}/w1"],
            ["w2", "127.0.0.1:8602", "track", f"{command.BACKEND}/w2"]]
    # several hosts: the lab's pages go to the hosts in turn (a host is a machine like
    # the others; its own proxy spreads its workers), the light page one request at a time
    front = command.haproxy_config("127.0.0.1", 8600, [], hosts=["10.0.0.1:1", "10.0.0.2:1"])
    lab = front.split(f"\nbackend {command.BACKEND}\n")[1]
    assert "balance roundrobin" in lab and f"cookie {command.HOST_COOKIE} insert" in lab
    assert f"track {command.BACKEND}/host2" in front


def test_the_light_pages_own_processes_come_first_the_workers_back_them_up():
    cfg = command.haproxy_config("127.0.0.1", 8600, [8601, 8602], hall_ports=[8603])
    hall = cfg.split(f"\nbackend {command.HALL_BACKEND}\n")[1].split("\nbackend ")[0]
    servers = [ln.split() for ln in hall.splitlines() if ln.strip().startswith("server")]
    assert servers[0][:4] == ["server", "h1", "127.0.0.1:8603", "check"]
    assert [s[1:] for s in servers[1:]] == [
        ["w1", "127.0.0.1:8601", "track", f"{command.BACKEND}/w1", "backup"],
        ["w2", "127.0.0.1:8602", "track", f"{command.BACKEND}/w2", "backup"]]
    assert "option allbackups" in hall and f"uri {command.HEALTH}" in hall

