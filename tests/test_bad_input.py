"""The bad-input corpus (``tests/bad_input/``): every file loads to a readable message
(plain text that names what is wrong and what to do) or, for the files the lab can
read after all (UTF-16), to data. Plus the caps on what a link or a configuration can
make the server do: depth, size and the number of notes.

The pages show these messages through ``nplk_lab.ui.safe_text`` (tested with AppTest in
``test_app.py``); here the core alone, without Streamlit.
"""

import csv
import io
import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

import nplk_core.datasets as datasets
import nplk_lab.model as lab
from nplk_core.datasets import csv_files

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "bad_input"
EVIL = ("[Session expired – log in](http://evil.example) ![x](http://evil.example/x.png) "
        "<img src=x>")

# file -> (level, pieces naming what is wrong, pieces saying what to do);
# level None: the file loads (the message list may hold notes).
EXPECTED = {
    "binary.csv": ("error", ["not text"], ["CSV UTF-8"]),
    "empty.csv": ("error", ["empty"], ["Upload a CSV"]),
    "hostile_cell.csv": ("error", ["Row 3", "column 2", "not a number"],
                         ["Correct the cell"]),
    "hostile_header.csv": ("error", ["Row 3", "column 1", "'abc' is not a number"],
                           ["Correct the cell"]),
    "long_header.csv": ("error", ["Row 3", "column 1", "empty"], ["Fill it in"]),
    "not_a_table.txt": ("error", ["1 data row"], ["at least 2"]),
    # NUL is valid UTF-8: a file with one before each line end decoded and loaded
    "nul_line_ends.csv": ("error", ["not text"], ["CSV UTF-8"]),
    "one_class.csv": ("error", ["only one class", "'1'"], ["at least two classes"]),
    "ragged.csv": ("error", ["Row 3 has 2 cells", "3 columns"], ["same length"]),
    "three_classes.csv": ("error", ["3 classes (0, 1, 2)"], ["Pick a binary label column"]),
    "tiny_3_rows.csv": ("error", ["3 data rows", f"at least {lab.MIN_ROWS}"], ["Add rows"]),
    "six_rows.csv": (None, [], []),
    "huge_values.csv": (None, [], []),
    "utf16_bom.csv": (None, [], []),
    "utf16le_no_bom.csv": (None, [], []),
    "deep.json": ("error", ["nested 61 levels"], ["saved by NPLK Lab"]),
    "hostile_keys.json": ("warning", ["unknown setting", "sigma", "invalid"], ["kept"]),
    "many_unknown_keys.json": ("warning", ["3,000 unknown settings"], []),
    "no_params.json": ("error", ["no “params” object"], ["saved by NPLK Lab"]),
    "not_json.json": ("error", ["not valid JSON"], ["Load a file saved by NPLK Lab"]),
}


def load(path: Path) -> tuple[object, list[lab.Message]]:
    """What a page does with the file: a configuration upload or a CSV upload."""
    raw = path.read_bytes()
    if path.suffix == ".json":
        return lab.params_from_json(raw, lab.defaults())
    P = {**lab.defaults(), "dataset": "csv"}
    return lab.prepare_data(P, lab.CLASSIFICATION, csv=raw)


def assert_readable(text: str) -> None:
    """One short line of plain prose: no Python reprs, escapes, byte strings or
    mojibake, no control characters."""
    assert isinstance(text, str) and 10 <= len(text) <= 400, text
    for bad in ("np.", "array(", "Traceback", "\\x", "\\u", "\ufffd", "ÿþ", "Ã",
                "dtype", "<class"):
        assert bad not in text, (bad, text)
    assert not re.search(r"(?<![A-Za-z])b'", text), text  # a bytes repr
    assert not re.search(r"[\x00-\x1f\x7f-\x9f]", text), repr(text)


