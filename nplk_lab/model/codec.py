"""The state codec: a ``params`` dict to URL query values and JSON and back, with caps."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .settings_table import (
    REGRESSION_METHODS,
    Message,
    Setting,
    _msg,
    clip,
    defaults,
    setting,
    settings,
)

#: Query keys written by Streamlit itself; silently ignored when decoding.
_FOREIGN_KEYS = frozenset({"embed", "embed_options"})

MAX_POINTS = 300  # user-added points kept in the state (and the URL)
MAX_COORD = 1e6  # |x| of a user-added point (a click lands on the plotted data)
MAX_CONFIG_BYTES = 64 * 1024  # a saved configuration is ~2 KB; 300 points ~12 KB
MAX_CONFIG_DEPTH = 8  # {"params": {"points": [[x1, x2, c], ...]}} is 4 deep
MAX_NOTES = 5  # per-entry notes about one link or configuration; the rest are counted
MIN_ROWS = 6  # data rows a CSV needs: 2+ per class for training plus a test point

# ---------------------------------------------------------------------------
# value validation and (de)serialisation
# ---------------------------------------------------------------------------


def _finite_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("not a number")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError("not finite")
    return v


def _in_range(s: Setting, v: float) -> None:
    if s.min is not None and v < s.min - 1e-12 * max(1.0, abs(s.min)):
        raise ValueError(f"below the minimum {s.min:g}")
    if s.max is not None and v > s.max + 1e-12 * max(1.0, abs(s.max)):
        raise ValueError(f"above the maximum {s.max:g}")


def coerce(name: str, value: Any) -> Any:
    """Return ``value`` converted to the setting's type; raise ValueError if invalid.

    Accepts the native type or the URL string form.
    """
    s = setting(name)
    kind = s.kind
    if kind == "float":
        v = _finite_float(value)
        _in_range(s, v)
        return v
    if kind == "float_auto":
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        v = _finite_float(value)
        _in_range(s, v)
        return v
    if kind == "int":
        if isinstance(value, bool):
            raise ValueError("not an integer")
        v = float(value)
        if not math.isfinite(v) or v != int(v):
            raise ValueError("not an integer")
        v = int(v)
        _in_range(s, v)
        return v
    if kind == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ValueError("not a yes/no value")
    if kind == "choice":
        for opt in s.options:
            if value == opt or str(value) == str(opt):
                return opt
        raise ValueError(f"not one of {', '.join(map(str, s.options))}")
    if kind == "range":
        if value is None or value == "" or (isinstance(value, Sequence) and len(value) == 0):
            return ()
        parts = value.split("~") if isinstance(value, str) else list(value)
        if len(parts) != 2:
            raise ValueError("a range needs two values 'lo~hi'")
        lo, hi = (_finite_float(p) for p in parts)
        if not lo < hi:
            raise ValueError("the range needs lo < hi")
        return (lo, hi)
    if kind == "points":
        return _coerce_points(value)
    if kind == "token":
        # an opaque URL-safe value (a teacher's lesson): capped, base64url characters
        # only; what it holds is decoded and checked by its reader
        text = "" if value is None else value if isinstance(value, str) else None
        if text is None:
            raise ValueError("not text")
        if s.max is not None and len(text) > s.max:
            raise ValueError(f"longer than {s.max:g} characters")
        if not all(c.isascii() and (c.isalnum() or c in "-_") for c in text):
            raise ValueError("contains characters other than letters, digits, - and _")
        return text
    raise ValueError(f"unknown setting kind {kind!r}")


def _coerce_points(value: Any) -> tuple[tuple[float, float, int], ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        rows = [r.split(",") for r in value.split(";") if r.strip()]
    else:
        rows = [list(r) for r in value]
    out = []
    for r in rows:
        if len(r) != 3:
            raise ValueError("each point needs x1, x2 and a class")
        x1, x2 = _finite_float(r[0]), _finite_float(r[1])
        if max(abs(x1), abs(x2)) > MAX_COORD:
            raise ValueError(f"a point's coordinates must lie within ±{MAX_COORD:g}")
        # the class y is checked like the coordinates (a finite number, no bools) and
        # then must be exactly ±1: 1.5 or -1.9 are refused, not truncated to a class
        y = _finite_float(r[2])
        if y not in (-1.0, 1.0):
            raise ValueError("a point's class must be -1 or +1")
        out.append((x1, x2, int(y)))
    if len(out) > MAX_POINTS:
        raise ValueError(f"more than {MAX_POINTS} points")
    return tuple(out)


def to_text(name: str, value: Any) -> str:
    """The URL form of a value (exact: floats use their shortest round-trip repr)."""
    kind = setting(name).kind
    if kind == "bool":
        return "1" if value else "0"
    if kind in ("float", "float_auto"):
        return "auto" if value == "auto" else repr(float(value))
    if kind == "int":
        return str(int(value))
    if kind == "range":
        return "" if not value else f"{float(value[0])!r}~{float(value[1])!r}"
    if kind == "points":
        return ";".join(f"{x1:.4g},{x2:.4g},{int(c)}" for x1, x2, c in value)
    return str(value)


def relevant_names(page: str, params: Mapping[str, Any] | None = None) -> list[str]:
    """Names of the settings that matter on ``page`` given the current choices.

    Method parameters are kept only for the selected method; dataset parameters
    only for the selected dataset.
    """
    params = {**defaults(), **(params or {})}
    method = {"classification": params.get("method"), "regression": params.get("reg_method"),
              "sensitivity": params.get("sweep_method"), "pairwise": "simple_npkl"}.get(page)
    dataset = params.get("reg_dataset") if page == "regression" or (
        page == "sensitivity" and method in REGRESSION_METHODS) else params.get("dataset")
    names = []
    for name, s in settings().items():
        if not s.applies(page=page):
            continue
        if s.group in ("method", "view") and s.methods is not None and method is not None \
                and method not in s.methods:
            continue
        if s.datasets is not None and dataset not in s.datasets:
            continue
        names.append(name)
    return names


def encode_query(params: Mapping[str, Any], names: Iterable[str] | None = None
                 ) -> dict[str, str]:
    """URL query values for ``params`` (all of them, or only ``names``). An empty token
    (no teacher's lesson, no class, no answers) is left out: a shared address carries
    no ``teacher=`` with nothing after it."""
    table = settings()
    keys = list(names) if names is not None else list(params)
    out = {}
    for k in keys:
        if k in table and k in params:
            if table[k].kind == "token" and not params[k]:
                continue
            out[k] = to_text(k, params[k])
    return out


def decode_query(query: Mapping[str, Any], base: Mapping[str, Any] | None = None
                 ) -> tuple[dict[str, Any], list[Message]]:
    """Parameters from URL query values, starting from ``base`` (default: defaults).

    Unknown keys and invalid values are ignored with a message; the setting keeps
    its value from ``base``. Never raises.
    """
    params = dict(defaults() if base is None else base)
    items = []
    for key, raw in query.items():
        if key in _FOREIGN_KEYS:
            continue
        if isinstance(raw, (list, tuple)) and all(isinstance(r, str) for r in raw):
            raw = raw[-1] if raw else ""  # a repeated URL key: the last one wins
        items.append((key, raw))
    return params, _set_values(params, items, "link parameter", settings())


def _set_values(params: dict[str, Any], items: Iterable[tuple[Any, Any]], what: str,
                table: Mapping[str, Any]) -> list[Message]:
    """``params[key] = coerce(key, raw)`` for each item; an unknown key or an invalid
    value leaves ``params`` as it was. The notes name ``what`` (link parameter,
    setting), quote user text clipped (:func:`clip`), and stay few: at most
    :data:`MAX_NOTES` about invalid values plus one line counting the rest, and one
    line for all unknown keys."""
    messages: list[Message] = []
    unknown: list[Any] = []
    n_invalid = 0
    for key, raw in items:
        if not isinstance(key, str) or key not in table:
            unknown.append(key)
            continue
        try:
            params[key] = coerce(key, raw)
        except (ValueError, TypeError, OverflowError) as exc:
            n_invalid += 1
            if n_invalid <= MAX_NOTES:
                messages.append(_msg("warning", f"{what.capitalize()} {key}="
                                                f"“{clip(_short_repr(raw))}” is invalid "
                                                f"({clip(exc, 80)}); kept "
                                                f"{table[key].format(params[key])}."))
    if n_invalid > MAX_NOTES:
        messages.append(_msg("warning", f"{n_invalid - MAX_NOTES} more invalid {what}s "
                                        "were ignored (their settings kept their values)."))
    if len(unknown) == 1:
        messages.append(_msg("warning", f"Ignored unknown {what} “{clip(unknown[0])}”."))
    elif unknown:
        shown = ", ".join(f"“{clip(k, 24)}”" for k in unknown[:3])
        more = ", …" if len(unknown) > 3 else ""
        messages.append(_msg("warning", f"Ignored {len(unknown):,} unknown {what}s: "
                                        f"{shown}{more}."))
    return messages


def _short_repr(raw: Any) -> str:
    """``raw`` as text without building a huge string (nested JSON, long lists)."""
    if isinstance(raw, str):
        return raw[:200]
    if isinstance(raw, (list, tuple, dict)):
        return f"{type(raw).__name__} of {len(raw)}" if len(raw) > 8 else repr(raw)[:200]
    return repr(raw)[:200]


CONFIG_FORMAT = "nplk-lab-config"


def params_to_json(params: Mapping[str, Any], names: Iterable[str] | None = None) -> str:
    """A downloadable JSON configuration (re-loadable with :func:`params_from_json`)."""
    table = settings()
    keys = list(names) if names is not None else [k for k in params if k in table]
    body = {}
    for k in keys:
        if k not in table or k not in params:
            continue
        v = params[k]
        if table[k].kind == "points":
            v = [list(p) for p in v]
        elif table[k].kind == "range":
            v = list(v)
        elif isinstance(v, np.generic):
            v = v.item()
        body[k] = v
    return json.dumps({"format": CONFIG_FORMAT, "version": 1, "params": body}, indent=2)


def params_from_json(text: str | bytes, base: Mapping[str, Any] | None = None
                     ) -> tuple[dict[str, Any], list[Message]]:
    """Parameters from a JSON configuration; invalid entries fall back with a message.

    A file over :data:`MAX_CONFIG_BYTES` or nested deeper than :data:`MAX_CONFIG_DEPTH`
    is refused before parsing (no ``RecursionError``, no long parse)."""
    params = dict(defaults() if base is None else base)
    size = len(text)
    if size > MAX_CONFIG_BYTES:
        return params, [_msg("error", f"The configuration is {size / 1024:.0f} KB; a lab "
                                      f"configuration is at most {MAX_CONFIG_BYTES // 1024} "
                                      "KB. Load a file saved by NPLK Lab "
                                      "(“Configuration (JSON)”).")]
    try:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8-sig")
        depth = _nesting_depth(text)
        if depth > MAX_CONFIG_DEPTH:
            return params, [_msg("error", f"The configuration is nested {depth} levels deep; "
                                          f"a lab configuration has at most "
                                          f"{MAX_CONFIG_DEPTH}. Load a file saved by NPLK "
                                          "Lab (“Configuration (JSON)”).")]
        doc = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        return params, [_msg("error", f"The configuration is not valid JSON "
                                      f"({clip(exc, 80)}). Load a file saved by NPLK Lab "
                                      "(“Configuration (JSON)”).")]
    if not isinstance(doc, dict) or not isinstance(doc.get("params"), dict):
        return params, [_msg("error", "The configuration has no “params” object; was it "
                                      "saved by NPLK Lab?")]
    return params, _set_values(params, doc["params"].items(), "setting", settings())


def _nesting_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings skipped), without parsing."""
    depth = best = 0
    for tok in re.findall(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        if tok in "[{":
            depth += 1
            best = max(best, depth)
        elif tok in "]}":
            depth -= 1
    return best
