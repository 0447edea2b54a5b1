"""Several hosts serve one class: three ``nplk-lab classroom`` commands on their own
ports ("hosts" A, B, C, one worker each), one PostgreSQL class store, one
``nplk-lab front`` (HAProxy) in front of them, light-page students
(``tools/hall_client.py``) through it and through the hosts directly.

A vote through host A is the student's vote on host B (same seat, same handle, the
split counted on every host); host A killed with SIGKILL, its whole process tree at
once: the front's students (the light page is not pinned to a host: its requests go one
by one) follow the teacher's next move and vote again through the others, still the same
students, and every vote is stored.

The configuration's own tests (fast) need HAProxy only for ``haproxy -c``. Every wait
is on a condition; its timeout only bounds a hang. The hosts' test skips without
HAProxy or PostgreSQL, saying why.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from _ports import free_port, free_port_block

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from deployment import BehindProxy, Front  # noqa: E402
from hall_client import LightStudent  # noqa: E402

from nplk_lab.serve import class_room, command  # noqa: E402
from nplk_lab.serve.class_store import ClassStore  # noqa: E402
from nplk_lab.serve.class_store_rules import REVOTE, SPLIT  # noqa: E402

WAIT_S = 90.0


# ---------------------------------------------------------------------------
# the configurations
# ---------------------------------------------------------------------------

def test_front_config_pins_browsers_to_hosts_and_checks_them():
    cfg = command.haproxy_config("0.0.0.0", 80, [],
                                 hosts=["10.0.0.11:8501", "10.0.0.12:8501", "[fd00::3]:8501"])
    assert "bind 0.0.0.0:80" in cfg
    assert "    server host1 10.0.0.11:8501 cookie host1" in cfg
    assert "    server host3 [fd00::3]:8501 cookie host3" in cfg
    assert f"cookie {command.HOST_COOKIE} insert" in cfg and command.WORKER_COOKIE not in cfg
    assert "127.0.0.1" not in cfg
    for line in ("option redispatch", "retry-on conn-failure", "uri /_stcore/health",
                 "timeout tunnel 2h",
                 f"http-request set-header {command.PROXY_CLIENT_HEADER} %[src]\n"):
        assert line in cfg


def test_a_host_keeps_the_client_address_only_from_the_front_it_trusts():
    plain = command.haproxy_config("0.0.0.0", 8501, [8502])
    assert f"set-header {command.PROXY_CLIENT_HEADER} %[src]\n" in plain
    kept = command.haproxy_config("0.0.0.0", 8501, [8502], trusted=["10.0.0.10", "10.0.0.9"])
    assert (f"set-header {command.PROXY_CLIENT_HEADER} %[src] "
            "unless { src 10.0.0.10 10.0.0.9 }\n") in kept


@pytest.mark.skipif(command.find_proxy() is None, reason="HAProxy is not installed")
def test_haproxy_accepts_the_front_and_a_trusting_host(tmp_path, capsys):
    assert command.main(["front", "--port", "9000", "--backend", "127.0.0.1:9101",
                         "--backend", "127.0.0.1:9201", "--print-config"]) == 0
    a = tmp_path / "front.cfg"
    a.write_text(capsys.readouterr().out)
    assert command.main(["classroom", "--workers", "2", "--port", "9101",
                         "--trust-proxy", "127.0.0.1", "--print-config"]) == 0
    b = tmp_path / "host.cfg"
    b.write_text(capsys.readouterr().out)
    for cfg in (a, b):
        check = subprocess.run([command.find_proxy(), "-c", "-q", "-f", str(cfg)],
                               capture_output=True, text=True)
        assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("bad", ["host", "host:", ":80", "host:0", "host:99999",
                                 "fd00::3:80"])
def test_a_backend_that_is_not_host_and_port_is_refused_in_words(bad):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        command.host_port(bad)
    assert bad in str(e.value) or "port" in str(e.value)


# ---------------------------------------------------------------------------
# three hosts, one store, one front
# ---------------------------------------------------------------------------

async def until(cond, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_S:.0f} s for {what}")
        await asyncio.sleep(0.02)


@pytest.fixture
def hall():
    if command.find_proxy() is None:
        pytest.skip("HAProxy is not installed")
    import _postgres
    try:
        base = _postgres.server()
    except _postgres.Unavailable as e:
        pytest.skip(str(e))
    url, drop = _postgres.new_schema(base)
    tmp = Path(tempfile.mkdtemp(prefix="nplk-hosts-"))
    front_port = free_port()
    old = os.environ.get(class_room.ENV)
    os.environ[class_room.ENV] = url
    os.environ["STREAMLIT_SERVER_COOKIE_SECRET"] = "one secret for the three hosts"
    hosts: list[BehindProxy] = []
    the_front = None
    try:
        for name in "abc":
            p = free_port_block(2)
            hosts.append(BehindProxy(ROOT, 1, p, p + 1, tmp / f"host-{name}.log", extra=(
                "--store", url, "--public-url", f"http://127.0.0.1:{front_port}",
                "--trust-proxy", "127.0.0.1")).start())
        the_front = Front(ROOT, front_port, [f"127.0.0.1:{h.port}" for h in hosts],
                          tmp / "front.log").start()
        with ClassStore(url) as store:
            yield store, hosts, the_front
    finally:
        if the_front is not None:
            the_front.stop()
        for h in hosts:
            h.stop()
        os.environ.pop("STREAMLIT_SERVER_COOKIE_SECRET", None)
        if old is None:
            os.environ.pop(class_room.ENV, None)
        else:
            os.environ[class_room.ENV] = old
        drop()


@pytest.mark.slow
def test_three_hosts_serve_one_class_and_carry_a_dead_hosts_students(hall):
    store, hosts, the_front = hall
    started = store.start_class("L1", size=30)
    code, token = started.code, started.teacher_token

    async def scenario() -> None:
        # a vote through host A, read back through host B with the same browser
        on_a = LightStudent(hosts[0].url, code, {})
        await on_a.open_and_join()
        assert not on_a.errors
        on_b = LightStudent(hosts[1].url, code, on_a.cookies)
        # the front's students: the light page is not pinned (its requests go to the
        # hosts one by one), even for a browser the lab's pages pinned to a host
        crowd = [LightStudent(the_front.url, code,
                              {command.HOST_COOKIE: f"host{i % 3 + 1}"} if i < 3 else {})
                 for i in range(9)]
        for s in crowd:
            await s.open_and_join()
        everyone = [on_a, on_b, *crowd]
        polls = [asyncio.create_task(s.poll()) for s in everyone]
        await until(lambda: all(s.state.get("role") == "student" for s in everyone),
                    "every student in the class")
        assert on_b.state["handle"] == on_a.state["handle"]
        handles = {id(s): s.state["handle"] for s in crowd}
        assert len({*handles.values(), on_a.state["handle"]}) == 10

        assert await on_a.vote(0, 1)
        for i, s in enumerate(crowd):
            assert await s.vote(0, i % 2)
        store.move(code, token, SPLIT)
        await until(lambda: all(s.state.get("phase") == "split" for s in everyone),
                    "the split on every host")
        # host B shows host A's vote as this student's own, and every host the same split
        assert on_b.state["mine"]["first"] == 1
        assert on_b.state["counts"]["answered"] == 10
        assert all(s.state["counts"] == on_b.state["counts"] for s in crowd)

        # the front set no host cookie for the light page
        assert all(command.HOST_COOKIE not in s.cookies for s in crowd[3:])
        # host A dies at once (its command, worker and HAProxy: SIGKILL)
        hosts[0].kill_all()
        store.move(code, token, REVOTE)
        carried = [s for s in everyone if s is not on_a]
        await until(lambda: all(s.state.get("phase") == "revote" for s in carried),
                    "the second vote through the hosts left")
        for i, s in enumerate(crowd):
            assert await s.vote(0, 1 - i % 2), s.errors
        for s in crowd:
            # carried by the hosts left, still the same student
            assert s.state["handle"] == handles[id(s)]
        for s in everyone:
            s.polling = False
        for p in polls:
            p.cancel()
        await asyncio.gather(*polls, return_exceptions=True)
        await asyncio.gather(*(s.close() for s in everyone), return_exceptions=True)

    asyncio.run(scenario())
    second = store.counts(code, 0, 2)
    assert second.answered == 9
    assert second.by_choice == {1: 5, 0: 4}
    assert store.counts(code, 0, 1).answered == 10
