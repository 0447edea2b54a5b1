"""Free ports for the servers tests start (one place for the tests that need them)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port free right now (another process may take it before it is used: a server
    of ours gets port 0 instead, see ``_browser.StreamlitServer``)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bindable(port: int) -> bool:
    """Whether this process can bind ``port`` on 127.0.0.1 right now."""
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port_block(n: int) -> int:
    """A port P with P .. P + n - 1 all free right now (a proxy, then its workers)."""
    for _ in range(100):
        p = free_port()
        if p + n < 65536 and all(bindable(p + i) for i in range(n)):
            return p
    raise RuntimeError(f"no {n} consecutive free ports")
