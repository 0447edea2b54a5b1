"""A class's light student page: a lecture hall on one link.

A student of a class needs what is the same for the whole room at a given step: the
step's sentence, its question and options, its figure, and after the reveal the measured
answer. This module serves that from the same worker processes as the lab's pages (routes
beside Streamlit's through ``st.App``, :mod:`.class_web`), sharing the class store, and
computes it once per step per process, not once per student per poll:

* ``/_nplk/class?class=CODE`` is the page (``hall.html``, ``hall.js``, ``hall.css``:
  browser files of the package, read by name); Plotly.js comes from the installed
  ``plotly`` package (``/_nplk/class/plotly.js``, one address per version, which the
  browser keeps). Nothing is asked of another host.
* ``GET /_nplk/class/api/state?class=CODE&since=V`` is what this browser's student sees
  (JSON): a long poll that answers once the class's ``version`` differs from ``V`` (or
  after :data:`LONG_POLL_S`). One watcher per process reads each watched class's version
  every :data:`WATCH_S` and wakes its waiters; the class-wide part of the answer is made
  once per class and version (:class:`Views`), the student's own part is two small reads
  (who the seat is, its votes).
* ``POST /_nplk/class/api/join`` ``{"class", "name"}`` and ``POST
  /_nplk/class/api/vote`` ``{"class", "step", "choice", "sure"}`` are the join button
  and the "Lock in" button. Refusals come back as ``{"error": "..."}`` in the class
  store's own words, shown as text.
* ``GET /_nplk/class/api/figure?class=CODE&step=N&revealed=0|1`` is the step's Plotly
  figure as JSON, made once per lesson step per process (``step_figure``, the Lessons
  page's) and kept gzipped; the fitted one only once the class revealed that step.

Who the student is: the browser's seat (the ``nplk_seat`` cookie), exactly as on the
Streamlit page, so a reload, a dead worker or the full lab and back leave them the same
student with the same votes. A teacher's own lesson travels in the join link
(``my_lesson``), as on the Lessons page; the store keeps its hash only.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from .class_store_rules import (
    MAX_NAME_CHARS,
    PHASES,
    REVEALED,
    SHIFT,
    SPLIT,
    ClassError,
    ClassOver,
    ClassState,
    Seat,
    TooMany,
    UnknownClass,
    Vote,
    format_code,
    new_seat,
    normal_code,
    open_round,
    shift_of,
)
from .class_web import MAX_BODY_BYTES, client_address, seat_cookie, seat_in

HALL_PATH = "/_nplk/class"
API = HALL_PATH + "/api"
LONG_POLL_S = 20.0           # a long poll's longest wait (a proxy's idle limit is longer)
WATCH_S = 0.2                # how often a process reads the version of a watched class
FIGURE_HEIGHT = 540          # px: a phone's figure (its legend below the plot)
MAX_LESSON_CHARS = 16_000     # a teacher's own lesson in a link (the Lessons page's cap)
VIEWS_KEPT = 64
PHASE_NAMES = ("vote", "split", "revote", "shift", "revealed")
FILES = {"hall.js": "text/javascript", "hall.css": "text/css"}


def lesson_tag(lesson_id: str, my_lesson: str) -> str:
    """What the store keeps of a class's lesson: "L2", or "mine-" and a hash of a
    teacher's own lesson (the lesson itself travels in the join link)."""
    if lesson_id == "mine":
        return "mine-" + hashlib.sha256(my_lesson.encode()).hexdigest()[:16]
    return lesson_id


def hall_link(base: str, code: str, my_lesson: str = "") -> str:
    """The light page of the class ``code`` on the server at ``base``
    (``scheme://host:port``): the class's join link."""
    q = {"class": code, **({"my_lesson": my_lesson} if my_lesson else {})}
    return f"{base.rstrip('/')}{HALL_PATH}?{urlencode(q)}"


def plain(text: str) -> str:
    """The lab's own lesson text without its Markdown emphasis (the page shows text)."""
    return text.replace("**", "")


