"""Colour vision deficiency for the tests: what a viewer with deuteranopia (no
medium-wavelength cones, the most common colour blindness) sees of a colour, and how far
apart two colours then look.

The simulation is the linear-RGB matrix of Machado, Oliveira and Fernandes, "A
physiologically-based model for simulation of color vision deficiency" (IEEE TVCG,
2009), at severity 1.0. ``DEUTERANOPIA`` is applied to linear RGB; the same numbers go
into an SVG ``feColorMatrix`` (which works in linear RGB by default) to show a page as
such a viewer sees it (``tests/test_browser_a11y.py``). Distances are CIE 1976 ΔE in
L*a*b* (D65); about 2.3 is just noticeable, and :data:`APART` is the distance at
which two marks are taken to be told apart at a glance.
"""

from __future__ import annotations

import re

DEUTERANOPIA = ((0.367322, 0.860646, -0.227968),
                (0.280085, 0.672501, 0.047413),
                (-0.011820, 0.042940, 0.968881))

#: ΔE (CIE 1976) from which two marks' colours count as different at a glance
APART = 20.0

_NAMED = {"black": (0, 0, 0), "white": (255, 255, 255), "gray": (128, 128, 128),
          "grey": (128, 128, 128), "red": (255, 0, 0), "green": (0, 128, 0),
          "blue": (0, 0, 255), "orange": (255, 165, 0)}


def rgb(color: str) -> tuple[float, float, float] | None:
    """A CSS colour (#rgb, #rrggbb, rgb(), rgba(), a few names) as 0-255 RGB; None for
    anything else (an array of colours, a colour scale)."""
    if not isinstance(color, str):
        return None
    c = color.strip().lower()
    if c in _NAMED:
        return tuple(float(v) for v in _NAMED[c])
    m = re.fullmatch(r"#([0-9a-f]{3}|[0-9a-f]{6})", c)
    if m:
        h = m.group(1)
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        return tuple(float(int(h[i:i + 2], 16)) for i in (0, 2, 4))
    m = re.fullmatch(r"rgba?\(([^)]*)\)", c)
    if m:
        parts = [p.strip() for p in m.group(1).split(",")]
        try:
            return tuple(float(p) for p in parts[:3])
        except ValueError:
            return None
    return None


def _lin(v: float) -> float:
    v /= 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def _gam(v: float) -> float:
    v = min(max(v, 0.0), 1.0)
    return 255.0 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055)


def deuteranope(c: tuple[float, float, float]) -> tuple[float, float, float]:
    """``c`` (0-255 sRGB) as a viewer with deuteranopia sees it."""
    lin = [_lin(v) for v in c]
    return tuple(_gam(sum(m * v for m, v in zip(row, lin, strict=True)))
                 for row in DEUTERANOPIA)


def _lab(c: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = (_lin(v) for v in c)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """CIE 1976 ΔE between two 0-255 sRGB colours."""
    la, lb = _lab(a), _lab(b)
    return sum((p - q) ** 2 for p, q in zip(la, lb, strict=True)) ** 0.5


def deuteranope_delta_e(a: str, b: str) -> float | None:
    """ΔE between two CSS colours as a viewer with deuteranopia sees them (None when
    either is not a single colour)."""
    ca, cb = rgb(a), rgb(b)
    if ca is None or cb is None:
        return None
    return delta_e(deuteranope(ca), deuteranope(cb))
