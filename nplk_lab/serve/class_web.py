"""The lab's own HTTP beside Streamlit's pages (``server.py`` serves both through
``st.App``): a browser's seat in a class, and the teacher link.

* **The seat.** Every page a browser loads without the lab's seat cookie gets one
  (:class:`SeatCookie`, a middleware): ``nplk_seat``, a random secret
  (:func:`~.class_store_rules.new_seat`), ``HttpOnly`` (no script reads it), ``Path=/``,
  ``SameSite=Lax``, kept 31 days (the longest a class's results are kept). The page's
  session reads it from the websocket's handshake (``st.context.cookies``): one browser
  is one seat, so its tabs, its reloads and a reconnection to another worker are the
  same student, or the same teacher device. The class store keeps the secret's hash
  only. Lax, not Strict: a teacher who follows a link to the lab from another site
  (a course page, a mail) sends no Strict cookie with that first request, and would get
  a new seat, losing the class; Lax cookies ride along top-level navigations only, never
  a request another site's page makes (a form post, a websocket), and nothing here
  changes on a navigation.
* **The teacher link** is ``/_nplk/teach#class=CODE&key=TOKEN`` (:func:`teacher_link`):
  the token travels in the fragment, which no server, proxy or log ever sees. The page
  (``teach.html``, its script ``teach.js``) takes the token out of the address bar and
  history at once
  (``history.replaceState``), posts it here, where the class store makes this browser's
  seat a teacher device of the class (:meth:`~.class_store.ClassStore.claim_teacher`),
  and replaces itself with the class's page (``location.replace``): Back never brings
  the token back. A wrong code counts as a wrong join code for the address, as on the
  page.
* **Who the client is** (:func:`client_address`): behind ``nplk-lab classroom``'s HAProxy,
  the address HAProxy saw, from the header it sets itself (``X-NPLK-Client``, replacing
  whatever the client sent; the command tells the workers its name through
  ``NPLK_LAB_CLIENT_HEADER``); else the connection's own peer. Never
  ``X-Forwarded-For``, which a client writes what it likes into.

The module imports the standard library only (Starlette where a route runs): the
``nplk-lab`` command reads its names.

A later page served by routes (a light student page) joins these: :func:`routes` and
:func:`middleware` are what ``server.py`` hands ``st.App``; the store's API takes the
same seat and the same teacher credential.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Mapping
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from .class_store_rules import (
    ClassError,
    Seat,
    TooMany,
    WrongToken,
    new_seat,
    normal_code,
    seat_secret,
)

SEAT_COOKIE = "nplk_seat"
PUBLIC_URL_ENV = "NPLK_LAB_PUBLIC_URL"   # `nplk-lab classroom`: the proxy's address
SEAT_MAX_AGE_S = 31 * 86400
CLIENT_HEADER_ENV = "NPLK_LAB_CLIENT_HEADER"
PROXY_CLIENT_HEADER = "X-NPLK-Client"
TEACH_PATH = "/_nplk/teach"
MAX_BODY_BYTES = 4096
# what is not a page: Streamlit's own routes, its files, and the lab's routes
_NOT_PAGES = ("/_stcore/", "/static/", "/media/", "/component/", "/app/static/", "/_nplk/")

_served = False


def serving() -> bool:
    """Whether this process serves the lab's routes (``server.py``): else the teacher
    link goes through the page, and a seat lives in the session only."""
    return _served


def lan_address() -> str:
    """The address other machines of the network reach this one by ("" if none: no
    network). Asking the system which address it would send from sends no packet."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            host = s.getsockname()[0]
    except OSError:
        return ""
    return "" if host.startswith("127.") or host == "0.0.0.0" else host


def client_address(headers: Mapping[str, str] | None, peer: str | None) -> str:
    """The client's address as the proxy saw it (see the module doc), "" if unknown."""
    name = os.environ.get(CLIENT_HEADER_ENV, "")
    if name and headers is not None:
        got = {k.lower(): v for k, v in headers.items()}.get(name.lower(), "")
        if got.strip():
            return got.strip()[:64]
    return (peer or "").strip()[:64]


