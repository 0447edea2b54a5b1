"""A user's CSV file in, checked row by row, and a data set out as CSV.

:func:`load_csv` reads a user's CSV (path, text, bytes or file-like such as Streamlit's
``UploadedFile``) and raises one error type, :class:`DataError`, whose message names the
spreadsheet row (1-based, header counted), the column, the bad value and the remedy.
:func:`dataset_to_csv` writes what :func:`load_csv` reads back exactly.

Class labels read from a CSV are kept as they are written: ints when every label is an
integer (``1``, ``-1``, ``0``, ``2.0``), floats when every label is numeric, strings
otherwise (``"red"``, ``"blue"``). :func:`to_pm1` maps two classes, sorted, to ``-1, +1``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import IO, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .generators import Task


class DataError(ValueError):
    """A CSV that cannot be used, with a message a spreadsheet user can act on."""


@dataclass(frozen=True)
class LoadedData:
    """A CSV read by :func:`load_csv`.

    Attributes
    ----------
    X : float64 array of shape (n_samples, n_features)
    y : array of shape (n_samples,): float64 for regression; for classification int64,
        float64 or str as the labels were written.
    feature_names, label_name : column names (``x1, x2, ...`` and ``label`` without header).
    task : "classification" or "regression".
    classes : sorted distinct labels (classification) or None.
    has_header : whether the first row was read as a header.
    """

    X: NDArray[np.float64]
    y: NDArray
    feature_names: tuple[str, ...]
    label_name: str
    task: Task
    classes: NDArray | None = None
    has_header: bool = True

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]


_LABEL_NAMES = ("label", "y", "target", "class")
_MISSING = {"nan", "na", "n/a", "null", "none", "?", "-nan", "+nan"}


def _number(text: str) -> float | None:
    """The float written in ``text`` or None; '1_000' and similar Python-only forms refuse."""
    if "_" in text:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _looks_like_path(text: str) -> bool:
    """A one-line string is a path unless it is empty or, not naming a file, has delimiters."""
    if not text or "\n" in text or "\r" in text:
        return False
    return os.path.exists(text) or not any(d in text for d in ",;\t")


_NOT_TEXT = ("The file is not text (it contains NUL bytes): save the table as "
             "“CSV UTF-8” and upload that file.")

#: Characters of one line of a CSV: 51 columns of long cells fit many times over; a
#: longer line is refused before the CSV parser splits it (a one-line file of millions
#: of cells would otherwise be split in full before its width is checked).
MAX_LINE_CHARS = 100_000


def _size_text(n_bytes: int) -> str:
    """A size as a browser's file chooser shows it (1 MB = 1,000,000 bytes)."""
    return f"{n_bytes / 1e6:.1f} MB" if n_bytes >= 10 ** 6 else f"{n_bytes:,} bytes"


def _too_big(size: int | None, max_bytes: int) -> DataError:
    what = f"is {_size_text(size)}" if size is not None else \
        f"is larger than {_size_text(max_bytes)}"
    return DataError(f"The file {what}; the lab reads CSV files of at most "
                     f"{_size_text(max_bytes)}. Upload a random subset of its rows.")


def _read_text(file: Any, max_bytes: int | None = None) -> str:
    """The file's text, refused (before decoding) above ``max_bytes``; a file object
    or a path is read no further than ``max_bytes + 1`` bytes."""
    cap = -1 if max_bytes is None else max_bytes + 1
    if isinstance(file, os.PathLike) or (isinstance(file, str) and _looks_like_path(file)):
        try:
            with open(file, "rb") as fh:
                data: str | bytes = fh.read(cap)
        except OSError as exc:
            raise DataError(f"Cannot read the file {os.fspath(file)!r}: "
                            f"{exc.strerror or exc}.") from exc
    elif isinstance(file, str | bytes | bytearray | memoryview):
        data = file if isinstance(file, str) else bytes(file)
    elif hasattr(file, "read"):
        if hasattr(file, "seek"):
            try:
                file.seek(0)  # Streamlit reruns re-read the same UploadedFile
            except (OSError, ValueError):
                pass
        data = file.read(cap)
    else:
        raise DataError(f"Expected a path, CSV text, bytes or a file object, got "
                        f"{type(file).__name__}.")
    if max_bytes is not None:
        size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
        if size > max_bytes:
            exact = isinstance(file, str | bytes | bytearray | memoryview) and \
                not (isinstance(file, str) and _looks_like_path(file))
            raise _too_big(size if exact else None, max_bytes)
    if isinstance(data, str):
        text = data.lstrip("\ufeff")
    elif (utf16 := _utf16_codec(data)) is not None:
        # Excel's "Unicode text" and some Windows tools
        try:
            text = data.decode(utf16).lstrip("\ufeff")
        except UnicodeDecodeError as exc:
            raise DataError("The file looks like UTF-16 text but does not decode as such. "
                            "Save it as “CSV UTF-8” and upload it again.") from exc
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")  # e.g. an old Excel export; never fails
    # NUL is valid UTF-8, so a binary file can decode: no text file has one
    if "\x00" in text:
        raise DataError(_NOT_TEXT)
    return text