def _browser_file(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text("utf-8")


# ---------------------------------------------------------------------------
# the steps of a class's lesson, their reveals and figures: once per process
# ---------------------------------------------------------------------------

def lesson_steps(tag: str, my_lesson: str = "") -> Sequence[Any]:
    """The steps of the lesson a class plays (``tag`` as the store keeps it); a
    teacher's own lesson needs its link's ``my_lesson``. ClassError when neither fits."""
    from nplk_lab.model.lessons import lessons as L
    if tag.startswith("L") and tag[1:].isdigit():
        try:
            return L.lesson(int(tag[1:])).steps
        except (KeyError, IndexError, ValueError):
            raise ClassError("This class plays a lesson this lab does not have.") from None
    if not my_lesson or len(my_lesson) > MAX_LESSON_CHARS or lesson_tag("mine", my_lesson) != tag:
        raise ClassError("This class plays its teacher's own lesson: open the class's "
                         "join link (it carries the lesson).")
    return _own_lesson(my_lesson)


class Once:
    """Values made once per key in this process, whichever thread asks first; the others
    wait for it (a room arriving at a step starts one fit, not one per student)."""

    def __init__(self, keep: int = 256) -> None:
        self._lock = threading.Lock()
        self._done: OrderedDict[Any, Any] = OrderedDict()
        self._making: dict[Any, threading.Lock] = {}
        self._keep = keep

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                return self._done[key]
            lock = self._making.setdefault(key, threading.Lock())
        with lock:
            with self._lock:
                if key in self._done:
                    return self._done[key]
            value = make()
            with self._lock:
                self._done[key] = value
                self._making.pop(key, None)
                while len(self._done) > self._keep:
                    self._done.popitem(last=False)
            return value


_made = Once()


def _own_lesson(my_lesson: str) -> Sequence[Any]:
    from nplk_lab.model.lessons import teacher_lessons as T

    def decode() -> Sequence[Any]:
        steps, _ = T.decode_teacher_lesson(my_lesson)
        return [s.as_step() for s in steps or ()]
    steps = _made.get(("own", hashlib.sha256(my_lesson.encode()).hexdigest()), decode)
    if not steps:
        raise ClassError("This class's lesson link is damaged: open the class's join link "
                         "again.")
    return steps


def reveal(tag: str, index: int, step: Any) -> Any:
    """The step's measured answer (:meth:`~nplk_lab.model.lessons.lessons.Step.reveal`)."""
    return _made.get(("reveal", tag, index), step.reveal)


def figure_bytes(tag: str, index: int, step: Any, revealed: bool) -> bytes | None:
    """The step's figure at a phone's height as gzipped Plotly JSON (None: no figure
    before the answer, when the figure is the answer)."""
    from nplk_lab.model.lessons.lesson_figures import step_figure

    def make() -> bytes | None:
        fig = step_figure(step, revealed, FIGURE_HEIGHT)
        return None if fig is None else gzip.compress(fig.to_json().encode(), 6)
    return _made.get(("figure", tag, index, revealed), make)


def plotly_gz() -> tuple[str, bytes]:
    """Plotly.js of the installed ``plotly`` package, gzipped once, and its version."""
    def make() -> tuple[str, bytes]:
        from nplk_lab.model.lessons.lesson_file import plotly_js
        text = plotly_js().encode()
        return hashlib.sha256(text).hexdigest()[:12], gzip.compress(text, 6)
    return _made.get("plotly.js", make)


# ---------------------------------------------------------------------------
# what a student sees: the class's part once per version, the student's own part
# ---------------------------------------------------------------------------

def _figure_url(code: str, index: int, revealed: bool, my_lesson: str) -> str:
    q = {"class": code, "step": index, "revealed": int(revealed),
         **({"my_lesson": my_lesson} if my_lesson else {})}
    return f"{API}/figure?{urlencode(q)}"


def class_view(store: Any, state: ClassState, my_lesson: str) -> dict[str, Any]:
    """What every student of the class sees at ``state`` (no one's own vote)."""
    steps = lesson_steps(state.lesson, my_lesson)
    index = min(state.step, len(steps) - 1)
    step = steps[index]
    ask = bool(step.question)
    phase = state.phase if ask else REVEALED
    revealed = phase == REVEALED
    out: dict[str, Any] = {
        "code": state.code, "shown_code": format_code(state.code),
        "version": state.version, "ended": state.ended, "step": index,
        "steps": len(steps), "sentence": plain(step.sentence), "question": step.question,
        "options": list(step.options), "phase": PHASE_NAMES[phase] if ask else "",
        "phase_words": PHASES[phase] if ask else "", "round": open_round(phase) if ask else None,
        "figure": None, "counts": None, "shift": None, "correct": None, "reveal": [],
        "explore": "/Lessons?" + urlencode({
            "class": state.code, "step": index + 1,
            **({"my_lesson": my_lesson} if my_lesson else {"lesson": state.lesson[1:]})}),
    }
    # the figure: the fitted one once revealed (a step without a question: at once)
    if figure_bytes(state.lesson, index, step, revealed) is not None:
        out["figure"] = _figure_url(state.code, index, revealed, my_lesson)
    if not ask:
        return out
    if not revealed:      # the reveal's fit starts now, not when the teacher reveals
        threading.Thread(target=_ahead, args=(state.lesson, index, step), daemon=True,
                         name="nplk-class-reveal-ahead").start()
    if phase == SPLIT:
        c = store.counts(state.code, index, 1)
        out["counts"] = {"answered": c.answered,
                         "by": [c.by_choice.get(i, 0) for i in range(len(step.options))]}
    if phase in (SHIFT, REVEALED):
        r = reveal(state.lesson, index, step) if revealed else None
        correct = None
        if revealed:
            correct = state.correct if state.correct is not None else int(r.answer)
            out["correct"] = correct
            out["reveal"] = [plain(p) for p in r.text.split("\n\n") if p.strip()]
        sh = shift_of(store.pairs(state.code, index), correct)
        if sh.voted_second:
            n = len(step.options)
            out["shift"] = {"first": [sh.first.get(i, 0) for i in range(n)],
                            "second": [sh.second.get(i, 0) for i in range(n)]}
    return out


def _ahead(tag: str, index: int, step: Any) -> None:
    try:
        reveal(tag, index, step)
        figure_bytes(tag, index, step, True)
    except Exception:  # noqa: BLE001 - made again (and its error shown) when asked
        pass


def verdict(options: Sequence[str], mine: Vote | None, right: int | None) -> dict[str, str]:
    """Whether the answer the student holds at the reveal is right, in the Lessons
    page's words."""
    held = None if mine is None else mine.held
    if right is None:
        return {}
    if held is None:
        return {"kind": "none", "text": "You did not vote on this one."}
    if right < 0:
        return {"kind": "none", "text": "The numbers here fit none of the options exactly."}
    if held == right:
        changed = mine.first is not None and mine.second is not None and \
            mine.first != mine.second
        return {"kind": "right",
                "text": "Right: you changed to the right answer." if changed else "Right."}
    return {"kind": "wrong", "text": f"Not quite: the numbers say “{options[right]}”."}


def _mine(v: Vote | None) -> dict[str, Any] | None:
    return None if v is None else {"first": v.first, "second": v.second, "held": v.held,
                                   "first_sure": v.first_sure, "second_sure": v.second_sure}


def _json(value: Any) -> bytes:
    """JSON as the routes send it (Starlette's JSONResponse's encoding)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")


class Views:
    """The class's part of the answer, made once per class, version and lesson, with
    its JSON (without the closing brace: a student's own part is added to it)."""

    def __init__(self) -> None:
        self._once = Once(VIEWS_KEPT)

    def get(self, store: Any, state: ClassState,
            my_lesson: str) -> tuple[dict[str, Any], bytes]:
        key = (state.code, state.version, state.count_version if state.phase == SPLIT
               else -1, state.lesson, hashlib.sha256(my_lesson.encode()).hexdigest())

        def make() -> tuple[dict[str, Any], bytes]:
            view = class_view(store, state, my_lesson)
            return view, _json(view)[:-1]
        return self._once.get(key, make)


_views = Views()


class Students:
    """Seats this process has seen as a class's students, with their handles: the store
    never removes a student nor renames one, so a poll from a known seat needs no read
    of who it is (keyed by the class's code and start, so a class whose code came again
    is another)."""

    def __init__(self, keep: int = 20_000) -> None:
        self._lock = threading.Lock()
        self._known: OrderedDict[tuple[str, float, str], str] = OrderedDict()
        self._keep = keep

    def get(self, state: ClassState, seat: Seat) -> str | None:
        with self._lock:
            return self._known.get((state.code, state.started_at, seat.secret))

    def put(self, state: ClassState, seat: Seat, handle: str) -> None:
        with self._lock:
            self._known[(state.code, state.started_at, seat.secret)] = handle
            while len(self._known) > self._keep:
                self._known.popitem(last=False)


_students = Students()
OWN_KEYS = ("role", "handle", "mine", "verdict")   # a student's own part of the state


def _student_parts(store: Any, code: str, seat: Seat | None, my_lesson: str, client: str,
                   recent: ClassState | None) -> tuple[dict[str, Any], Any]:
    """(this browser's own part, the class's (view, JSON) or None for a non-student).
    ``recent``: the class's state as the watcher read it a moment ago (None: read it);
    with a seat known as a student it is all the store is asked, besides the votes."""
    handle = None
    if recent is not None and seat is not None:
        handle = _students.get(recent, seat)
    if handle is not None:
        state, role = recent, "student"
    else:
        entry = store.enter(code, seat or Seat(new_seat()), client=client)
        state, role, handle = entry.state, entry.role, entry.handle
        if role == "student" and seat is not None:
            _students.put(state, seat, handle)
    base = {"code": state.code, "shown_code": format_code(state.code),
            "version": state.version, "role": role, "handle": handle,
            "ended": state.ended}
    if role != "student":
        return base, None
    view, encoded = _views.get(store, state, my_lesson)
    mine = store.vote_of(state.code, seat, view["step"]) if view["question"] else None
    own = {"role": role, "handle": handle, "mine": _mine(mine),
           "verdict": verdict(view["options"], mine, view["correct"])}
    return own, (view, encoded)


def student_body(store: Any, code: str, seat: Seat | None, my_lesson: str,
                 client: str = "", recent: ClassState | None = None) -> bytes:
    """What this browser sees of the class ``code``, as the JSON the route sends: the
    class's part encoded once per version, the student's own part added (the two share
    no key); ClassError when the class is not there (a wrong code counts as one for
    ``client``)."""
    own, view = _student_parts(store, code, seat, my_lesson, client, recent)
    if view is None:
        return _json(own)
    return view[1] + b"," + _json(own)[1:]


# ---------------------------------------------------------------------------
# the long poll: one watcher per process
# ---------------------------------------------------------------------------

class Watcher:
    """Reads the state of every class someone waits on, every WATCH_S, in one task,
    and wakes that class's waiters when its version moved. ``read`` gives the class's
    :class:`ClassState` (or only its version); :meth:`recent` hands a state read a
    moment ago to the waiters it woke, so their answers need not read it again."""

    def __init__(self, read: Callable[[str], ClassState | int]) -> None:
        self._read = read
        self._seen: dict[str, int] = {}
        self._states: dict[str, tuple[float, ClassState]] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._waiting: dict[str, int] = {}
        self._task: asyncio.Task | None = None

    async def wait(self, code: str, since: int, timeout: float) -> None:
        """Return once the class's version is not ``since`` (or after ``timeout``). A
        version read here before ``since`` is this process being behind the browser
        (another process answered it), not news: it waits, and the watcher reads again."""
        seen = self._seen.get(code, since)
        if seen > since or seen < 0:          # newer, or the class is gone
            return
        self._waiting[code] = self._waiting.get(code, 0) + 1
        event = self._events.setdefault(code, asyncio.Event())
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._watch())
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            self._waiting[code] -= 1
            if not self._waiting[code]:
                del self._waiting[code]

    async def _watch(self) -> None:
        from starlette.concurrency import run_in_threadpool
        while self._waiting:
            for code in list(self._waiting):
                try:
                    got = await run_in_threadpool(self._read, code)
                except ClassError:
                    got = -1
                v = got if isinstance(got, int) else got.version
                if not isinstance(got, int):
                    self._states[code] = (time.monotonic(), got)
                if self._seen.get(code) != v:
                    self._seen[code] = v
                    self._events.pop(code, asyncio.Event()).set()
            await asyncio.sleep(WATCH_S)

    def recent(self, code: str) -> ClassState | None:
        """The class's state as read within the last WATCH_S (None: none that fresh)."""
        got = self._states.get(code)
        if got is None or time.monotonic() - got[0] > WATCH_S:
            return None
        return got[1]


def _store() -> Any:
    from . import class_room
    return class_room.store()


_watcher = Watcher(lambda code: _store().state(code))


# ---------------------------------------------------------------------------
# the routes
# ---------------------------------------------------------------------------

def _error(exc: Exception) -> Any:
    from starlette.responses import JSONResponse
    status = (429 if isinstance(exc, TooMany) else 404 if isinstance(exc, UnknownClass)
              else 410 if isinstance(exc, ClassOver) else 409)
    return JSONResponse({"error": str(exc)}, status, headers={"Cache-Control": "no-store"})


def _client(request: Any) -> str:
    return client_address(request.headers, request.client.host if request.client else "")


def _my_lesson(request: Any) -> str:
    return request.query_params.get("my_lesson", "")[:MAX_LESSON_CHARS + 1]


async def page(request: Any) -> Any:
    """The page (the same for every class: its script reads the address)."""
    from starlette.responses import HTMLResponse
    version, _ = plotly_gz()
    html = _browser_file("hall.html").replace("{plotly}", version)
    out = HTMLResponse(html, headers={"Cache-Control": "no-cache",
                                      "Referrer-Policy": "same-origin"})
    if seat_in(request.cookies) is None:
        out.headers.append("set-cookie", seat_cookie(new_seat(),
                                                     secure=request.url.scheme == "https"))
    return out


async def asset(request: Any) -> Any:
    from starlette.responses import Response
    name = request.path_params["name"]
    if name == "plotly.js":
        version, body = plotly_gz()
        if "gzip" not in request.headers.get("accept-encoding", ""):
            body = gzip.decompress(body)
            enc = {}
        else:
            enc = {"Content-Encoding": "gzip"}
        cache = ("public, max-age=31536000, immutable"
                 if request.query_params.get("v") == version else "no-cache")
        return Response(body, media_type="text/javascript",
                        headers={"Cache-Control": cache, "Vary": "Accept-Encoding", **enc})
    if name not in FILES:
        return Response("Not found", 404, media_type="text/plain")
    return Response(_browser_file(name), media_type=FILES[name],
                    headers={"Cache-Control": "no-cache"})


async def state(request: Any) -> Any:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response
    code = normal_code(request.query_params.get("class", ""))[:32]
    try:
        since = int(request.query_params.get("since", ""))
    except ValueError:
        since = None
    recent = None
    if since is not None:
        await _watcher.wait(code, since, LONG_POLL_S)
        recent = _watcher.recent(code)
        if recent is not None and recent.version <= since:
            # this process's watcher is behind what the browser has seen (another
            # process answered it a moment ago): read the class afresh, never go back
            recent = None
    seat, my_lesson, client = seat_in(request.cookies), _my_lesson(request), _client(request)
    try:
        got = await run_in_threadpool(student_body, _store(), code, seat, my_lesson, client,
                                      recent)
    except ClassError as exc:
        return _error(exc)
    return Response(got, media_type="application/json",
                    headers={"Cache-Control": "no-store"})


async def _posted(request: Any) -> dict[str, Any] | Any:
    from starlette.responses import JSONResponse
    origin = request.headers.get("origin")
    if origin and origin.split("://", 1)[-1] != request.headers.get("host"):
        return JSONResponse({"error": "A class's page answers on its own server."}, 403)
    body = await request.body()
    try:
        sent = json.loads(body[:MAX_BODY_BYTES].decode("utf-8"))
        if not isinstance(sent, dict):
            raise TypeError
    except (ValueError, TypeError, UnicodeDecodeError):
        return JSONResponse({"error": "The page sent something this server does not "
                             "understand: reload it."}, 400)
    return sent


async def join(request: Any) -> Any:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse
    sent = await _posted(request)
    if not isinstance(sent, dict):
        return sent
    seat = seat_in(request.cookies)
    fresh = seat is None
    seat = seat or Seat(new_seat())
    name = sent.get("name")
    name = str(name)[:MAX_NAME_CHARS * 4] if isinstance(name, str) and name.strip() else None
    try:
        got = await run_in_threadpool(_store().join, str(sent.get("class", ""))[:32], name,
                                      seat=seat, client=_client(request))
    except ClassError as exc:
        return _error(exc)
    out = JSONResponse({"handle": got.handle, "again": got.again},
                       headers={"Cache-Control": "no-store"})
    if fresh:
        out.headers.append("set-cookie", seat_cookie(seat.secret,
                                                     secure=request.url.scheme == "https"))
    return out


async def vote(request: Any) -> Any:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse
    sent = await _posted(request)
    if not isinstance(sent, dict):
        return sent
    seat = seat_in(request.cookies)
    if seat is None:
        return JSONResponse({"error": "This browser has not joined the class: open the "
                             "class's link and join."}, 403)
    sure = sent.get("sure")
    try:
        got = await run_in_threadpool(_store().vote, str(sent.get("class", ""))[:32], seat,
                                      sent.get("step"), sent.get("choice"),
                                      sure if isinstance(sure, bool) else None)
    except ClassError as exc:
        return _error(exc)
    return JSONResponse({"mine": _mine(got)}, headers={"Cache-Control": "no-store"})


async def figure(request: Any) -> Any:
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import Response
    q = request.query_params
    try:
        index, revealed = int(q.get("step", "")), q.get("revealed") == "1"
    except ValueError:
        return _error(ClassError("A figure is asked by its step."))
    my_lesson = _my_lesson(request)

    def make() -> bytes | None:
        s = _store().state(q.get("class", "")[:32])
        steps = lesson_steps(s.lesson, my_lesson)
        if not 0 <= index < len(steps):
            raise ClassError("This lesson has no such step.")
        step = steps[index]
        if revealed and step.question and index not in s.revealed_steps:
            raise ClassError("This figure shows the answer: it opens at the reveal.")
        return figure_bytes(s.lesson, index, step, revealed)
    try:
        body = await run_in_threadpool(make)
    except ClassError as exc:
        return _error(exc)
    if body is None:
        return Response(status_code=204)
    headers = {"Cache-Control": "private, max-age=3600", "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
    else:
        body = gzip.decompress(body)
    return Response(body, media_type="application/json", headers=headers)


def routes() -> list[Any]:
    """The light page's routes (``class_web.routes`` hands them to ``st.App``)."""
    from starlette.routing import Route
    return [Route(HALL_PATH, page, methods=["GET"]),
            Route(API + "/state", state, methods=["GET"]),
            Route(API + "/join", join, methods=["POST"]),
            Route(API + "/vote", vote, methods=["POST"]),
            Route(API + "/figure", figure, methods=["GET"]),
            Route(HALL_PATH + "/{name}", asset, methods=["GET"])]
