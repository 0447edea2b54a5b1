"""The ``nplk-lab`` command: the installed app, alone or behind a proxy for a class.

``nplk-lab [streamlit options]`` runs the app exactly as ``streamlit run app.py`` does
from the repository (the lab's ``.streamlit/config.toml`` applied, from any directory).

``nplk-lab classroom --workers N --port P`` starts N ``streamlit run`` processes on
consecutive internal ports (localhost only) and HAProxy in front of them on port P.
HAProxy pins each browser to one worker with a cookie: a Streamlit session (its widgets,
its uploaded CSV) lives in one process, and an upload is a separate HTTP request that
must reach that process. Workers serve without file watching, drop a disconnected
session after ``--session-ttl`` seconds and bound the lab's caches to ``--cache-mb``
each (``NPLK_LAB_CACHE_MB``, read by :mod:`.stores`). A worker or the proxy that dies
is restarted, and nothing it started outlives it (:mod:`.supervise`). Without HAProxy
the command says how to install it and serves with one process. See
``docs/serving-a-class.md``.

``nplk-lab front --backend HOST:PORT ...`` runs one HAProxy in front of several hosts'
``nplk-lab classroom`` sharing one PostgreSQL class store (see its section below).

This module imports only the standard library: it supervises processes and never
runs the app itself.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from . import class_room, supervise
from .class_hall import HALL_PATH
from .class_web import CLIENT_HEADER_ENV, PROXY_CLIENT_HEADER, PUBLIC_URL_ENV, lan_address
from .parent_watch import pdeathsig_preexec

APP_PACKAGE = "nplk_lab_app"  # app.py, pages/ and .streamlit/ in an installed wheel
PROXY = "haproxy"
PROXY_SEARCH = ("/usr/sbin", "/usr/local/sbin")  # Debian installs it outside a user's PATH
INSTALL_HINT = "sudo apt-get install haproxy"
WORKER_COOKIE = "NPLK_WORKER"
WARM_START_ENV = "NPLK_LAB_WARM_START"   # "1": a worker warms up before it answers
BACKEND = "nplk_workers"
HALL_BACKEND = "nplk_hall"     # a class's light page: no cookie, request by request
HOST_COOKIE = "NPLK_HOST"     # `nplk-lab front`'s, in front of several hosts
HEALTH = "/_stcore/health"
# every worker's health-check settings in the HAProxy configuration (why: its comments)
DEFAULT_SERVER = ("check inter 2s fastinter 500ms downinter 1s fall 2 rise 1 observe layer4 "
                  "error-limit 1 on-error fastinter")

# Serving settings for a class: no file watching, a short life for a session
# whose browser went away, the lab's caches bounded per worker.
DEFAULT_SESSION_TTL_S = 30
DEFAULT_CACHE_MB = 256
DEFAULT_PORT = 8501
HEALTH_TIMEOUT_S = 120.0


# ---------------------------------------------------------------------------
# the installed app and its settings
# ---------------------------------------------------------------------------

def app_dir() -> Path:
    """The folder holding ``app.py`` and ``pages/``: the installed ``nplk_lab_app``
    package, else the source checkout this module sits in."""
    spec = importlib.util.find_spec(APP_PACKAGE)
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if (Path(loc) / "app.py").is_file():
            return Path(loc)
    for parent in Path(__file__).resolve().parents:
        if (parent / "app.py").is_file() and (parent / "pages").is_dir():
            return parent
    raise FileNotFoundError("NPLK Lab's app.py is not installed next to this package")


def shipped_options(folder: Path) -> dict[str, object]:
    """The lab's ``.streamlit/config.toml`` as ``{"section.key": value}``. Streamlit
    reads that file only from the current directory, so the command passes it on."""
    path = folder / ".streamlit" / "config.toml"
    if not path.is_file():
        return {}
    with open(path, "rb") as f:
        table = tomllib.load(f)
    return {f"{section}.{key}": value for section, values in table.items()
            for key, value in values.items()}


def serving_options(session_ttl: int) -> dict[str, object]:
    """What a worker of a class runs with, on top of the shipped settings."""
    return {
        "server.headless": True,
        "server.fileWatcherType": "none",
        "server.runOnSave": False,
        "server.disconnectedSessionTTL": session_ttl,
        "browser.gatherUsageStats": False,
    }


def user_options(args: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """Split ``--section.key value`` / ``--section.key=value`` pairs (Streamlit's
    option flags) from anything else, which is passed on untouched."""
    options: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        name = a[2:].split("=", 1)[0] if a.startswith("--") else ""
        if "." in name:
            if "=" in a:
                options[name] = a.split("=", 1)[1]
            elif i + 1 < len(args):
                options[name] = args[i + 1]
                i += 1
            else:
                rest.append(a)
        else:
            rest.append(a)
        i += 1
    return options, rest


def _flag_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


#: what ``streamlit run`` runs: the lab's pages with its routes (server.py)
SERVER_SCRIPT = Path(__file__).with_name("server.py")


def streamlit_command(options: Mapping[str, object], extra: Sequence[str] = ()) -> list[str]:
    """``python -m streamlit run <server.py> --opt value ...``: the installed app's
    pages (server.py finds ``app.py`` with :func:`app_dir`) with the lab's routes."""
    cmd = [sys.executable, "-m", "streamlit", "run", str(SERVER_SCRIPT)]
    for name, value in options.items():
        cmd += [f"--{name}", _flag_value(value)]
    return cmd + list(extra)


