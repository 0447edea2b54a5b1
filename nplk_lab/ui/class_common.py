"""What the class's screens share (:mod:`.class_session` enters a class and draws its
bar, :mod:`.class_teacher` the teacher's controls, :mod:`.class_student` a student's
votes): the class as this page sees it, the browser's seat, the client's address, the
address phones can open, the measured answer of a step, and the poll that reruns a page
when the class moved."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

from nplk_lab.model.lessons import lessons as L
from nplk_lab.serve import class_room, class_web
from nplk_lab.serve.class_hall import lesson_tag  # noqa: F401  (the class screens' name)
from nplk_lab.serve.class_store import ClassError, ClassState, Seat
from nplk_lab.serve.class_store_rules import new_seat

from .keys import CLASS_ERROR, CLASS_SEAT, CLASS_TOKENS
from .present_mode import base_url
from .sharing import cached
from .state import params, safe_text

POLL_S = 1.0                       # every class screen reads the store once a second


@dataclass
class Klass:
    """The class this page is in, and who this browser is in it."""

    code: str
    state: ClassState
    seat: Seat
    role: str                    # "teacher" (a teacher device) or "student"
    handle: str = ""
    following: bool = True       # a student whose step follows the class's

    @property
    def teacher(self) -> bool:
        return self.role == "teacher"

    @property
    def token(self) -> str:
        """The teacher token, where this session knows it (it started the class, or
        made a new teacher link); "" otherwise."""
        return st.session_state.get(CLASS_TOKENS, {}).get(self.code, "")


def keep_token(code: str, token: str) -> None:
    st.session_state.setdefault(CLASS_TOKENS, {})[code] = token


def store() -> Any:
    return class_room.store()


def fail(exc: Exception) -> None:
    st.session_state[CLASS_ERROR] = str(exc)


def show_error() -> None:
    err = st.session_state.pop(CLASS_ERROR, None)
    if err:
        st.error(safe_text(err))


def _cookies() -> Mapping[str, str]:
    try:
        return st.context.cookies
    except (AttributeError, RuntimeError):
        return {}


def browser_seat() -> tuple[Seat, bool]:
    """This browser's seat (:mod:`nplk_lab.serve.class_web`), and whether the browser
    keeps it: without the lab's routes (``streamlit run app.py``) or with cookies off,
    the seat is this session's only, and a reload makes a new one."""
    seat = class_web.seat_in(_cookies())
    if seat is not None:
        return seat, True
    ss = st.session_state
    if CLASS_SEAT not in ss:
        ss[CLASS_SEAT] = new_seat()
    return Seat(ss[CLASS_SEAT]), False


def client() -> str:
    """The client's address as the proxy saw it (:func:`.class_web.client_address`)."""
    try:
        return class_web.client_address(st.context.headers, st.context.ip_address)
    except (AttributeError, RuntimeError):
        return ""


def _loopback(host: str | None) -> bool:
    if not host or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def public_base() -> tuple[str, str]:
    """The address of this page that phones open (``scheme://host:port/path``), and a
    note for the teacher ("" if none). A teacher on ``localhost`` gets the proxy's
    address (``nplk-lab classroom`` tells it), or this machine's address on the network
    when the lab listens there; else a warning that phones cannot reach the lab."""
    own = base_url()
    parts = urlsplit(own)
    if not _loopback(parts.hostname):
        return own, ""
    public = os.environ.get(class_web.PUBLIC_URL_ENV, "")
    if public and not _loopback(urlsplit(public).hostname):
        return public.rstrip("/") + parts.path, (
            "Phones cannot open localhost: the join link uses this computer's address on "
            f"the network, {urlsplit(public).hostname}.")
    listens = str(st.get_option("server.address") or "")
    lan = class_web.lan_address()
    if listens in ("0.0.0.0", "::") and lan:
        return f"{parts.scheme}://{lan}:{parts.port or 80}{parts.path}", (
            "Phones cannot open localhost: the join link uses this computer's address on "
            f"the network, {lan}.")
    return own, ("Phones cannot open this link: the lab is open on this computer only. "
                 "Start it with `nplk-lab classroom` (or `--server.address 0.0.0.0`) "
                 "to let a class in.")


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


def step_key(step: L.Step) -> tuple:
    """What a lesson step's figure and measured answer depend on: the shared caches'
    key for them."""
    return (step.page, step.figure, tuple(sorted((k, repr(v)) for k, v in
                                                 step.params.items())))


def reveal_of(step: L.Step) -> Any:
    """The step's measured answer, measured once for every session (a student who
    answers alone, the Lessons page's end screen and a class share it)."""
    return cached("figs", ("lesson-reveal",) + step_key(step) + (step.question,),
                  step.reveal)


def class_steps() -> Sequence[L.Step]:
    """The steps of the lesson this page plays."""
    from nplk_lab.model.lessons import teacher_lessons as T
    P = params()
    if P.get("my_lesson"):
        steps, _ = cached("data", ("teacher-lesson", P["my_lesson"]),
                          lambda: T.decode_teacher_lesson(P["my_lesson"]))
        return [s.as_step() for s in steps or ()]
    return L.lesson(int(P["lesson"])).steps


@st.fragment(run_every=POLL_S)
def watch(code: str, version: int) -> None:
    """Rerun the page once the class changed (a move, a step, the end): on a student's
    screen, and on every teacher device (a phone can lead while the laptop presents)."""
    try:
        now = store().state(code).version
    except ClassError:
        now = -1
    if now != version:
        st.rerun(scope="app")
