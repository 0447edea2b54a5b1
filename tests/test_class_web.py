"""The lab's own HTTP beside Streamlit (nplk_lab/serve/class_web.py) and what the
``nplk-lab`` command sets up for a class, without a server: the seat cookie a page
answer gives a browser that has none (and never to one that has); the client's address
from the proxy's own header, never from X-Forwarded-For; the teacher link's token in the
fragment; the proxy's header; a store password on the command line warned about.
The routes through a real server: test_browser_class*.py."""

from __future__ import annotations

import asyncio

import pytest

from nplk_lab.serve import class_web, command
from nplk_lab.serve.class_store_rules import SEAT_CHARS, new_seat


def answer(path: str, cookie: str | None = None, method: str = "GET", status: int = 200,
           scheme: str = "http") -> list[bytes]:
    """The Set-Cookie headers the middleware adds to an answer of ``status``."""
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<html></html>"})

    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    headers = [(b"host", b"lab:8501")] + ([(b"cookie", cookie.encode())] if cookie else [])
    scope = {"type": "http", "method": method, "path": path, "headers": headers,
             "scheme": scheme, "query_string": b"", "server": ("lab", 8501)}
    asyncio.run(class_web.SeatCookie(app)(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    return [v for k, v in start["headers"] if k == b"set-cookie"]


def test_a_page_gives_a_browser_without_a_seat_one_and_never_another():
    (cookie,) = answer("/Lessons")
    text = cookie.decode()
    name, _, rest = text.partition("=")
    secret = rest.split(";")[0]
    assert name == class_web.SEAT_COOKIE
    assert SEAT_CHARS[0] <= len(secret) <= SEAT_CHARS[1]
    attrs = {a.strip().split("=")[0] for a in text.split(";")[1:]}
    assert {"Path", "Max-Age", "HttpOnly", "SameSite"} <= attrs and "Secure" not in attrs
    assert "SameSite=Lax" in text and f"Max-Age={class_web.SEAT_MAX_AGE_S}" in text
    assert "Secure" in answer("/", scheme="https")[0].decode()
    assert answer("/Lessons") != [cookie]                       # a new secret each
    # a browser with a seat keeps it; other answers and paths set nothing
    assert answer("/Lessons", cookie=f"{class_web.SEAT_COOKIE}={new_seat()}; x=1") == []
    for path in ("/_stcore/health", "/static/js/index.js", "/media/x.png",
                 "/component/c/x.js", "/_nplk/teach"):
        assert answer(path) == [], path
    assert answer("/Lessons", method="POST") == []
    assert answer("/Lessons", status=404) == []
    # a cookie that is not a seat the lab made is replaced
    assert len(answer("/", cookie=f"{class_web.SEAT_COOKIE}=short")) == 1


def test_the_client_is_the_address_the_proxy_saw(monkeypatch):
    spoofed = {"X-Forwarded-For": "6.6.6.6", "x-nplk-client": "192.0.2.7"}
    monkeypatch.delenv(class_web.CLIENT_HEADER_ENV, raising=False)
    # no proxy of ours in front: the connection's own peer, whatever the headers say
    assert class_web.client_address(spoofed, "198.51.100.1") == "198.51.100.1"
    assert class_web.client_address({}, None) == ""
    # behind nplk-lab classroom's HAProxy: the header HAProxy sets (any case)
    monkeypatch.setenv(class_web.CLIENT_HEADER_ENV, class_web.PROXY_CLIENT_HEADER)
    assert class_web.client_address(spoofed, "127.0.0.1") == "192.0.2.7"
    assert class_web.client_address({"X-Forwarded-For": "6.6.6.6"}, "127.0.0.1") == \
        "127.0.0.1"
    assert len(class_web.client_address({"X-NPLK-Client": "x" * 500}, "")) == 64


def test_the_proxy_sets_its_own_header_and_the_workers_read_it():
    cfg = command.haproxy_config("0.0.0.0", 8600, [8601, 8602])
    assert f"http-request set-header {class_web.PROXY_CLIENT_HEADER} %[src]" in cfg
    assert cfg.index("set-header") < cfg.index("default_backend")    # in the frontend


def test_seats_come_from_the_cookie_only():
    s = new_seat()
    assert class_web.seat_in({class_web.SEAT_COOKIE: s}).secret == s
    for cookies in ({}, None, {class_web.SEAT_COOKIE: "x"}, {"other": s},
                    {class_web.SEAT_COOKIE: s + "!"}):
        assert class_web.seat_in(cookies) is None


def test_the_teacher_link_carries_its_token_in_the_fragment():
    link = class_web.teacher_link("http://192.0.2.5:8501/", "ABCDEFGH", "t0k-en_",
                                  present="1", my_lesson="")
    assert link == "http://192.0.2.5:8501/_nplk/teach#class=ABCDEFGH&key=t0k-en_&present=1"
    assert "?" not in link


@pytest.mark.parametrize("url, warned", [
    ("postgresql://lab:s3cret@db/classes", True),
    ("postgres://lab:s3cret@db:5432/classes?sslmode=require", True),
    ("postgresql://lab@db/classes", False),
    ("postgresql:///classes", False),
    ("/var/lib/nplk/classes", False),
    ("postgresql://[::1", False),       # not a URL urllib can read: nothing to warn of
])
def test_a_store_password_on_the_command_line_is_warned_about(url, warned):
    said = command.store_password_warning(url)
    assert bool(said) == warned
    if warned:
        assert "s3cret" not in said
        for where in ("ps", "~/.pgpass", "PGPASSFILE", "PGPASSWORD", "NPLK_LAB_CLASS_STORE"):
            assert where in said


class _Exec(Exception):
    pass


def test_a_classroom_warns_of_a_store_password_and_tells_its_workers_the_public_address(
        monkeypatch, capsys):
    """One process (no HAProxy): the command's environment for the app, and its words."""
    calls = []

    def fake_execve(path, args, env):
        calls.append(env)
        raise _Exec

    monkeypatch.setattr(command, "find_proxy", lambda explicit=None: None)
    monkeypatch.setattr(command.os, "execve", fake_execve)
    monkeypatch.setattr(command, "lan_address", lambda: "192.0.2.44")
    monkeypatch.delenv(class_web.CLIENT_HEADER_ENV, raising=False)
    with pytest.raises(_Exec):
        command.main(["classroom", "--port", "8612",
                      "--store", "postgresql://lab:s3cret@db/classes"])
    err = capsys.readouterr().err
    assert "the password in --store is visible" in err and "s3cret" not in err
    (env,) = calls
    assert env[class_web.PUBLIC_URL_ENV] == "http://192.0.2.44:8612"
    assert env["NPLK_LAB_CLASS_STORE"] == "postgresql://lab:s3cret@db/classes"
    # with one process there is no proxy header to trust: the peer's own address counts
    assert class_web.CLIENT_HEADER_ENV not in env
