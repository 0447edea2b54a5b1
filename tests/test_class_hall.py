"""A class's light student page (nplk_lab/serve/class_hall.py) through its routes,
without a server: each test's browsers are cookie jars speaking ASGI to the lab's
routes and middleware, on a fresh SQLite class store.

A vote is stored and a second one in the same round replaces it; the second vote is
its own; a wrong code, a browser that has not joined and a closed vote are refused in
the store's plain words; what a user types comes back as JSON data, and the page writes
every text as text; the long poll answers when the class moves; the fitted figure opens
at the reveal only, and is made once for the whole room; the page's files and Plotly.js
are served, Plotly.js to be kept by the browser. The whole class in Chromium through
``nplk-lab classroom``: test_browser_class_hall.py.
"""

from __future__ import annotations

import asyncio
import json
import re
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import pytest

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_hall, class_room, class_web
from nplk_lab.serve.class_store_rules import REVOTE, SEAT_CHARS, SPLIT, Seat, new_seat

LESSON = 1


class Browser:
    """A browser's cookie jar and its requests to the lab's routes (ASGI)."""

    def __init__(self, app, host: str = "lab:8501") -> None:
        self.app, self.host, self.cookies = app, host, {}

    async def request(self, method: str, path: str, body: object = None,
                      headers: dict | None = None):
        path, _, query = path.partition("?")
        raw = b"" if body is None else json.dumps(body).encode()
        sent_headers = [(b"host", self.host.encode()), (b"accept-encoding", b"identity")]
        if self.cookies:
            sent_headers.append((b"cookie", "; ".join(
                f"{k}={v}" for k, v in self.cookies.items()).encode()))
        if body is not None:
            sent_headers.append((b"content-type", b"application/json"))
        for k, v in (headers or {}).items():
            sent_headers.append((k.lower().encode(), v.encode()))
        scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
                 "root_path": "", "query_string": query.encode(), "headers": sent_headers,
                 "scheme": "http", "server": ("lab", 8501), "client": ("10.0.0.7", 5000),
                 "http_version": "1.1", "asgi": {"version": "3.0"}}
        out = []
        done = False

        async def receive():
            nonlocal done
            if done:
                await asyncio.Event().wait()
            done = True
            return {"type": "http.request", "body": raw, "more_body": False}

        async def send(message):
            out.append(message)
        await self.app(scope, receive, send)
        start = next(m for m in out if m["type"] == "http.response.start")
        hdrs = [(k.decode().lower(), v.decode()) for k, v in start["headers"]]
        for k, v in hdrs:
            if k == "set-cookie":
                c = SimpleCookie(v)
                for name, morsel in c.items():
                    self.cookies[name] = morsel.value
        data = b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")
        return start["status"], dict(hdrs), data

    async def get_json(self, path: str, status: int = 200) -> dict:
        got, _, data = await self.request("GET", path)
        assert got == status, (got, data[:300])
        return json.loads(data)

    async def post(self, path: str, body: object, status: int = 200) -> dict:
        got, _, data = await self.request("POST", path, body)
        assert got == status, (got, data[:300])
        return json.loads(data)

    async def state(self, code: str, since: int | None = None, status: int = 200) -> dict:
        q = {"class": code, **({} if since is None else {"since": since})}
        return await self.get_json(f"{class_hall.API}/state?{urlencode(q)}", status)


