"""A Streamlit client at the protocol level: what a browser tab sends and receives,
without the browser.

One :class:`Tab` is one browser tab: a websocket to ``/_stcore/stream`` carrying
``streamlit.proto`` messages. It asks for a run the way the frontend does (a
``BackMsg.rerun_script`` with the query string, the page and the widgets' states),
reads the ``ForwardMsg`` stream (``new_session`` at the start of a run, ``delta``
elements, ``page_info_changed`` with the URL the page wrote, ``script_finished``), keeps
the widgets it has seen by their user key, answers ``ref_hash`` messages from its own
cache of large elements (and reports that cache with every run, as the frontend does),
and uploads files through ``/_stcore/upload_file`` like the file uploader.

Like a browser tab, a :class:`Tab` first loads the page over HTTP and keeps the cookies
every answer sets (:class:`Cookies`), sending them back with every later request: the
websocket upgrade, the upload's requests. Behind a proxy with cookie affinity
(``nplk-lab classroom``: HAProxy sets ``NPLK_WORKER`` on the first answer) that keeps
the tab's session, and the upload that must reach it, on one Streamlit process.

Used by ``benchmarks/bench_classroom.py`` (a class of simulated students) and by the
tests that need a real server session (a reconnect after a restart)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState


class Cookies:
    """A tab's cookie jar for one host: ``name -> value`` from every ``Set-Cookie`` its
    answers carried, sent back as one ``Cookie`` header. (No paths, expiry or deletion:
    the cookies here are HAProxy's affinity cookie and Streamlit's XSRF cookie, both for
    ``/`` and the session.)"""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values: dict[str, str] = dict(values or {})

    def take(self, set_cookies: list[str] | None) -> None:
        """Keep the cookies of an answer's ``Set-Cookie`` header lines."""
        for line in set_cookies or []:
            name, sep, value = line.split(";", 1)[0].strip().partition("=")
            if sep and name:
                self.values[name] = value

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def header(self) -> dict[str, str]:
        """``{"Cookie": ...}`` for a request, or nothing when the jar is empty."""
        if not self.values:
            return {}
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.values.items())}


FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
EARLY = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")


@dataclass
class Widget:
    key: str             # the user key ("w_tau")
    id: str              # Streamlit's element id (carries the key)
    kind: str            # "slider", "selectbox", "radio", "checkbox", "file_uploader"
    options: list[str]   # formatted options (select slider, select box, radio)
    select: bool         # a select slider (string array of formatted options)


@dataclass
class Run:
    """One script run as the tab saw it."""

    sent: float                        # when the request left (perf_counter)
    started: float | None = None       # its new_session arrived
    finished: float | None = None      # its script_finished arrived
    status: int | None = None
    figures: dict[str, float] = field(default_factory=dict)  # chart key -> arrival
    exceptions: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)           # st.error texts
    texts: list[str] = field(default_factory=list)            # alerts, markdown
    text_times: list[float] = field(default_factory=list)     # when each of texts arrived
    query: str | None = None           # the URL the page wrote
    bytes: int = 0                     # ForwardMsg bytes received in this run
    deltas: int = 0                    # delta messages (elements, blocks) in this run
    superseded: bool = False           # a newer request of the tab ran in its place
    interrupted: bool = False          # it started, then a newer request cut it short

    @property
    def done(self) -> bool:
        return self.finished is not None

    @property
    def figure(self) -> float | None:
        """Seconds from the request to the first chart of the run that showed it (its
        own, or the newer request's run that superseded it)."""
        if not self.figures:
            return None
        return min(self.figures.values()) - self.sent


def _user_key(element_id: str) -> str | None:
    # "$$ID-<hash>-<user key>" (streamlit.runtime.state.common)
    parts = element_id.split("-", 2)
    if len(parts) == 3 and parts[0] == "$$ID" and parts[2] != "None":
        return parts[2]
    return None


