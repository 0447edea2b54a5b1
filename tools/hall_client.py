"""A student of a class's light page without a browser: what ``hall.js`` asks of the
server (``nplk_lab/serve/class_hall.py``), over plain HTTP/1.1 with keep-alive, as many
as a benchmark likes in one asyncio loop (the standard library only).

A :class:`LightStudent` opens the page (the HTML, ``hall.js``, ``hall.css``: the seat
cookie comes with the page), joins, then long-polls the class's state on the class's
version, fetching the step's figure whenever its address changes, as the page does; it
votes when told to (the page's "Lock in"). It notes when each version first arrived and
each vote's round trip. Plotly.js is not fetched: a browser keeps it (one immutable
address per version), and a benchmark measures it apart.

Used by ``benchmarks/bench_lecture_hall.py``.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit

HALL = "/_nplk/class"
API = HALL + "/api"


class Connection:
    """One keep-alive HTTP/1.1 connection, opened again when the server closed it."""

    def __init__(self, base: str, cookies: dict[str, str],
                 headers: dict[str, str] | None = None) -> None:
        u = urlsplit(base)
        self.headers = dict(headers or {})   # sent with every request, as given
        self.host, self.port = u.hostname, u.port or 80
        self.netloc = u.netloc
        self.cookies = cookies
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except (ConnectionError, OSError):
                pass
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: object = None,
                      timeout: float = 120.0) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host,
                                                                         self.port)
            raw = b"" if body is None else json.dumps(body).encode()
            head = [f"{method} {path} HTTP/1.1", f"Host: {self.netloc}",
                    "Accept-Encoding: gzip", "Connection: keep-alive",
                    f"Content-Length: {len(raw)}"]
            if body is not None:
                head += ["Content-Type: application/json",
                         f"Origin: http://{self.netloc}"]
            head += [f"{k}: {v}" for k, v in self.headers.items()]
            if self.cookies:
                head.append("Cookie: " + "; ".join(f"{k}={v}"
                                                   for k, v in self.cookies.items()))
            try:
                self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + raw)
                await self.writer.drain()
                return await asyncio.wait_for(self._response(), timeout)
            except (ConnectionError, asyncio.IncompleteReadError, OSError):
                await self.close()
                if attempt:
                    raise
        raise ConnectionError("unreachable")

    async def _response(self) -> tuple[int, dict[str, str], bytes]:
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = (await self.reader.readuntil(b"\r\n")).decode("latin-1").strip()
            if not line:
                break
            k, _, v = line.partition(":")
            k, v = k.strip().lower(), v.strip()
            if k == "set-cookie":
                for name, morsel in SimpleCookie(v).items():
                    self.cookies[name] = morsel.value
            headers[k] = v
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                parts.append(chunk[:-2])
            data = b"".join(parts)
        else:
            data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        if headers.get("content-encoding", "").lower() == "gzip":
            data = gzip.decompress(data)
        return status, headers, data


class LightStudent:
    """One student on the light page (see the module doc)."""

    def __init__(self, base: str, code: str, cookies: dict[str, str]) -> None:
        self.base, self.code = base, code
        self.cookies = dict(cookies)
        self.poll_conn = Connection(base, self.cookies)
        self.act_conn = Connection(base, self.cookies)
        self.version: int | None = None
        self.state: dict = {}
        self.arrived: list[tuple[float, dict]] = []      # (when, state) per new version
        self.figures: dict[str, float] = {}              # figure address -> its arrival
        self.vote_times: list[float] = []
        self.votes_ok = 0
        self.errors: list[str] = []
        self.polling = False

    async def open_and_join(self) -> None:
        for path in (f"{HALL}?class={self.code}", f"{HALL}/hall.js", f"{HALL}/hall.css"):
            status, _, _ = await self.act_conn.request("GET", path)
            if status != 200:
                self.errors.append(f"GET {path}: {status}")
        status, _, data = await self.act_conn.request("POST", f"{API}/join",
                                                      {"class": self.code, "name": None})
        if status != 200:
            self.errors.append(f"join: {status} {data[:200]!r}")

    async def poll(self) -> None:
        """The page's long poll, until ``polling`` is False; a refused or broken poll is
        tried again a little later, as the page does."""
        self.polling = True
        wait = 0.0
        while self.polling:
            q = {"class": self.code, **({} if self.version is None else
                                        {"since": self.version})}
            try:
                status, _, data = await self.poll_conn.request(
                    "GET", f"{API}/state?{urlencode(q)}")
            except (ConnectionError, OSError, asyncio.IncompleteReadError, TimeoutError):
                status, data = 0, b""
            if status != 200:
                if status and status < 500 and status != 429:
                    self.errors.append(f"state: {status} {data[:200]!r}")
                    return
                wait = min(2.0, 2 * wait if wait else 0.25)
                await asyncio.sleep(wait)
                continue
            wait = 0.0
            try:
                s = json.loads(data)
            except ValueError as e:
                self.errors.append(f"state: {e!r}")
                return
            now = time.perf_counter()
            if s.get("version") != self.version:
                self.version = s.get("version")
                self.state = s
                self.arrived.append((now, s))
                if s.get("figure") and s["figure"] not in self.figures:
                    await self.figure(s["figure"])

    async def figure(self, path: str) -> None:
        # on the poll's connection: the poll waits for it, and a vote may be under way
        # on the other
        status, _, _ = await self.poll_conn.request("GET", path)
        if status in (200, 204):
            self.figures[path] = time.perf_counter()
        else:
            self.errors.append(f"figure: {status}")

    async def vote(self, step: int, choice: int) -> bool:
        t0 = time.perf_counter()
        try:
            status, _, data = await self.act_conn.request(
                "POST", f"{API}/vote", {"class": self.code, "step": step, "choice": choice,
                                         "sure": None})
        except (ConnectionError, OSError, asyncio.IncompleteReadError, TimeoutError) as e:
            self.errors.append(f"vote: {e!r}")
            return False
        self.vote_times.append(time.perf_counter() - t0)
        if status != 200:
            self.errors.append(f"vote: {status} {data[:200]!r}")
            return False
        self.votes_ok += 1
        return True

    def reached(self, t0: float, ok) -> float | None:
        """Seconds from ``t0`` to the first state after it for which ``ok(state)``."""
        return next((t - t0 for t, s in self.arrived if t >= t0 and ok(s)), None)

    async def close(self) -> None:
        self.polling = False
        await self.poll_conn.close()
        await self.act_conn.close()
