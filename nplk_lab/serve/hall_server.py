"""A class's light page in a process of its own: ``nplk-lab classroom`` runs one beside
its Streamlit workers, and its HAProxy sends the light page's requests here first.

Why a process of its own: a hall's long polls, votes and figures answered by a
Streamlit worker share that worker's interpreter lock and event loop with the page
runs and websockets of the students exploring the full lab. Measured with py-spy
(``benchmarks/bench_classroom.py --hall 300 --profile P --gil``, docs/a-class-on-one-link.md):
the light page's requests took about 40 % of each worker's interpreter time beside 60
students moving sliders. Here they take none of it; the workers stay the light page's
backup (HAProxy sends its requests to them while this process is down or restarting).

The same routes (:func:`.class_hall.routes`), the same seat cookie
(:class:`.class_web.SeatCookie`), the same class store (``NPLK_LAB_CLIENT_HEADER`` and
``NPLK_LAB_CLASS_STORE`` from the command), and :data:`HEALTH` for HAProxy's checks and
the supervisor's. The lesson code, Plotly.js and the figures' code are imported before
the port opens, so the first hall's requests do not pay for it.

    python -m nplk_lab.serve.hall_server --port 8504 [--address 127.0.0.1]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

HEALTH = "/_stcore/health"     # the path the workers answer their checks on, too


def app() -> Any:
    """The light page's routes, its health check and the seat cookie (gzip for what
    is not gzipped already, as Streamlit's server does for the workers' answers)."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.gzip import GZipMiddleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from . import class_hall, class_web

    async def health(request: Any) -> Any:  # noqa: ARG001 (a route's signature)
        return PlainTextResponse("ok", headers={"Cache-Control": "no-store"})
    return Starlette(routes=[Route(HEALTH, health, methods=["GET"]), *class_hall.routes()],
                     middleware=[Middleware(GZipMiddleware, minimum_size=500),
                                 Middleware(class_web.SeatCookie)])


def warm_up() -> None:
    """What the first requests would otherwise import: the lessons, their figures'
    code and Plotly.js (read and gzipped once)."""
    from nplk_lab.model.lessons import lesson_figures, lessons  # noqa: F401

    from . import class_hall
    class_hall.plotly_gz()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--address", default="127.0.0.1")
    ns = p.parse_args(argv)
    import uvicorn
    warm_up()
    uvicorn.run(app(), host=ns.address, port=ns.port, access_log=False,
                log_level="warning", lifespan="off", timeout_graceful_shutdown=5)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