class Tab:
    """One browser tab on ``http://host:port`` (see the module docstring). ``cookies``
    (a name -> value dict) are there before the first request, as in a browser that has
    visited the site before (a teacher's tab pinned to one process); ``headers`` go with
    every request (what a client may write into its own, X-Forwarded-For say)."""

    def __init__(self, base: str, cookies: dict[str, str] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        self.base = base.rstrip("/")
        self.cookies = Cookies(cookies)
        self.headers = dict(headers or {})       # sent with every request of the tab
        self.ws: Any = None
        self.session_id: str | None = None
        self.pages: dict[str, str] = {}          # url path name -> page script hash
        self.page_hash = ""
        self.page: str | None = None             # the url path name asked for
        self.query = ""
        self.widgets: dict[str, Widget] = {}
        self.states: dict[str, WidgetState] = {}  # user key -> the state we hold
        self.cache: dict[str, ForwardMsg] = {}
        self.runs: list[Run] = []
        self.current: Run | None = None
        self.changed = asyncio.Event()
        self.reader: asyncio.Task | None = None
        self.closed = False
        self.fragments: set[str] = set()          # ids of the fragments the page drew
        self.statuses: list[str] = []             # the lab's status line texts
        self._file_urls: dict[str, Any] = {}

    # -- connection -------------------------------------------------------------------
    async def connect(self) -> None:
        """Load the page (the tab's first HTTP request, whose answer may set cookies),
        then open the websocket with the tab's cookies."""
        def load() -> None:
            with self.http(self.base + "/") as r:
                r.read()
        await asyncio.get_running_loop().run_in_executor(None, load)
        url = self.base.replace("http", "ws", 1) + "/_stcore/stream"
        self.ws = await websockets.connect(url, subprotocols=["streamlit"],
                                           max_size=None, open_timeout=60,
                                           ping_interval=None,
                                           additional_headers={**self.headers,
                                                               **self.cookies.header()})
        self.cookies.take(self.ws.response.headers.get_all("Set-Cookie"))
        self.reader = asyncio.create_task(self._read())

    def http(self, url: str, data: bytes | None = None, method: str | None = None,
             headers: dict[str, str] | None = None, timeout: float = 60) -> Any:
        """One HTTP request with the tab's cookies, keeping those the answer sets
        (blocking: call it in an executor). Returns the open response."""
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={**self.headers, **(headers or {}),
                                              **self.cookies.header()})
        resp = urllib.request.urlopen(req, timeout=timeout)
        self.cookies.take(resp.headers.get_all("Set-Cookie"))
        return resp

    async def close(self) -> None:
        self.closed = True
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            try:
                await self.reader
            except (asyncio.CancelledError, Exception):
                pass

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                self._handle(msg, len(raw))
                self.changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.changed.set()

    def _handle(self, msg: ForwardMsg, size: int) -> None:
        now = time.perf_counter()
        kind = msg.WhichOneof("type")
        if kind == "ref_hash":
            msg = self.cache[msg.ref_hash]
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self.cache[msg.hash] = msg
        run = self.current
        if run is not None:
            run.bytes += size
            run.deltas += kind == "delta"
        if kind == "new_session":
            ns = msg.new_session
            if ns.HasField("initialize"):
                self.session_id = ns.initialize.session_id
            self.page_hash = ns.page_script_hash
            newest = self.runs[-1] if self.runs else None
            if newest is not None and newest.started is None:
                newest.started = now
                self.current = newest
        elif kind == "navigation":
            self.pages.update({p.url_pathname or p.page_name: p.page_script_hash
                               for p in msg.navigation.app_pages})
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
            if run is not None and run.finished is None:
                run.query = self.query
        elif kind == "script_finished":
            if run is not None and run.started is not None and run.finished is None:
                if msg.script_finished == EARLY:
                    run.interrupted = True
                else:
                    run.finished, run.status = now, msg.script_finished
                    run.query = self.query          # the URL as the run left it
                    for older in self.runs:
                        if older is run:
                            break
                        if older.finished is None:      # shown by this newer run
                            older.finished, older.status = now, run.status
                            older.superseded = True
                            older.figures = dict(run.figures)
                            older.query = run.query
                            older.exceptions += run.exceptions
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            if msg.delta.fragment_id:
                self.fragments.add(msg.delta.fragment_id)
            self._element(msg.delta.new_element, now, run)
        elif kind == "file_urls_response":
            r = msg.file_urls_response
            self._file_urls[r.response_id] = r

    def _element(self, el: Any, now: float, run: Run | None) -> None:
        kind = el.WhichOneof("type")
        if kind == "exception" and run is not None:
            run.exceptions.append(f"{el.exception.type}: {el.exception.message}")
        elif kind == "alert" and run is not None:
            run.texts.append(el.alert.body)
            run.text_times.append(now)
            if el.alert.format == 1:           # ERROR
                run.errors.append(el.alert.body)
        elif kind == "markdown" and run is not None and "Fitting" in el.markdown.body:
            self.statuses.append(el.markdown.body)
        elif kind == "bidi_component":
            b = el.bidi_component
            key = _user_key(b.id) or ""
            # a figure as JSON, or gzipped after a line of JSON (nplk_lab's live_chart)
            drawn = (b.json and '"figure": null' not in b.json[:4000]) or \
                (b.WhichOneof("data") == "bytes" and b"\n" in b.bytes)
            if run is not None and run.finished is None and drawn:
                run.figures.setdefault(key, now)
        elif kind == "plotly_chart" and run is not None and run.finished is None:
            run.figures.setdefault("plotly", now)
        elif kind in ("slider", "selectbox", "radio", "checkbox", "file_uploader",
                      "button"):
            w = getattr(el, kind)
            key = _user_key(w.id)
            if key:
                opts = list(getattr(w, "options", []) or [])
                self.widgets[key] = Widget(key, w.id, kind, opts,
                                           kind == "slider" and w.type == 2)

    # -- runs -------------------------------------------------------------------------
    async def rerun(self, page: str | None = None, query: str | None = None,
                    timeout: float = 600) -> Run:
        """Ask for a run (on ``page``, a url path name, when given) with the widget
        states this tab holds; return it when the run that showed it has finished."""
        run = await self.send(page, query)
        return await self.wait(run, timeout)

    async def send(self, page: str | None = None, query: str | None = None,
                   fragment: str | None = None) -> Run:
        """Send a run request (as the frontend does on a widget change, without waiting
        for an earlier run: the server cuts that one short). With ``fragment``, the run
        of that fragment alone, as the frontend's timer of ``st.fragment(run_every=…)``
        asks for it."""
        bm = BackMsg()
        cs = bm.rerun_script
        if fragment:
            cs.fragment_id = fragment
            cs.is_auto_rerun = True
        cs.query_string = self.query if query is None else query
        if query is not None:
            self.query = query
        if page is not None and page != self.page:
            self.page = page
            self.widgets = {}           # another page: its widgets arrive with its run
            self.states = {}
        if self.page is not None:
            cs.page_name = self.page
            cs.page_script_hash = self.pages.get(self.page, "")
        for key, st in self.states.items():
            w = self.widgets.get(key)
            if w is None:
                continue
            s = cs.widget_states.widgets.add()
            s.CopyFrom(st)
            if w is not None:
                s.id = w.id
        cs.cached_message_hashes.extend(self.cache.keys())
        run = Run(sent=time.perf_counter())
        self.runs.append(run)
        await self.ws.send(bm.SerializeToString())
        return run

    async def wait(self, run: Run, timeout: float = 600) -> Run:
        deadline = time.perf_counter() + timeout
        while run.finished is None:
            if self.closed:
                raise ConnectionError("the server closed the connection")
            self.changed.clear()
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no end of run within {timeout:.0f} s")
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=min(left, 5))
            except asyncio.TimeoutError:
                pass
        return run

    def set(self, key: str, value: Any) -> None:
        """Hold a new value for the widget ``key``: an option's formatted text or index
        for choices, a number for sliders, a bool for toggles and for a button's press
        (drop it after the run that took it, as the browser does)."""
        w = self.widgets[key]
        s = WidgetState(id=w.id)
        if w.kind == "slider" and w.select:
            s.string_array_value.data.append(
                w.options[value] if isinstance(value, int) else str(value))
        elif w.kind == "slider":
            s.double_array_value.data.append(float(value))
        elif w.kind in ("selectbox", "radio"):
            s.string_value = w.options[value] if isinstance(value, int) else str(value)
        elif w.kind == "checkbox":
            s.bool_value = bool(value)
        elif w.kind == "button":        # a press: held for one run (see press)
            s.trigger_value = bool(value)
        else:
            raise ValueError(f"cannot set a {w.kind}")
        self.states[key] = s

    def drop(self, key: str) -> None:
        self.states.pop(key, None)

    async def upload(self, key: str, name: str, data: bytes) -> None:
        """Upload ``data`` as the file uploader ``key`` does: ask for an upload URL,
        PUT the file there, then hold the uploader's state (sent with the next run)."""
        w = self.widgets[key]
        bm = BackMsg()
        rid = uuid.uuid4().hex
        bm.file_urls_request.request_id = rid
        bm.file_urls_request.file_names.append(name)
        bm.file_urls_request.session_id = self.session_id or ""
        await self.ws.send(bm.SerializeToString())
        t_end = time.perf_counter() + 60
        while rid not in self._file_urls:
            if time.perf_counter() > t_end or self.closed:
                raise TimeoutError("no upload URL")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=1)
            except asyncio.TimeoutError:
                pass
        urls = self._file_urls.pop(rid).file_urls[0]
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{name}\"\r\nContent-Type: text/csv\r\n\r\n").encode() + \
            data + f"\r\n--{boundary}--\r\n".encode()
        target = urllib.parse.urljoin(self.base + "/", urls.upload_url.lstrip("/"))

        def put() -> None:
            # the page's XSRF cookie, sent back as the header (what the frontend does);
            # both requests carry the tab's cookies, so a proxy sends them to its session
            with self.http(self.base + "/_stcore/health") as r:
                r.read()
            xsrf = self.cookies.get("_streamlit_xsrf") or ""
            with self.http(target, data=body, method="PUT", headers={
                    "Content-Type": f"multipart/form-data; boundary={boundary}",
                    "X-Xsrftoken": xsrf}) as r:
                r.read()
        await asyncio.get_running_loop().run_in_executor(None, put)
        s = WidgetState(id=w.id)
        info = s.file_uploader_state_value.uploaded_file_info.add()
        info.name, info.size, info.file_id = name, len(data), urls.file_id
        info.file_urls.CopyFrom(urls)
        self.states[key] = s


def number(label: str) -> float:
    """A slider stop's label as a number: the lab writes them as people do ("0.003",
    "1.5 × 10⁻⁴", "10⁵", "−2"; :func:`nplk_lab.figures.from_people` reads them back);
    ValueError for a label that is not a number."""
    from nplk_lab.figures.common import from_people
    return from_people(label)


def query_value(query: str, name: str) -> str | None:
    """The value of ``name`` in a query string the page wrote."""
    vals = urllib.parse.parse_qs(query).get(name)
    return vals[-1] if vals else None


def figure_of(json_text: str) -> dict | None:
    data = json.loads(json_text)
    fig = data.get("figure")
    return json.loads(fig) if isinstance(fig, str) else fig
