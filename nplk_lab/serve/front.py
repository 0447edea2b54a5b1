"""``nplk-lab front``: one HAProxy in front of several hosts, each running its own
``nplk-lab classroom`` on one shared class store (a PostgreSQL URL).

A hall bigger than one machine: every host serves the whole lab (its own workers behind
its own HAProxy, :mod:`.command`), and all of them read and write the same classes, so a
student may be served by any host. The front proxy sends a new browser to the host with
the fewest open connections and pins it there with the ``NPLK_HOST`` cookie (a Streamlit
session lives in one process of one host); a host that stops answering is taken out by
its health checks and its browsers start again on another host, where the store gives
them back their seat and their votes. See docs/serving-a-class.md ("Several machines").

``--print-config`` writes the configuration for a department's own HAProxy instead of
running one. Standard library only, as :mod:`.command`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from . import supervise
from .command import (
    HEALTH_TIMEOUT_S,
    _port,
    _raise_stop,
    _Stop,
    find_proxy,
    haproxy_config,
    public_url,
)


def host_port(text: str) -> str:
    """``HOST:PORT`` (``[v6]:PORT`` for an IPv6 address), checked."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or host in ("[]",):
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    try:
        _port(port)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"not a port number in {text!r}") from None
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise argparse.ArgumentTypeError(f"write an IPv6 address in brackets: {text!r}")
    return text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nplk-lab front",
        description="One HAProxy in front of several hosts running `nplk-lab classroom` "
                    "on one class store (--store postgresql://...): each browser pinned "
                    "to one host by a cookie, a dead host's browsers moved to the others.",
        epilog="Start each host with `nplk-lab classroom --store postgresql://... "
               "--public-url http://FRONT:PORT --trust-proxy FRONT_ADDRESS`, and the "
               "same STREAMLIT_SERVER_COOKIE_SECRET in every host's environment. See "
               "docs/serving-a-class.md.")
    p.add_argument("--backend", action="append", type=host_port, required=True,
                   metavar="HOST:PORT", help="a host's `nplk-lab classroom` (its --port); "
                   "repeat for each host")
    p.add_argument("--port", type=_port, default=80, help="the port students open")
    p.add_argument("--address", default="0.0.0.0",
                   help="the address the proxy listens on (default 0.0.0.0)")
    p.add_argument("--proxy", default=None, help="the haproxy binary (default: found)")
    p.add_argument("--print-config", action="store_true",
                   help="print the HAProxy configuration and exit")
    return p


def front(ns: argparse.Namespace) -> int:
    config_text = haproxy_config(ns.address, ns.port, [], hosts=ns.backend)
    if ns.print_config:
        print(config_text, end="")
        return 0
    proxy = find_proxy(ns.proxy)
    if proxy is None:
        raise SystemExit("nplk-lab front needs HAProxy (sudo apt-get install haproxy), "
                         "or use --print-config for a system HAProxy")
    work = Path(tempfile.mkdtemp(prefix="nplk-lab-front-"))
    config = work / "haproxy.cfg"
    config.write_text(config_text)
    check = subprocess.run([proxy, "-c", "-q", "-f", str(config)], capture_output=True,
                           text=True)
    if check.returncode != 0:
        print(check.stdout + check.stderr, file=sys.stderr)
        shutil.rmtree(work, ignore_errors=True)
        raise SystemExit(f"nplk-lab: HAProxy rejected the configuration {config}")
    local = (f"http://127.0.0.1:{ns.port}" if ns.address in ("0.0.0.0", "::")
             else f"http://{ns.address}:{ns.port}")
    child = supervise.Child("HAProxy", [proxy, "-db", "-f", str(config)], local, None,
                            is_worker=False)
    sup = supervise.Supervisor(os.environ, HEALTH_TIMEOUT_S)
    old = {s: signal.signal(s, _raise_stop)
           for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
           if signal.getsignal(s) is not signal.SIG_IGN}
    code = 0
    try:
        sup.start(child)
        try:
            # answered through a host: start the hosts first
            sup.wait_first_health(child)
        except (RuntimeError, TimeoutError) as e:
            raise SystemExit(f"nplk-lab: {e} (is any host answering?)") from None
        print(f"NPLK Lab for a class: {public_url(ns.address, ns.port)} "
              f"(HAProxy in front of {len(ns.backend)} hosts; Ctrl-C stops it)", flush=True)
        sup.run()
    except _Stop as stop:
        print(f"nplk-lab: {signal.Signals(stop.args[0]).name} received; stopping the "
              "proxy", file=sys.stderr, flush=True)
    except supervise.GiveUp:
        code = 1
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        sup.stop()
        shutil.rmtree(work, ignore_errors=True)
    return code
