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

#: bound on the text alternatives kept (each at most a few hundred characters)
MAX_ALTS = 4096


class _PerFigure:
    """What :func:`figure_gz` and :func:`figure_alt` keep: one value per figure object,
    made outside the lock, dropped when the figure goes (its id may then be reused), the
    oldest first once the kept weight passes ``limit()`` (read at each insertion; the
    newest always stays)."""

    def __init__(self, limit, weigh) -> None:
        self.limit, self.weigh = limit, weigh
        self.kept: OrderedDict[int, Any] = OrderedDict()   # id(figure) -> value
        self.used = 0

    def get(self, fig: Any, make) -> Any:
        k = id(fig)
        with _LOCK:
            hit = self.kept.get(k)
            if hit is not None:
                self.kept.move_to_end(k)
                return hit
        value = make(fig)
        with _LOCK:
            if k in self.kept:          # another session made it meanwhile
                return self.kept[k]
            try:
                weakref.finalize(fig, self._drop, k)
            except TypeError:           # not weakly referenceable: not kept
                return value
            self.kept[k] = value
            self.used += self.weigh(value)
            while self.used > self.limit() and len(self.kept) > 1:
                _, old = self.kept.popitem(last=False)
                self.used -= self.weigh(old)
        return value

    def __contains__(self, k: int) -> bool:
        return k in self.kept

    def _drop(self, k: int) -> None:
        with _LOCK:
            old = self.kept.pop(k, None)
            if old is not None:
                self.used -= self.weigh(old)


_LOCK = threading.Lock()
_GZ = _PerFigure(lambda: MAX_BYTES, len)                # gzipped JSON, in bytes
_ALT = _PerFigure(lambda: MAX_ALTS, lambda _text: 1)    # text alternatives, in entries


def _gzipped(fig: Any) -> bytes:
    return gzip.compress(fg.figure_json(fig).encode(), compresslevel=LEVEL, mtime=0)


def figure_gz(fig: Any) -> bytes:
    """``fg.figure_json(fig)`` gzipped, encoded once per figure object."""
    return _GZ.get(fig, _gzipped)


def figure_alt(fig: Any) -> str:
    """``fg.alt_text(fig)``, made once per figure object."""
    return _ALT.get(fig, fg.alt_text)


def size() -> tuple[int, int]:
    """(entries, bytes) kept."""
    with _LOCK:
        return len(_GZ.kept), _GZ.used