def _utf16_codec(data: bytes) -> str | None:
    """"utf-16" (with BOM), "utf-16-le"/"-be" (NUL in every other byte of the first
    line) or None."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    head = data[:200]
    if len(head) >= 4 and head.count(0) >= len(head) // 3:
        even, odd = head[0::2].count(0), head[1::2].count(0)
        if odd > 2 * even:
            return "utf-16-le"
        if even > 2 * odd:
            return "utf-16-be"
    return None


def _clip(text: Any, limit: int = 40) -> str:
    """A cell or header quoted in a message: one line, at most ``limit`` characters."""
    t = "".join(" " if ord(ch) < 32 else ch for ch in str(text)[:limit + 1])
    return t if len(t) <= limit else t[:limit - 1] + "…"


def _names_text(names: list[str], limit: int = 8, quote: bool = True) -> str:
    """Column names for a message: clipped, at most ``limit`` of them."""
    q = "'" if quote else ""
    shown = ", ".join(f"{q}{_clip(n, 24)}{q}" for n in names[:limit])
    return shown + (f", … ({len(names)} columns)" if len(names) > limit else "")


def _first_line_span(text: str) -> tuple[int, int]:
    """Start and end of the first line with something other than white space ((0, 0)
    if none), found without splitting or copying the text."""
    m = re.search(r"\S", text)
    if m is None:
        return 0, 0
    i = m.start()
    start = max(text.rfind("\n", 0, i), text.rfind("\r", 0, i)) + 1
    ends = [e for e in (text.find("\n", i), text.find("\r", i)) if e >= 0]
    return start, min(ends) if ends else len(text)


def _delimiter(text: str) -> str:
    start, end = _first_line_span(text)
    counts = {d: text.count(d, start, end) for d in (",", ";", "\t")}
    best = max(counts, key=counts.__getitem__)
    return best if counts[best] else ","


def _line_ends(text: str) -> Iterable[int]:
    """Where each line of ``text`` ends (after \\n, \\r\\n or a lone \\r, and at the end of
    the text), found with ``str.find``: a line of millions of characters costs one scan."""
    size, end = len(text), 0
    nl, cr = text.find("\n"), text.find("\r")
    while nl >= 0 or cr >= 0:
        if cr < 0 or 0 <= nl < cr:
            end = nl + 1
        else:
            end = cr + 2 if nl == cr + 1 else cr + 1
        yield end
        if 0 <= nl < end:
            nl = text.find("\n", end)
        if 0 <= cr < end:
            cr = text.find("\r", end)
    if end < size:
        yield size


def _too_wide(row: int, n_cells: int, max_cells: int, first: bool, exact: bool = True
              ) -> DataError:
    """The refusal of a row with more cells than a file may have columns."""
    many = f"{n_cells - 1:,}" if exact else f"about {n_cells - 1:,}"
    if first:
        return DataError(f"The file has {many} feature columns; the limit is "
                         f"{max_cells - 1}. Keep fewer columns.")
    return DataError(f"Row {row} has {n_cells:,} cells; a row has at most {max_cells} "
                     f"({max_cells - 1} feature columns and a label). Make every row the "
                     "same length as the first.")


def _lines(text: str, delimiter: str, max_cells: int, max_lines: int,
           rows_so_far: list) -> Iterable[str]:
    """The text's lines for the CSV reader, each checked before the reader splits it:
    a line over :data:`MAX_LINE_CHARS` is refused (as too wide when its delimiters say
    so), and so is a file of more than ``max_lines`` lines (a flood of blank ones)."""
    start, n = 0, 0
    # the lines as io.StringIO(text, newline="") gives them (ending after \n, \r\n or a
    # lone \r), each measured before it is copied out of the text
    for end in _line_ends(text):
        if end <= start:
            break
        n += 1
        if n > max_lines:
            raise DataError(f"The file has more than {max_lines:,} lines, most of them "
                            "blank or too many rows. Delete the blank rows, or upload a "
                            "random subset of the rows.")
        if end - start > MAX_LINE_CHARS:
            n_cells = text.count(delimiter, start, end) + 1
            if n_cells > max_cells:
                raise _too_wide(n, n_cells, max_cells, first=not rows_so_far,
                                exact=text.find('"', start, end) < 0)
            raise DataError(f"Row {n} is {end - start:,} characters long; the lab reads "
                            f"rows of at most {MAX_LINE_CHARS:,}. Check that the file has "
                            "one point per line, or shorten its long cells.")
        yield text[start:end]
        start = end


def _rows(text: str, limit: int, max_cells: int | None = None
          ) -> list[tuple[int, list[str]]]:
    """(spreadsheet row number, stripped cells) of the first ``limit`` non-blank rows.

    No row is split further than needed to know it is refused: a line longer than
    :data:`MAX_LINE_CHARS` never reaches the CSV parser, and a row of more than
    ``max_cells`` cells stops the reading."""
    delimiter = _delimiter(text)
    out: list[tuple[int, list[str]]] = []
    cells_cap = max_cells if max_cells is not None else MAX_LINE_CHARS
    lines = _lines(text, delimiter, cells_cap, 2 * limit + 1000, out)
    reader = csv.reader(lines, delimiter=delimiter)
    start = 1
    try:
        for cells in reader:
            if len(cells) > cells_cap:
                raise _too_wide(start, len(cells), cells_cap, first=not out)
            cells = [c.strip() for c in cells]
            if any(cells):
                out.append((start, cells))
                if len(out) >= limit:
                    break
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(f"Row {start}: the file is not valid CSV ({exc}). Check the quotes "
                        "on that row.") from exc
    return out


def _is_header(first: list[str], second: list[str] | None) -> bool:
    """Header when every cell of the first row is text, or some text cell sits above a number."""
    text = [_number(c) is None or c.lower() in _MISSING for c in first]
    if not any(text):
        return False
    if all(text) or second is None:
        return True
    return any(t and j < len(second) and _number(second[j]) is not None
               and second[j].lower() not in _MISSING
               for j, t in enumerate(text))


def _column_index(label_column: Any, names: list[str], has_header: bool) -> int:
    d = len(names)
    if label_column is None:
        lowered = [nm.lower() for nm in names]
        if has_header:
            for cand in _LABEL_NAMES:
                if cand in lowered:
                    return lowered.index(cand)
        return d - 1
    if isinstance(label_column, Integral) and not isinstance(label_column, bool):
        j = int(label_column)
        if not -d <= j < d:
            raise DataError(f"label_column={j} is out of range: the file has {d} columns "
                            f"(use 0..{d - 1} or -1 for the last).")
        return j % d
    if isinstance(label_column, str):
        lowered = [nm.lower() for nm in names]
        if not has_header:
            raise DataError(f"label_column={label_column!r} names a column, but the file has "
                            "no header row; give the column's index instead (0 = first).")
        if label_column.lower() not in lowered:
            raise DataError(f"There is no column named '{_clip(label_column)}'; the columns "
                            f"are {_names_text(names)}.")
        return lowered.index(label_column.lower())
    raise DataError(f"label_column must be None, a column name or an index, got "
                    f"{label_column!r}.")


def _where(row: int, j: int, names: list[str]) -> str:
    return f"Row {row}, column {j + 1} ('{_clip(names[j])}')"


def _cell_value(text: str, row: int, j: int, names: list[str], what: str) -> float:
    """Parse one numeric cell or raise a DataError saying where and what to do."""
    where = _where(row, j, names)
    if text == "":
        raise DataError(f"{where}: the cell is empty. Fill it in or delete the row.")
    if text.lower() in _MISSING:
        raise DataError(f"{where}: missing value '{_clip(text)}'. Fill it in or delete the "
                        "row.")
    value = _number(text)
    if value is None:
        hint = (" Use a dot as the decimal separator." if "," in text and
                _number(text.replace(",", ".")) is not None else "")
        raise DataError(f"{where}: '{_clip(text)}' is not a number, but {what} must be "
                        "numeric."
                        f"{hint} Correct the cell or delete the row.")
    if not math.isfinite(value):
        raise DataError(f"{where}: '{_clip(text)}' is not a finite number. Replace it with a "
                        "finite "
                        "value or delete the row.")
    return value


def load_csv(file: str | os.PathLike | bytes | IO[Any], *, task: Task = "classification",
             label_column: str | int | None = None, header: bool | None = None,
             max_rows: int = 20000, max_features: int = 50, max_classes: int = 20,
             max_bytes: int | None = None) -> LoadedData:
    """Read a CSV of numeric features and one label column, checking everything.

    Parameters
    ----------
    file : path, CSV text, bytes, or a file-like object (e.g. Streamlit's UploadedFile)
        A one-line ``str`` is a path unless it is empty or has a delimiter and names no
        file. Delimiter ``,``, ``;`` or tab
        (whichever the first row uses most); blank rows are skipped.
    task : "classification" or "regression"
    label_column : column name (case-insensitive), 0-based index (negative from the end),
        or None: the column named label, y, target or class, else the last column.
    header : True / False, or None to detect: the first row is a header when all its
        cells are text, or when one of its text cells sits above a number.
    max_rows, max_features : size limits (data rows, feature columns).
    max_classes : more distinct labels than this in a classification file is refused
        (it is probably a regression target).
    max_bytes : a larger file is refused before it is decoded (a path or file object is
        read no further than this); None for no limit.

    A file much wider than ``max_features`` is refused before it is split in full: no
    line longer than :data:`MAX_LINE_CHARS` characters, and no row after the first with
    more cells than ``max_features + 1``, reaches the CSV parser's cell lists.

    Returns
    -------
    LoadedData

    Raises
    ------
    DataError
        Naming the spreadsheet row (1-based, header counted), the column, the bad value and
        what to do.
    """
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}.")
    for name, value, low in (("max_rows", max_rows, 2), ("max_features", max_features, 1),
                             ("max_classes", max_classes, 2)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    # header + max_rows data rows + one more to tell that the limit is exceeded
    if max_bytes is not None and (isinstance(max_bytes, bool) or
                                  not isinstance(max_bytes, Integral) or max_bytes < 1):
        raise ValueError(f"max_bytes must be None or an integer >= 1, got {max_bytes!r}.")
    rows = _rows(_read_text(file, max_bytes), limit=max_rows + 2,
                 max_cells=max_features + 1)
    if not rows:
        raise DataError("The file is empty. Upload a CSV with one row per point: feature "
                        "columns and a label column.")
    first = rows[0][1]
    has_header = (_is_header(first, rows[1][1] if len(rows) > 1 else None)
                  if header is None else bool(header))
    d_all = len(first)
    if has_header:
        names = [c if c else f"column {j + 1}" for j, c in enumerate(first)]
        data = rows[1:]
    else:
        names = [f"x{j + 1}" for j in range(d_all)]
        data = rows
    if d_all < 2:
        raise DataError(f"Row {rows[0][0]} has a single column; the file needs at least one "
                        "feature column and a label column, separated by commas.")
    j_label = _column_index(label_column, names, has_header)
    if not has_header:
        names[j_label] = "label"
        names[:j_label] = [f"x{j + 1}" for j in range(j_label)]
        names[j_label + 1:] = [f"x{j}" for j in range(j_label + 1, d_all)]
    if d_all - 1 > max_features:
        raise DataError(f"The file has {d_all - 1} feature columns; the limit is {max_features}."
                        " Keep fewer columns.")
    if len(data) > max_rows:
        raise DataError(f"The file has more than {max_rows} data rows (the limit). "
                        "Upload a random subset.")
    if len(data) < 2:
        raise DataError(f"The file has {len(data)} data row(s); at least 2 are needed.")
    feats = [j for j in range(d_all) if j != j_label]
    X = np.empty((len(data), len(feats)))
    labels: list[str] = []
    for i, (row, cells) in enumerate(data):
        if len(cells) != d_all:
            ref = "the header" if has_header else f"row {rows[0][0]}"
            raise DataError(f"Row {row} has {len(cells)} cells but {ref} has {d_all} "
                            f"columns ({_names_text(names, quote=False)}). Make every row the same "
                            "length.")
        for k, j in enumerate(feats):
            X[i, k] = _cell_value(cells[j], row, j, names, "a feature")
        labels.append(cells[j_label])
    label_name = names[j_label]
    feature_names = tuple(names[j] for j in feats)
    rows_span = f"rows {data[0][0]}-{data[-1][0]}"

    if task == "regression":
        y = np.array([_cell_value(t, row, j_label, names, "a regression target")
                      for (row, _), t in zip(data, labels, strict=True)])
        return LoadedData(X, y, feature_names, label_name, task, None, has_header)

    for (row, _), t in zip(data, labels, strict=True):
        if t == "" or t.lower() in _MISSING:
            raise DataError(f"{_where(row, j_label, names)}: the label is missing "
                            f"('{_clip(t)}'). Fill it in or delete the row.")
    y = _typed_labels(labels)
    classes = np.unique(y)
    if classes.size < 2:
        raise DataError(f"Column {j_label + 1} ('{_clip(label_name)}') has only one class, "
                        f"'{_clip(classes[0])}', in all {len(y)} data rows ({rows_span}); a "
                        "classifier needs points of at least two classes.")
    if classes.size > max_classes:
        raise DataError(f"Column {j_label + 1} ('{_clip(label_name)}') has {classes.size} "
                        "distinct "
                        f"labels ({rows_span}); the limit is {max_classes}. This looks like a "
                        "regression target: choose the regression task, or pick the right "
                        "label column.")
    return LoadedData(X, y, feature_names, label_name, task, classes, has_header)


def _typed_labels(labels: list[str]) -> NDArray:
    values = [_number(t) for t in labels]
    if any(v is None or not math.isfinite(v) for v in values):
        return np.array(labels, dtype=str)
    arr = np.array(values, dtype=np.float64)
    if np.all(arr == np.round(arr)) and np.all(np.abs(arr) < 2 ** 53):
        return arr.astype(np.int64)
    return arr


def to_pm1(y: ArrayLike) -> tuple[NDArray[np.int64], NDArray]:
    """Map two classes to -1 / +1: the smaller (sorted) class to -1, the other to +1.

    Returns
    -------
    y_pm1 : int64 array of -1 and +1
    classes : the two original classes, ``classes[0] -> -1``, ``classes[1] -> +1``
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise DataError(f"y must be one-dimensional, got shape {y.shape}.")
    classes = np.unique(y)
    if classes.size != 2:
        shown = ", ".join(_clip(c.item() if isinstance(c, np.generic) else c, 20)
                          for c in classes[:5]) + (", …" if classes.size > 5 else "")
        raise DataError(f"the label column has {classes.size} classes ({shown}), but "
                        "mapping to -1/+1 needs exactly two. Pick a binary label column, or "
                        "keep the rows of two classes only.")
    return np.where(y == classes[1], 1, -1).astype(np.int64), classes


def _fmt(value: Any, precision: int | None) -> str:
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        v = float(value)
        return repr(v) if precision is None else format(v, f".{precision}g")
    return _cell_text(str(value))


# A text cell that starts with one of these is run as a formula by spreadsheet programs
# (CSV injection): an uploaded header such as "=HYPERLINK(...)" would come back live in
# the exported file. Such cells get a leading apostrophe, which spreadsheets hide and
# which keeps the text (not a formula) when the file is read back here.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell_text(text: str) -> str:
    if not text.startswith(_FORMULA_START):
        return text
    try:
        float(text)  # "-1" is a number, not a formula
        return text
    except ValueError:
        return "'" + text


def dataset_to_csv(X: ArrayLike, y: ArrayLike, *, feature_names: Iterable[str] | None = None,
                   label_name: str = "label", precision: int | None = None) -> str:
    """CSV text (header row, then one row per point) that :func:`load_csv` reads back.

    Parameters
    ----------
    X : array of shape (n_samples, n_features), finite
    y : array of shape (n_samples,): numbers or class names
    feature_names : defaults to ``x1, x2, ...``
    label_name : header of the last column
    precision : significant digits; None writes every float exactly (shortest round trip).

    Text cells (names, class labels) that a spreadsheet would run as a formula are written
    with a leading apostrophe; numbers (also '-1' as text) are written as they are.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    y = np.asarray(y)
    if X.ndim != 2 or y.ndim != 1 or len(y) != len(X):
        raise ValueError(f"X must be (n, d) and y (n,); got shapes {X.shape} and {y.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values; a CSV of them would not load.")
    names = [f"x{j + 1}" for j in range(X.shape[1])] if feature_names is None \
        else [str(nm) for nm in feature_names]
    if len(names) != X.shape[1]:
        raise ValueError(f"{len(names)} feature names for {X.shape[1]} columns.")
    if precision is not None and (isinstance(precision, bool) or
                                  not isinstance(precision, Integral) or precision < 1):
        raise ValueError(f"precision must be None or an integer >= 1, got {precision!r}.")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([_cell_text(nm) for nm in (*names, str(label_name))])
    y_list = y.tolist()
    for row, label in zip(X.tolist(), y_list, strict=True):
        writer.writerow([*(_fmt(v, precision) for v in row), _fmt(label, precision)])
    return out.getvalue()