def test_every_corpus_file_has_an_expectation():
    assert sorted(p.name for p in CORPUS.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file_gives_a_readable_message(name):
    level, what, todo = EXPECTED[name]
    out, msgs = load(CORPUS / name)
    for m in msgs:
        assert_readable(m.text)
        assert m.level in ("error", "warning", "info")
    if level is None:
        assert not [m for m in msgs if m.level == "error"], msgs
        assert out is not None
        return
    assert msgs and msgs[0].level == level, msgs
    text = " ".join(m.text for m in msgs)
    for piece in what + todo:
        assert piece in text, (piece, text)
    assert len(msgs) <= lab.MAX_NOTES + 2


def test_utf16_files_load_the_same_data_as_utf8():
    P = {**lab.defaults(), "dataset": "csv"}
    text = (CORPUS / "utf16_bom.csv").read_bytes().decode("utf-16")
    ref, _ = lab.prepare_data(P, lab.CLASSIFICATION, csv=text.encode("utf-8"))
    for name in ("utf16_bom.csv", "utf16le_no_bom.csv"):
        got, _ = lab.prepare_data(P, lab.CLASSIFICATION, csv=(CORPUS / name).read_bytes())
        np.testing.assert_array_equal(got.X, ref.X)
        np.testing.assert_array_equal(got.y, ref.y)
    assert ref.X.shape == (12, 2) and ref.X_train.shape == (8, 2)  # 0.3 held out


def test_user_text_in_messages_is_clipped():
    """Headers, cells and keys are quoted at most ~40 characters long."""
    for name in ("hostile_cell.csv", "hostile_keys.json"):
        _, msgs = load(CORPUS / name)
        for m in msgs:
            assert "http://evil.example/x.png" not in m.text and "<img" not in m.text, m.text
    P = {**lab.defaults(), "dataset": "csv"}
    _, msgs = lab.prepare_data(P, csv=b"x1,x2,label\n0.1,0.2,1\n" + b"q" * 5000 + b",1,-1\n")
    assert "q" * 39 in msgs[0].text and "q" * 41 not in msgs[0].text
    _, msgs = lab.prepare_data(P, csv=b"x1," + b"L" * 5000 + b"\n0.1,1\n0.3,\n")
    assert "L" * 39 in msgs[0].text and "L" * 41 not in msgs[0].text


# ---------------------------------------------------------------------------
# caps: depth, size, number of notes
# ---------------------------------------------------------------------------

def test_deeply_nested_configuration_is_refused_without_recursion_error():
    deep = '{"params": {"sigma": ' + "[" * 100_000 + "]" * 100_000 + "}}"  # 200 KB
    _, msgs = lab.params_from_json(deep)
    assert [m.level for m in msgs] == ["error"] and "KB" in msgs[0].text
    # under the size cap but deeper than any configuration: refused before json.loads
    deep = '{"params": {"sigma": ' + "[" * 20_000 + "]" * 20_000 + "}}"
    assert len(deep) < lab.MAX_CONFIG_BYTES
    _, msgs = lab.params_from_json(deep)
    assert [m.level for m in msgs] == ["error"] and "nested 20002 levels" in msgs[0].text
    # brackets inside strings do not count
    ok = json.dumps({"params": {"sigma": 2.0, "bogus": "[" * 20 + "{" * 10}})
    new, msgs = lab.params_from_json(ok)
    assert new["sigma"] == 2.0 and [m.level for m in msgs] == ["warning"]


def test_configuration_with_100000_unknown_keys_is_one_line():
    doc = {"format": lab.CONFIG_FORMAT, "params": {f"k{i}": i for i in range(100_000)}}
    _, msgs = lab.params_from_json(json.dumps(doc))
    assert len(msgs) == 1 and msgs[0].level == "error"  # 1.3 MB: over the size cap
    doc["params"] = {f"k{i}": i for i in range(4000)} | {"sigma": 3.0, "C": 2.0}
    new, msgs = lab.params_from_json(json.dumps(doc))
    assert new["sigma"] == 3.0 and new["C"] == 2.0
    assert [m.text for m in msgs] == ["Ignored 4,000 unknown settings: “k0”, “k1”, “k2”, …."]


def test_link_with_many_bad_entries_gives_a_few_notes_and_a_count():
    names = [n for n, s in lab.settings().items() if s.kind in ("float", "int")][:12]
    query = {n: "not-a-number" for n in names} | {f"junk{i}": "1" for i in range(100_000)}
    new, msgs = lab.decode_query(query)
    assert new == lab.defaults()
    assert len(msgs) == lab.MAX_NOTES + 2
    assert msgs[lab.MAX_NOTES].text.startswith(f"{len(names) - lab.MAX_NOTES} more invalid")
    assert msgs[-1].text.startswith("Ignored 100,000 unknown link parameters")
    for m in msgs:
        assert_readable(m.text)


def test_points_far_outside_any_plot_are_refused():
    new, msgs = lab.decode_query({"points": "1e300,1e300,1;-1e300,1e300,-1"})
    assert new["points"] == () and "within ±1e+06" in msgs[0].text
    assert lab.coerce("points", "1e6,-1e6,1") == ((1e6, -1e6, 1),)
    with pytest.raises(ValueError):
        lab.coerce("points", "1.000001e6,0,1")


def test_clip_cuts_and_flattens():
    assert lab.clip("abc") == "abc"
    assert lab.clip("a" * 100, 10) == "a" * 9 + "…"
    assert lab.clip("a\nb\x00c\td") == "a b c d"
    assert len(lab.clip(EVIL)) == 40


# ---------------------------------------------------------------------------
# wide, binary and oversized uploads: refused before the work they would cause
# ---------------------------------------------------------------------------

@pytest.fixture
def parsed(monkeypatch):
    """What the CSV parser is handed and hands back during a test: characters of the
    lines it is fed and cells of the rows it yields (``csv.reader`` wrapped)."""
    seen = {"chars": 0, "cells": 0}
    real = csv.reader

    class CountingReader:
        def __init__(self, lines, *args, **kwargs):
            def fed():
                for line in lines:
                    seen["chars"] += len(line)
                    yield line
            self.reader = real(fed(), *args, **kwargs)

        @property
        def line_num(self) -> int:
            return self.reader.line_num

        def __iter__(self):
            return self

        def __next__(self) -> list[str]:
            row = next(self.reader)
            seen["cells"] += len(row)
            return row

    monkeypatch.setattr(csv_files.csv, "reader", CountingReader)
    return seen


def csv_error(raw) -> str:
    P = {**lab.defaults(), "dataset": "csv"}
    data, msgs = lab.prepare_data(P, lab.CLASSIFICATION, csv=raw)
    assert data is None and [m.level for m in msgs] == ["error"], msgs
    assert_readable(msgs[0].text)
    return msgs[0].text


def test_a_one_line_csv_of_millions_of_cells_is_refused_before_it_is_split(parsed):
    """A one-line file of 5.1 MB (4.9 MiB) was split into 2.6 million cells
    (6.7 s, +630 MB) before its width was checked: its line now never reaches the
    parser, whatever the size limit. (The lab now refuses this file by its size first;
    a 4.8 MB one reaches the width check.)"""
    with pytest.raises(datasets.DataError) as err:
        datasets.load_csv(b"4," * 2569011 + b"0\n")
    assert str(err.value) == ("The file has 2,569,011 feature columns; the limit is 50. "
                              "Keep fewer columns.")
    assert parsed["cells"] == 0 and parsed["chars"] == 0, parsed
    raw = b"4," * 2_400_000 + b"0\n"
    assert len(raw) < lab.MAX_CSV_BYTES
    text = csv_error(raw)
    assert "2,400,000 feature columns" in text and "Keep fewer columns" in text, text
    assert parsed["cells"] == 0 and parsed["chars"] == 0, parsed
    # the same with a header row: the parser stops at the first over-wide row
    text = csv_error(b"x1,x2,label\n1,2,1\n" + raw)
    assert "Row 3 has 2,400,001 cells" in text and "same length" in text, text
    assert parsed["cells"] <= 2 * 3, parsed


def test_many_wide_rows_stop_the_parser_at_the_first(parsed):
    """80 rows of 30,001 cells each (under the line limit) after a good header: the
    parser reads the header and the first wide row, not the 2.4 million cells."""
    text = csv_error(b"x1,x2,label\n" + (b"4," * 30000 + b"0\n") * 80)
    assert "Row 2 has 30,001 cells" in text and "at most 51" in text, text
    assert parsed["cells"] == 3 + 30001, parsed


def test_a_flood_of_blank_lines_is_refused_without_reading_them_all(parsed):
    raw = b"x1,x2,label\n" + b"\n" * 4_900_000 + b"1,2,1\n"
    text = csv_error(raw)
    assert "more than 41,004 lines" in text and "Delete the blank rows" in text, text
    assert parsed["chars"] <= 41_004 + len("x1,x2,label\n"), parsed


def test_a_csv_over_the_size_limit_is_refused_by_its_size():
    row = b"0.123456789,0.987654321,1\n"
    raw = b"x1,x2,label\n" + row * (6 * 10 ** 6 // len(row))
    text = csv_error(raw)
    assert "The file is 6.0 MB" in text and "at most 5.0 MB" in text, text
    assert "random subset" in text
    # a file object or a path is read no further than the limit (plus one byte)
    handle = io.BytesIO(raw)
    with pytest.raises(datasets.DataError, match="larger than 1,000 bytes"):
        datasets.load_csv(handle, max_bytes=1000)
    assert handle.tell() == 1001


def test_the_server_takes_uploads_a_little_over_the_labs_limits():
    """A file over the server's maxUploadSize never reaches the lab (in a browser: a
    bare error icon on the file). The server's limit stays above the lab's own limits,
    so a slightly too large CSV or configuration gets the lab's message, and within
    four times the CSV limit, so one session cannot park a large file in memory."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    server_mb = config["server"]["maxUploadSize"]
    assert lab.MAX_CSV_MB < server_mb <= 4 * lab.MAX_CSV_MB
    assert lab.MAX_CONFIG_BYTES < server_mb * 2 ** 20