@pytest.fixture
def hall(tmp_path, monkeypatch):
    """The lab's routes and middleware on a fresh store; the class store for the test."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware

    monkeypatch.setenv(class_room.ENV, str(tmp_path / "store"))
    monkeypatch.setattr(class_hall, "_watcher", class_hall.Watcher(
        lambda code: class_room.store().state(code).version))
    app = Starlette(routes=class_web.routes() + class_hall.routes(),
                    middleware=[Middleware(class_web.SeatCookie)])
    return app, class_room.store()


def started(store):
    s = store.start_class(f"L{LESSON}", size=10)
    return s.code, s.teacher_token


async def joined(app, code: str, name: str | None = None) -> Browser:
    b = Browser(app)
    status, _, _ = await b.request("GET", f"{class_hall.HALL_PATH}?class={code}")
    assert status == 200 and class_web.SEAT_COOKIE in b.cookies
    await b.post(f"{class_hall.API}/join", {"class": code, "name": name})
    return b


def test_a_vote_is_stored_and_a_second_one_in_its_round_replaces_it(hall):
    app, store = hall
    code, token = started(store)
    options = L.lesson(LESSON).steps[0].options

    async def main():
        b = await joined(app, code, "Ada")
        s = await b.state(code)
        assert (s["role"], s["handle"], s["step"], s["phase"], s["round"]) == \
            ("student", "Ada", 0, "vote", 1)
        assert s["options"] == list(options) and s["mine"] is None
        got = await b.post(f"{class_hall.API}/vote", {"class": code, "step": 0, "choice": 1,
                                                       "sure": True})
        assert got["mine"]["first"] == 1 and got["mine"]["first_sure"] is True
        await b.post(f"{class_hall.API}/vote", {"class": code, "step": 0, "choice": 0})
        seat = Seat(b.cookies[class_web.SEAT_COOKIE])
        v = store.vote_of(code, seat, 0)
        assert (v.first, v.first_sure, v.changes) == (0, None, 1)
        assert store.counts(code, 0).answered == 1
        # the second vote is its own: the first stays
        store.move(code, token, SPLIT)
        store.move(code, token, REVOTE)
        s = await b.state(code)
        assert (s["phase"], s["round"], s["mine"]["first"]) == ("revote", 2, 0)
        await b.post(f"{class_hall.API}/vote", {"class": code, "step": 0, "choice": 1})
        v = store.vote_of(code, seat, 0)
        assert (v.first, v.second, v.held) == (0, 1, 1)
        # a reload is the same browser: the same student and votes
        again = Browser(app)
        again.cookies = dict(b.cookies)
        s = await again.state(code)
        assert (s["handle"], s["mine"]["first"], s["mine"]["second"]) == ("Ada", 0, 1)
    asyncio.run(main())


def test_a_wrong_code_a_stranger_and_a_closed_vote_are_refused_in_plain_words(hall):
    app, store = hall
    code, token = started(store)

    async def main():
        stranger = Browser(app)
        s = await stranger.state("ZZZZ-ZZZZ", status=404)
        assert "no class with this code" in s["error"]
        s = await stranger.state(code)
        assert s["role"] == "visitor" and "question" not in s   # nothing before joining
        got = await stranger.post(f"{class_hall.API}/vote",
                                  {"class": code, "step": 0, "choice": 0}, status=403)
        assert "has not joined" in got["error"]
        # a seat the lab made but that never joined this class
        await stranger.request("GET", class_hall.HALL_PATH)
        assert len(stranger.cookies[class_web.SEAT_COOKIE]) >= SEAT_CHARS[0]
        got = await stranger.post(f"{class_hall.API}/vote",
                                  {"class": code, "step": 0, "choice": 0}, status=404)
        assert "not in this class" in got["error"]
        b = await joined(app, code)
        got = await b.post(f"{class_hall.API}/vote", {"class": code, "step": 3, "choice": 0},
                           status=409)
        assert "not open: the class is at step 1" in got["error"]
        got = await b.post(f"{class_hall.API}/vote", {"class": code, "step": 0,
                                                       "choice": "<b>1</b>"}, status=409)
        assert "whole number" in got["error"] or "An answer" in got["error"]
        store.reveal(code, token, 0, correct=0)
        got = await b.post(f"{class_hall.API}/vote", {"class": code, "step": 0, "choice": 0},
                           status=409)
        assert got["error"] == "Votes on this question are closed: the answer is revealed."
        got = await b.post(f"{class_hall.API}/join", {"class": "ABCD-EFGH"}, status=404)
        assert "no class with this code" in got["error"]
        status, _, data = await b.request("POST", f"{class_hall.API}/vote",
                                          headers={"origin": "http://elsewhere.example"})
        assert status == 403 and b"own server" in data
        status, _, data = await b.request("POST", f"{class_hall.API}/join")
        assert status == 400 and b"reload it" in data
    asyncio.run(main())


def test_what_a_user_types_is_data_and_the_page_writes_text_as_text(hall):
    app, store = hall
    code, token = started(store)
    hostile = "<img src=x onerror=alert(1)>"

    async def main():
        b = await joined(app, code, hostile)
        s = await b.state(code)
        assert s["handle"] == hostile                       # JSON data, as typed
        status, hdr, html = await b.request(
            "GET", f"{class_hall.HALL_PATH}?class=%3Cscript%3Ealert(1)%3C/script%3E")
        assert status == 200 and b"<script>alert" not in html   # the page is static
        assert hdr["content-type"].startswith("text/html")
    asyncio.run(main())
    js = class_hall._browser_file("hall.js")
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", js)
    assert "textContent" in js
    html = class_hall._browser_file("hall.html")
    # every request of the page goes to its own server
    assert not re.search(r"(src|href)=\"(https?:)?//", html)


def test_the_long_poll_answers_when_the_class_moves():
    versions = {"C": 3}
    watcher = class_hall.Watcher(lambda code: versions[code])

    async def main():
        # the version moved already: at once
        await asyncio.wait_for(watcher.wait("C", 2, 60), 30)
        waiting = asyncio.ensure_future(watcher.wait("C", 3, 600))
        await asyncio.sleep(0)
        assert not waiting.done()
        versions["C"] = 4                          # the teacher moved
        await asyncio.wait_for(waiting, 30)        # woken, far before its 600 s
        # a browser that saw version 6 through another process: this one's 4 is not
        # news, it waits for the watcher to read the class again
        ahead = asyncio.ensure_future(watcher.wait("C", 6, 600))
        await asyncio.sleep(0)
        assert not ahead.done()
        versions["C"] = 7
        await asyncio.wait_for(ahead, 30)
    asyncio.run(main())


def test_the_state_long_poll_returns_the_new_step(hall):
    app, store = hall
    code, token = started(store)

    async def main():
        b = await joined(app, code)
        s = await b.state(code)
        poll = asyncio.ensure_future(b.state(code, since=s["version"]))
        await asyncio.sleep(0)
        store.advance(code, token, 1)
        got = await asyncio.wait_for(poll, 60)
        assert got["step"] == 1 and got["version"] > s["version"]
    asyncio.run(main())


def test_the_fitted_figure_opens_at_the_reveal_and_is_made_once(hall, monkeypatch):
    app, store = hall
    code, token = started(store)
    from nplk_lab.model.lessons import lesson_figures
    made = []
    real = lesson_figures.step_figure

    def counted(step, revealed, height=600, **kw):
        made.append((step.question, revealed))
        return real(step, revealed, height, **kw)
    monkeypatch.setattr(lesson_figures, "step_figure", counted)
    monkeypatch.setattr(class_hall, "_made", class_hall.Once())
    monkeypatch.setattr(class_hall, "_ahead", lambda *a: None)

    async def main():
        students = [await joined(app, code) for _ in range(3)]
        s = await students[0].state(code)
        assert s["figure"].endswith("revealed=0")
        got = await students[0].get_json(s["figure"].replace("revealed=0", "revealed=1"),
                                          status=409)
        assert "opens at the reveal" in got["error"]
        store.reveal(code, token, 0, correct=0)
        figs = []
        for b in students:
            s = await b.state(code)
            assert s["phase"] == "revealed" and s["figure"].endswith("revealed=1")
            assert s["verdict"]["kind"] == "none" and s["reveal"]
            figs.append(await b.get_json(s["figure"]))
        assert figs[0]["data"] and all(f == figs[0] for f in figs)
    asyncio.run(main())
    assert made.count((L.lesson(LESSON).steps[0].question, True)) == 1, made


def test_the_pages_files_and_plotly_js_come_from_the_server(hall):
    app, _ = hall

    async def main():
        b = Browser(app)
        version, _ = class_hall.plotly_gz()
        _, _, html = await b.request("GET", class_hall.HALL_PATH)
        assert f"plotly.js?v={version}".encode() in html
        status, hdr, js = await b.request("GET", f"{class_hall.HALL_PATH}/plotly.js?v={version}")
        assert status == 200 and b"Plotly" in js[:20000]
        assert "immutable" in hdr["cache-control"]
        for name in ("hall.js", "hall.css"):
            status, hdr, _ = await b.request("GET", f"{class_hall.HALL_PATH}/{name}")
            assert status == 200 and hdr["cache-control"] == "no-cache"
        status, _, _ = await b.request("GET", f"{class_hall.HALL_PATH}/../class_store.py")
        assert status == 404
    asyncio.run(main())


class Counting:
    """The class store, counting what a poll asks it."""

    def __init__(self, store) -> None:
        self.store, self.asked = store, []

    def __getattr__(self, name):
        attr = getattr(self.store, name)
        if callable(attr):
            def counted(*a, **k):
                self.asked.append(name)
                return attr(*a, **k)
            return counted
        return attr


def _state_of(store, code, seat):
    """What the browser of ``seat`` sees, as one dict: the two parts the route encodes
    apart (the class's, the student's own) merged, read afresh from the store."""
    own, view = class_hall._student_parts(store, code, seat, "", "", None)
    return own if view is None else {**view[0], **own}


def test_a_known_students_poll_reads_only_the_votes_and_sends_the_same_answer(hall):
    """The state's JSON is the class's part encoded once per version with the student's
    own part added: the same answer as before, for a student, a visitor and a teacher's
    device. A seat this process has seen as a student, polled with the watcher's fresh
    state, asks the store for its votes only, and a vote made since is in the answer."""
    app, store = hall
    teacher = Seat(new_seat())
    code = store.start_class(f"L{LESSON}", size=10, seat=teacher).code

    async def main():
        ada = await joined(app, code, "Ada")
        stranger = Browser(app)
        await stranger.request("GET", f"{class_hall.HALL_PATH}?class={code}")
        return Seat(ada.cookies[class_web.SEAT_COOKIE]), \
            Seat(stranger.cookies[class_web.SEAT_COOKIE])
    seat, visitor = asyncio.run(main())
    for who in (seat, visitor, teacher):
        body = class_hall.student_body(store, code, who, "")
        assert json.loads(body) == _state_of(store, code, who), who
    s = _state_of(store, code, seat)
    assert s["role"] == "student" and s["handle"] == "Ada"
    assert not set(class_hall.OWN_KEYS) & set(class_hall.class_view(
        store, store.state(code), "")), "a key in both parts"

    counting = Counting(store)
    fresh = store.state(code)
    first = json.loads(class_hall.student_body(counting, code, seat, "", recent=fresh))
    assert "enter" not in counting.asked and counting.asked.count("vote_of") == 1
    assert first == _state_of(store, code, seat)
    store.vote(code, seat, 0, 1, None)
    counting.asked.clear()
    got = json.loads(class_hall.student_body(counting, code, seat, "", recent=fresh))
    assert got["mine"]["first"] == 1 and counting.asked == ["vote_of"]
    # a seat not known here as a student is looked up, whatever state comes with it
    counting.asked.clear()
    got = json.loads(class_hall.student_body(counting, code, visitor, "", recent=fresh))
    assert got["role"] == "visitor" and "enter" in counting.asked


def test_the_watcher_hands_on_the_state_it_read_only_while_fresh(monkeypatch):
    from nplk_lab.serve.class_store_rules import ClassState
    now = [100.0]
    monkeypatch.setattr(class_hall.time, "monotonic", lambda: now[0])
    state = ClassState(code="C", lesson="L1", step=0, phase=0, correct=None,
                       revealed_steps=(), ended=False, version=4, count_version=0,
                       students=1, size=10, started_at=0.0, delete_at=1e9,
                       idle_timeout_s=600.0)
    watcher = class_hall.Watcher(lambda code: state)

    async def main():
        await asyncio.wait_for(watcher.wait("C", 3, 60), 30)   # read 4: moved at once
    asyncio.run(main())
    assert watcher.recent("C") == state and watcher.recent("D") is None
    now[0] += class_hall.WATCH_S * 1.01
    assert watcher.recent("C") is None


def test_a_poll_never_answers_an_older_state_than_the_browser_has(hall, monkeypatch):
    """Polls of one browser may reach different processes, whose watchers read the class
    at different moments: a watcher behind what the browser has seen is not used."""
    app, store = hall
    code, token = started(store)
    stale = store.state(code)                      # what a lagging watcher holds
    monkeypatch.setattr(class_hall, "_watcher", class_hall.Watcher(lambda c: stale))

    async def main():
        b = await joined(app, code)
        assert (await b.state(code))["role"] == "student"    # this process knows the seat
        store.advance(code, token, 1)
        now = store.state(code).version
        # the browser saw ``now`` elsewhere; this process's watcher still reads ``stale``
        got = await asyncio.wait_for(b.state(code, since=now), 60)
        assert got["version"] == now and got["step"] == 1
    asyncio.run(main())