def merged(*layers: Mapping[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for layer in layers:
        out.update(layer)
    return out


# ---------------------------------------------------------------------------
# the proxy
# ---------------------------------------------------------------------------

def find_proxy(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else shutil.which(explicit)
    found = shutil.which(PROXY)
    if found:
        return found
    for folder in PROXY_SEARCH:
        path = Path(folder) / PROXY
        if os.access(path, os.X_OK):
            return str(path)
    return None


# what both backends do with a dead worker or host (retries), and how the lab's
# pages' backend checks them (the light page's servers follow those checks)
_RETRIES = """\
    # a worker that died (`nplk-lab classroom` restarts it): a connection it refuses
    # is retried on another worker at once, so its reconnecting browsers and new ones
    # start a session on a live worker (every retry may pick another server); also a
    # request the worker accepted but dropped unanswered as it died (a 502 otherwise)
    retries 2
    option redispatch 1
    retry-on conn-failure empty-response"""
_CHECKS = """\
    # health checks: every 2 s while up; after a failed check, or as soon as a real
    # connection to the worker fails (observe layer4), every 0.5 s; down after 2
    # failures in a row (within about 1 s of a crash; a busy worker answering one check
    # late is not taken out, which would move its students' reconnections elsewhere);
    # back in after 1 answer (an answer means its server is up), asked every 1 s while down.
    # A dead worker refuses the check's connection at once; a live one busy with a class
    # may answer late: 20 s before a check counts as failed (at 5 s, two busy workers
    # were both taken out under a class of 60 explorers and 300 on the light page, and
    # HAProxy answered everyone 503 until their next check)
    option httpchk
    http-check send meth GET uri {health}
    http-check expect status 200
    timeout check 20s
    default-server {default_server}"""


def haproxy_config(address: str, port: int, worker_ports: Sequence[int], *,
                   hosts: Sequence[str] = (), trusted: Sequence[str] = (),
                   control: Path | None = None, hall_ports: Sequence[int] = ()) -> str:
    """HAProxy in front of the workers: cookie affinity, websockets kept open.

    ``hosts`` (``"HOST:PORT"`` each): the proxy in front of several machines' own
    ``nplk-lab classroom`` instead (`nplk-lab front`), each host a server pinned by the
    ``NPLK_HOST`` cookie; ``worker_ports`` is then unused. ``trusted``: the addresses of
    such a proxy in front of this one, whose client header is kept (every other
    sender's is replaced by its own address). ``control``: the runtime socket the
    command tells it through that a worker died (:func:`tell_proxy_down`).
    ``hall_ports``: the light page's own processes (:mod:`.hall_server`), which its
    requests go to first, the workers being their backup."""
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    stats = ("" if control is None else
             "    # the command says here, at once, that a worker died (tell_proxy_down)\n"
             f"    stats socket {control} mode 600 level admin\n")
    if hosts:
        cookie = HOST_COOKIE
        servers = "\n".join(f"    server host{i} {h} cookie host{i}"
                             for i, h in enumerate(hosts, start=1))
    else:
        cookie = WORKER_COOKIE
        servers = "\n".join(
            f"    server w{i} 127.0.0.1:{p} cookie w{i}"
            for i, p in enumerate(worker_ports, start=1))
    # the light page's requests: its own processes if any, checked as the workers are;
    # the same servers as the lab's pages without the cookie, up and down as that
    # backend checks them (the backup of the light page's own processes)
    backup = " backup" if hall_ports else ""
    hall_servers = "\n".join(
        [f"    server h{i} 127.0.0.1:{p} {DEFAULT_SERVER}"
         for i, p in enumerate(hall_ports, start=1)]
        + [f"    server {name} {where} track {BACKEND}/{name}{backup}"
           for name, where in (line.split()[1:3] for line in servers.splitlines())])
    keep = f" unless {{ src {' '.join(trusted)} }}" if trusted else ""
    by = "front" if hosts else "classroom"
    checks = _CHECKS.format(health=HEALTH, default_server=DEFAULT_SERVER)
    hall_checks = ("    # every worker at once while the light page's processes are down\n"
                   "    option allbackups\n"
                   + "\n".join(ln for ln in checks.splitlines() if "default-server" not in ln)
                   if hall_ports else "    # (no checks of its own: it tracks the other's)")
    unit = "host" if hosts else "worker"
    # hosts are alike (the same command on machines alike): new browsers in turn, which
    # long polls holding connections do not skew; a host's own proxy spreads its workers
    balance = "roundrobin" if hosts else "leastconn"
    return f"""\
# NPLK Lab for a class: written by `nplk-lab {by}` (docs/serving-a-class.md)
global
    maxconn 4096
    # failed requests only (below), on the command's output
    log stderr format raw local0
{stats}
defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    option forwardfor
    timeout connect 5s
    # an HTTP request and its answer (a page load, a CSV upload)
    timeout http-request 30s
    timeout client 60s
    timeout server 60s
    # an open websocket: one per browser tab, for as long as the tab is open
    # (Streamlit pings it, so this only ends connections whose peer is gone)
    timeout tunnel 2h
    timeout client-fin 10s

frontend nplk_lab
    bind {bind}
    # the client's address as HAProxy sees it, in a header of its own that replaces
    # whatever the client sent (X-Forwarded-For is the client's to write): what limits
    # wrong join codes per address (the workers read it: NPLK_LAB_CLIENT_HEADER)
    http-request set-header {PROXY_CLIENT_HEADER} %[src]{keep}
    # a class's light page (its page, files, state, votes, figures) keeps nothing in a
    # worker: every request goes on its own, so the lab's tabs below are spread by
    # their own count, not by the long polls of a hall
    use_backend {HALL_BACKEND} if {{ path {HALL_PATH} }} || {{ path_beg {HALL_PATH}/ }}
    default_backend {BACKEND}

backend {HALL_BACKEND}
    # each request to the {unit} with the fewest open requests (the long polls)
    balance leastconn
{_RETRIES}
{hall_checks}
{hall_servers}

backend {BACKEND}
    # a new browser goes to the {unit} with the fewest open connections of the lab's
    # pages (websockets are long), then stays there: its session and its uploads live
    # in that process
    balance {balance}
    cookie {cookie} insert indirect nocache httponly attr "SameSite=Lax"
{_RETRIES}
{checks}
{servers}
"""


# ---------------------------------------------------------------------------
# processes
# ---------------------------------------------------------------------------

def tell_proxy_down(control: Path, server: str, backend: str = BACKEND) -> None:
    """Tell HAProxy through its runtime socket ``control`` that ``server`` is down (its
    process died: the supervisor knows at once, the health checks only within about a
    second, and meanwhile every try of a reconnecting browser that HAProxy sent there
    was refused and retried a second later). Its checks go on and bring it back in once
    the restarted worker answers. A socket that does not answer is left alone: the
    checks notice anyway."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1.0)
            s.connect(str(control))
            s.sendall(f"set server {backend}/{server} health down\n".encode())
            s.recv(4096)
    except OSError:
        pass


def store_password_warning(store: str) -> str:
    """A warning when a store URL given on the command line holds a password: every
    user of this machine reads a command line (``ps``). "" when there is none."""
    try:
        password = urlsplit(store).password
    except ValueError:
        return ""
    if not password:
        return ""
    return ("nplk-lab: the password in --store is visible to every user of this machine "
            "(ps). Leave it out of the URL and keep it where PostgreSQL looks for it: "
            "~/.pgpass (or the file PGPASSFILE names, mode 0600), or PGPASSWORD; or put "
            f"the whole URL in {class_room.ENV} instead of --store.")


def public_url(address: str, port: int) -> str:
    if address not in ("0.0.0.0", "::", ""):
        return f"http://{address}:{port}"
    return f"http://{lan_address() or socket.gethostname()}:{port}"


class _Stop(Exception):
    pass


def _raise_stop(signum, frame):  # noqa: ARG001 (signal handler signature)
    raise _Stop(signum)


def worker_ports(ns: argparse.Namespace) -> list[int]:
    first = ns.first_worker_port or ns.port + 1
    ports = list(range(first, first + ns.workers + ns.hall_processes))
    if ns.port in ports or ports[-1] > 65535:
        raise SystemExit(f"nplk-lab: the workers' ports {ports[0]}-{ports[-1]} must be "
                         f"valid and leave out the proxy's port {ns.port}")
    return ports[:ns.workers]


def hall_ports(ns: argparse.Namespace) -> list[int]:
    """The light page's own processes' ports: right after the workers'."""
    last = worker_ports(ns)[-1]
    return list(range(last + 1, last + 1 + ns.hall_processes))


def classroom(ns: argparse.Namespace, extra: Sequence[str]) -> int:
    if ns.print_config:
        print(haproxy_config(ns.address, ns.port, worker_ports(ns),
                            trusted=ns.trust_proxy, hall_ports=hall_ports(ns)), end="")
        return 0
    folder = app_dir()
    given, rest = user_options(extra)
    base = merged(shipped_options(folder), serving_options(ns.session_ttl))
    env = dict(os.environ, NPLK_LAB_CACHE_MB=str(ns.cache_mb))
    # each Streamlit process runs its fits in a pool of worker processes
    # (nplk_lab/serve/workers.py, one per core by default): split the cores between them
    env.setdefault("NPLK_LAB_WORKERS",
                   str(max(1, (os.cpu_count() or 1) // max(int(ns.workers), 1))))
    # the class store every worker shares: a folder for SQLite unless --store or the
    # environment names another (a PostgreSQL URL's password: see store_password_warning)
    if ns.store:
        env[class_room.ENV] = ns.store
        warning = store_password_warning(ns.store)
        if warning:
            print(warning, file=sys.stderr, flush=True)
    else:
        env.setdefault(class_room.ENV, str(class_room.default_folder()))
    if "://" not in env[class_room.ENV]:
        Path(env[class_room.ENV]).mkdir(mode=0o700, parents=True, exist_ok=True)
    # the join link's address when a teacher's own is localhost (nplk_lab/ui/class_common)
    # (several hosts behind one proxy: that proxy's address, --public-url)
    env[PUBLIC_URL_ENV] = ns.public_url or public_url(ns.address, ns.port)
    proxy = find_proxy(ns.proxy)

    # one worker serves alone, unless a front proxy is trusted: then this host's own
    # HAProxy is what keeps only that proxy's client address header
    if proxy is None or (ns.workers == 1 and not ns.trust_proxy):
        if proxy is None:
            print(f"HAProxy is not installed, so the lab serves with one process.\n"
                  f"For {ns.workers} workers behind a proxy install it with:\n"
                  f"    {INSTALL_HINT}\n", file=sys.stderr, flush=True)
        opts = merged(base, {"server.address": ns.address, "server.port": ns.port}, given)
        await_first_pictures(first_pictures(folder, env))
        print(f"NPLK Lab for a class (one process): {public_url(ns.address, ns.port)}",
              flush=True)
        cmd = streamlit_command(opts, rest)
        os.execve(cmd[0], cmd, env)

    ports = worker_ports(ns)
    # one secret for every worker: a browser moved to another worker (its own died)
    # still passes the XSRF check. Passed through the environment, not the command line.
    # Several hosts behind one proxy share one: set it in each host's environment.
    env.setdefault("STREAMLIT_SERVER_COOKIE_SECRET", secrets.token_hex(32))
    # the client's address: the header HAProxy sets (class_web.client_address)
    env[CLIENT_HEADER_ENV] = PROXY_CLIENT_HEADER
    # each worker imports scikit-learn before it answers its health check (server.py)
    env[WARM_START_ENV] = "1"

    work = Path(tempfile.mkdtemp(prefix="nplk-lab-classroom-"))
    config = work / "haproxy.cfg"
    control = work / "haproxy.sock"
    halls = hall_ports(ns)
    config.write_text(haproxy_config(ns.address, ns.port, ports, trusted=ns.trust_proxy,
                                     control=control, hall_ports=halls))
    check = subprocess.run([proxy, "-c", "-q", "-f", str(config)], capture_output=True,
                           text=True)
    if check.returncode != 0:
        print(check.stdout + check.stderr, file=sys.stderr)
        raise SystemExit(f"nplk-lab: HAProxy rejected the configuration {config}")

    workers, proxy_child = supervise.make_children(
        [streamlit_command(merged(base, given, {"server.address": "127.0.0.1",
                                                "server.port": p}), rest)
         for p in ports],
        ports, lambda i: work / f"worker-{i}.log", [proxy, "-db", "-f", str(config)],
        f"http://127.0.0.1:{ns.port}" if ns.address in ("0.0.0.0", "::")
        else f"http://{ns.address}:{ns.port}")
    # the light page's own processes (hall_server.py), supervised as the workers are
    halls_children = [supervise.Child(
        f"light page {i}", [sys.executable, "-m", "nplk_lab.serve.hall_server",
                            "--port", str(p)], f"http://127.0.0.1:{p}",
        work / f"light-page-{i}.log",
        restart_note="the light page's requests go to the workers meanwhile")
        for i, p in enumerate(halls, start=1)]
    in_proxy = {**{c: (BACKEND, f"w{i}") for i, c in enumerate(workers, start=1)},
                **{c: (HALL_BACKEND, f"h{i}") for i, c in enumerate(halls_children, start=1)}}
    sup = supervise.Supervisor(
        env, HEALTH_TIMEOUT_S,
        on_down=lambda c: tell_proxy_down(control, in_proxy[c][1], in_proxy[c][0]))
    # Ctrl-C, a service manager's stop or a closed terminal end the class; a signal
    # ignored on purpose (`nohup`, a background job's SIGINT) stays ignored
    old = {s: signal.signal(s, _raise_stop)
           for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
           if signal.getsignal(s) is not signal.SIG_IGN}
    code = 0
    builder = None
    try:
        # the first pictures are prepared while the workers start; the proxy, the only
        # door to them, opens once both are done
        builder = first_pictures(folder, env, with_parent=True)
        for w in [*workers, *halls_children]:
            sup.start(w)
        for w in [*workers, *halls_children]:
            try:
                sup.wait_first_health(w)
            except (RuntimeError, TimeoutError) as e:
                print(supervise.tail(w.log), file=sys.stderr)
                raise SystemExit(f"nplk-lab: {e}") from None
            print(f"{w.name}: {w.url} (pid {w.proc.pid})", flush=True)
        await_first_pictures(builder)
        _proxy_up(sup, proxy_child, public_url(ns.address, ns.port),
                  f"{ns.workers} workers behind HAProxy; Ctrl-C stops all")
        # supervise: a worker or the proxy that dies is restarted (supervise.py)
        sup.run()
    except _Stop as stop:
        print(f"nplk-lab: {signal.Signals(stop.args[0]).name} received; stopping the "
              "workers and the proxy", file=sys.stderr, flush=True)
        code = 0
    except supervise.GiveUp:
        code = 1
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        if builder is not None and builder.poll() is None:
            builder.kill()
            builder.wait()
        sup.stop()
        shutil.rmtree(work, ignore_errors=True)
    return code


# ---------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------

USAGE = """\
nplk-lab [STREAMLIT OPTIONS]
    Run NPLK Lab (as `streamlit run app.py` does from the repository), e.g.
    nplk-lab --server.port 8502 --server.address 0.0.0.0

nplk-lab classroom [--workers N] [--port P] [--address A] [-- STREAMLIT OPTIONS]
    Serve a class: N app processes behind HAProxy (cookie affinity) on port P.

nplk-lab front --port P --backend HOST:PORT [--backend HOST:PORT ...]
    One HAProxy in front of several hosts' `nplk-lab classroom` (one class store).
"""


def classroom_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="nplk-lab classroom",
        description="Serve NPLK Lab to a class: N Streamlit processes behind HAProxy, "
                    "each browser pinned to one of them by a cookie.",
        epilog="Options after `--` go to every worker's `streamlit run`. "
               "See docs/serving-a-class.md.")
    p.add_argument("--workers", type=_positive, default=min(4, os.cpu_count() or 1),
                   help="app processes (default: the number of cores, at most 4)")
    p.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"the port students open (default {DEFAULT_PORT})")
    p.add_argument("--address", default="0.0.0.0",
                   help="the address the proxy listens on (default 0.0.0.0: every "
                        "network of this machine; use a trusted network only)")
    p.add_argument("--first-worker-port", type=_port, default=None,
                   help="the first worker's internal port (default: PORT + 1)")
    p.add_argument("--hall-processes", type=_count, default=1,
                   help="processes of their own for a class's light page, on the ports "
                        "after the workers' (default 1; 0: the workers answer it)")
    p.add_argument("--session-ttl", type=_positive, default=DEFAULT_SESSION_TTL_S,
                   help="seconds a session is kept after its browser disconnects "
                        f"(default {DEFAULT_SESSION_TTL_S})")
    p.add_argument("--cache-mb", type=_positive, default=DEFAULT_CACHE_MB,
                   help="memory for the lab's caches in each worker, MB "
                        f"(default {DEFAULT_CACHE_MB})")
    p.add_argument("--proxy", default=None, help="the haproxy binary (default: found)")
    p.add_argument("--store", default=None,
                   help="where a class's answers live: a folder for SQLite (default: "
                        "'classes' in the lab's cache folder) or a postgresql:// URL for "
                        "workers on several machines")
    p.add_argument("--public-url", default=None,
                   help="the address students open, for the join link and QR code "
                        "(default: this machine's; behind `nplk-lab front`: the front's)")
    p.add_argument("--trust-proxy", action="append", default=[], metavar="ADDRESS",
                   help="the address of a proxy in front of this one (`nplk-lab front` "
                        "on another machine) whose client address header is kept; "
                        "repeat for several")
    p.add_argument("--print-config", action="store_true",
                   help="print the HAProxy configuration for these ports and exit (for "
                        "a system HAProxy in front of workers run as services)")
    return p


def _at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}: {value}")
    return value


def _positive(text: str) -> int:
    return _at_least(text, 1)


def _count(text: str) -> int:
    return _at_least(text, 0)


def _port(text: str) -> int:
    value = _positive(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {value}")
    return value


def parse(argv: Sequence[str]) -> tuple[str, argparse.Namespace | None, list[str]]:
    """``("run", None, streamlit args)`` or ``("classroom", options, worker args)``."""
    argv = list(argv)
    if argv and argv[0] == "front":
        return "front", front_parser().parse_args(argv[1:]), []
    if argv and argv[0] == "classroom":
        argv = argv[1:]
        extra: list[str] = []
        if "--" in argv:
            cut = argv.index("--")
            argv, extra = argv[:cut], argv[cut + 1:]
        return "classroom", classroom_parser().parse_args(argv), extra
    return "run", None, argv


# ---------------------------------------------------------------------------
# `nplk-lab front`: one HAProxy in front of several hosts
# ---------------------------------------------------------------------------
# A hall bigger than one machine: every host runs its own `nplk-lab classroom` (its
# workers behind its own HAProxy) on one shared class store (a PostgreSQL URL), so a
# student may be served by any host. The front sends a new browser to the host with the
# fewest open connections and pins it there with the NPLK_HOST cookie (a Streamlit
# session lives in one process of one host); a host that stops answering is taken out
# by its health checks and its browsers start again on another host, where the store
# gives them back their seat and their votes. `--print-config` writes the configuration
# for a department's own HAProxy. See docs/serving-a-class.md ("Several machines").

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


def front_parser() -> argparse.ArgumentParser:
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
        # answered through a host: start the hosts first
        _proxy_up(sup, child, public_url(ns.address, ns.port),
                  f"HAProxy in front of {len(ns.backend)} hosts; Ctrl-C stops it",
                  hint=" (is any host answering?)")
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


def _proxy_up(sup: supervise.Supervisor, child: supervise.Child, url: str, what: str,
              hint: str = "") -> None:
    """Start the proxy ``child``, wait for its first answer (SystemExit, with ``hint``,
    when none comes) and print the line people open the class from."""
    sup.start(child)
    try:
        sup.wait_first_health(child)
    except (RuntimeError, TimeoutError) as e:
        raise SystemExit(f"nplk-lab: {e}{hint}") from None
    print(f"NPLK Lab for a class: {url} ({what})", flush=True)


# ---------------------------------------------------------------------------
# the first pictures, before the first connection
# ---------------------------------------------------------------------------

def first_pictures(folder: Path, env: Mapping[str, str] | None = None, *,
                   with_parent: bool = False) -> subprocess.Popen | None:
    """Start preparing every page's first picture at its defaults (the first-paint
    snapshots a new install or a new version of the lab does not have yet:
    :mod:`.firstpaint_build`) in a process of its own; the caller waits for it before
    its port takes connections, so the first student's page is drawn from the snapshot.
    None when the snapshots are off (``NPLK_LAB_FIRST_PAINT=0``). ``with_parent``: it
    dies with this process (a supervisor's child, started from its main thread)."""
    env = dict(os.environ if env is None else env)
    if env.get("NPLK_LAB_FIRST_PAINT", "1") in ("0", "false", "no", "off"):
        return None
    return subprocess.Popen([sys.executable, "-m", "nplk_lab.serve.firstpaint_build",
                             str(folder)], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=pdeathsig_preexec() if with_parent else None)


def await_first_pictures(builder: subprocess.Popen | None) -> None:
    """Wait for :func:`first_pictures` and pass on what it says (its pages' own log lines
    stay out of the server's log); a failure only means a page computes on its first
    visit, so it never stops the server."""
    if builder is None:
        return
    out, _ = builder.communicate()
    for line in (out or "").splitlines():
        if line.startswith("nplk-lab:"):
            print(line, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    mode, ns, extra = parse(argv)
    if mode == "classroom":
        return classroom(ns, extra)
    if mode == "front":
        return front(ns)
    folder = app_dir()
    given, rest = user_options(extra)
    cmd = streamlit_command(merged(shipped_options(folder), given), rest)
    await_first_pictures(first_pictures(folder))
    os.execv(cmd[0], cmd)  # the app replaces this process, as `streamlit run` would
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