def seat_in(cookies: Mapping[str, str] | None) -> Seat | None:
    """The browser's seat from its cookies (None: none, or not one the lab made)."""
    try:
        return Seat(seat_secret((cookies or {}).get(SEAT_COOKIE)))
    except ClassError:
        return None


def seat_cookie(secret: str, *, secure: bool = False) -> str:
    """The ``Set-Cookie`` value that gives a browser its seat."""
    return (f"{SEAT_COOKIE}={secret}; Path=/; Max-Age={SEAT_MAX_AGE_S}; HttpOnly; "
            "SameSite=Lax" + ("; Secure" if secure else ""))


def teacher_link(base: str, code: str, token: str, **extra: str) -> str:
    """The class's teacher link on the server at ``base`` (``scheme://host:port``):
    the token in the fragment; ``extra`` (``present``, ``my_lesson``) goes with it to
    the class's page."""
    frag = urlencode({"class": code, "key": token, **{k: v for k, v in extra.items() if v}})
    return f"{base.rstrip('/')}{TEACH_PATH}#{frag}"


def _secure(scope: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    return scope.get("scheme") == "https" or \
        headers.get("x-forwarded-proto", "").lower() == "https"


class SeatCookie:
    """ASGI middleware: a page answered to a browser without a seat sets one."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") not in ("GET", "HEAD") or \
                str(scope.get("path", "")).startswith(_NOT_PAGES):
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request

        request = Request(scope)
        if seat_in(request.cookies) is not None:
            await self.app(scope, receive, send)
            return
        cookie = seat_cookie(new_seat(), secure=_secure(scope, request.headers)).encode()

        async def with_seat(message: Any) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200:
                message = {**message,
                           "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)
        await self.app(scope, receive, with_seat)


def _browser_file(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text("utf-8")


async def teach_script(request: Any) -> Any:   # noqa: ARG001 (a route's signature)
    """The teacher link page's script (teach.js)."""
    from starlette.responses import Response

    return Response(_browser_file("teach.js"), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache"})


async def teach(request: Any) -> Any:
    """GET: the teacher link's page; POST ``{"class", "key"}``: make this browser a
    teacher device of the class (a seat set here if it has none)."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import HTMLResponse, JSONResponse

    if request.method != "POST":
        return HTMLResponse(_browser_file("teach.html"),
                            headers={"Cache-Control": "no-store",
                                     "Referrer-Policy": "no-referrer"})
    origin = request.headers.get("origin")
    if origin and origin.split("://", 1)[-1] != request.headers.get("host"):
        return JSONResponse({"error": "A teacher link opens on its own server."}, 403)
    body = await request.body()
    try:
        sent = json.loads(body[:MAX_BODY_BYTES].decode("utf-8"))
        code, key = str(sent["class"])[:32], str(sent["key"])[:128]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return JSONResponse({"error": "This teacher link is damaged: copy it again."}, 400)
    seat = seat_in(request.cookies)
    fresh = seat is None
    if fresh:
        seat = Seat(new_seat())
    client = client_address(request.headers, request.client.host if request.client else "")
    from . import class_room

    def claim() -> str:
        store = class_room.store()
        store.enter(code, seat, client=client)       # a wrong code counts as one
        return store.claim_teacher(normal_code(code), key, seat).state.code
    try:
        joined = await run_in_threadpool(claim)
    except TooMany as e:
        return JSONResponse({"error": str(e)}, 429)
    except (ClassError, WrongToken):
        return JSONResponse({"error": "This teacher link does not open a class: the class "
                             "may have ended and been deleted, or its teacher made a new "
                             "link."}, 403)
    out = JSONResponse({"class": joined}, headers={"Cache-Control": "no-store"})
    if fresh:
        out.headers.append("set-cookie", seat_cookie(seat.secret,
                                                     secure=_secure(request.scope,
                                                                    request.headers)))
    return out


def routes() -> list[Any]:
    """The lab's routes for ``st.App`` (see the module doc)."""
    from starlette.routing import Route

    return [Route(TEACH_PATH, teach, methods=["GET", "POST"]),
            Route(TEACH_PATH + ".js", teach_script, methods=["GET"])]


def middleware() -> list[Any]:
    """The lab's middleware for ``st.App``: the seat cookie."""
    global _served
    from starlette.middleware import Middleware

    _served = True
    return [Middleware(SeatCookie)]
