"""What the lab's browser components carry, read back from an AppTest element: a live
chart's payload and figure (``nplk_lab.ui.components.chart.live_chart`` sends its
figure as JSON text, or as a JSON head and the gzipped figure after a newline) and a
replay's frames (``nplk_lab.ui.components.replay``). Only tests read them, so they live
here, not in the lab."""

from __future__ import annotations

import gzip
import json
from typing import Any


def payload_of(element: Any) -> dict[str, Any] | None:
    """The data a live chart element carries, its figure as JSON text (or None), from
    either form the live chart sends; None for another element."""
    proto = getattr(element, "proto", element)
    if getattr(proto, "component_name", "") != "nplk_live_chart":
        return None
    if proto.WhichOneof("data") == "bytes":
        head, _, gz = proto.bytes.partition(b"\n")
        data = json.loads(head)
        data["figure"] = gzip.decompress(gz).decode() if gz else None
        return data
    return json.loads(proto.json) if proto.json else {}


def figure_of(element: Any) -> dict[str, Any] | None:
    """The figure dict a live chart element carries; None for another element."""
    data = payload_of(element)
    if data is None:
        return None
    fig = data.get("figure")
    return json.loads(fig) if isinstance(fig, str) else fig


def frames_of(element: Any) -> list[dict] | None:
    """The frames a replay element carries; None for another element."""
    proto = getattr(element, "proto", element)
    if getattr(proto, "component_name", "") != "nplk_replay":
        return None
    data = json.loads(proto.json) if proto.json else {}
    fig = data.get("figure")
    fig = json.loads(fig) if isinstance(fig, str) else fig
    return None if fig is None else fig.get("frames")
