"""The gzipped JSON of the lab's cached figures, made once per figure and shared by the
sessions of this server.

The stores keep figures (``cached("figs", key, build)``, keyed by what each is drawn
from) and hand every run the same figure object for the same inputs; the JSON the
browser needs was still encoded again on every run (about 3 ms for the Classification
page's surface and matrix view, and Streamlit then encoded and hashed the long text
twice more). :func:`figure_gz` keeps that JSON, gzipped, beside the figure: keyed by
the figure object, so by the store key it was built for, and dropped when the store
lets the figure go. A figure must therefore not change after its first
:func:`figure_gz` -- the stores' figures never do (they are shared by every session);
a figure made fresh in a run (a selection ring drawn over a cached one) is encoded for
that run and dropped with it.

:func:`figure_alt` keeps each such figure's text alternative the same way (``alt_text``
reads every trace and axis of the figure: about 0.3 ms a run for the Classification
page's two charts, the same text for every student).
"""

from __future__ import annotations

import gzip
import threading
import weakref
from collections import OrderedDict
from typing import Any

import nplk_lab.figures as fg

#: bound on the bytes kept (the oldest entries go first); the stores' own bounds on
#: their figures normally drop entries long before
MAX_BYTES = 64 * 2 ** 20
#: gzip level: 6 is zlib's default; levels 1-3 save no time on these figures
LEVEL = 6

_LOCK = threading.Lock()
_GZ: OrderedDict[int, bytes] = OrderedDict()   # id(figure) -> its gzipped JSON
_USED = [0]                                     # bytes in _GZ


def figure_gz(fig: Any) -> bytes:
    """``fg.figure_json(fig)`` gzipped, encoded once per figure object."""
    k = id(fig)
    with _LOCK:
        hit = _GZ.get(k)
        if hit is not None:
            _GZ.move_to_end(k)
            return hit
    gz = gzip.compress(fg.figure_json(fig).encode(), compresslevel=LEVEL, mtime=0)
    with _LOCK:
        if k in _GZ:            # another session encoded it meanwhile
            return _GZ[k]
        try:                    # the entry goes with the figure (its id may be reused)
            weakref.finalize(fig, _drop, k)
        except TypeError:       # not weakly referenceable: not kept
            return gz
        _GZ[k] = gz
        _USED[0] += len(gz)
        while _USED[0] > MAX_BYTES and len(_GZ) > 1:
            _, old = _GZ.popitem(last=False)
            _USED[0] -= len(old)
    return gz


#: bound on the text alternatives kept (each at most a few hundred characters)
MAX_ALTS = 4096
_ALT: OrderedDict[int, str] = OrderedDict()     # id(figure) -> its text alternative


def figure_alt(fig: Any) -> str:
    """``fg.alt_text(fig)``, made once per figure object."""
    k = id(fig)
    with _LOCK:
        hit = _ALT.get(k)
        if hit is not None:
            _ALT.move_to_end(k)
            return hit
    text = fg.alt_text(fig)
    with _LOCK:
        if k in _ALT:
            return _ALT[k]
        try:
            weakref.finalize(fig, _drop_alt, k)
        except TypeError:
            return text
        _ALT[k] = text
        while len(_ALT) > MAX_ALTS:
            _ALT.popitem(last=False)
    return text


def _drop_alt(k: int) -> None:
    with _LOCK:
        _ALT.pop(k, None)


def _drop(k: int) -> None:
    with _LOCK:
        old = _GZ.pop(k, None)
        if old is not None:
            _USED[0] -= len(old)


def size() -> tuple[int, int]:
    """(entries, bytes) kept."""
    with _LOCK:
        return len(_GZ), _USED[0]
