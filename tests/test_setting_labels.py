"""A setting's labels (:meth:`Setting.format`): each number or word formatted once per
setting and process, the same text as formatting it afresh."""

import dataclasses
import math

import nplk_lab.model as lab
from nplk_lab.figures import common
from nplk_lab.model import settings_table


def test_every_label_of_every_setting_is_the_text_formatted_afresh():
    for s in lab.settings().values():
        values = list(s.grid()) + [s.default, "auto", "", 0, 1, 1.0, True, -2.5e-7]
        for v in values:
            try:
                fresh = s._format(v)
            except TypeError:      # a default that is not a label (points, ranges)
                continue
            assert s.format(v) == fresh, (s.name, v)
            assert s.format(v) == fresh, (s.name, v)   # the kept label


def test_a_label_is_formatted_once_and_types_are_told_apart(monkeypatch):
    s = dataclasses.replace(lab.setting("tau"))          # a copy: no labels kept yet
    calls = []
    real = common.for_people
    monkeypatch.setattr(common, "for_people", lambda *a, **k: calls.append(a) or real(*a, **k))
    grid = s.grid()
    first = [s.format(v) for v in grid]
    assert len(calls) == len(grid)
    assert [s.format(v) for v in grid] == first
    assert len(calls) == len(grid)                       # not formatted again
    # 1 and 1.0 and True are equal keys of a dict, not the same label
    b = dataclasses.replace(lab.setting("seed"))
    assert b.format(1) == "1" and b.format(True) == "True"
    assert s.format(1.0) == real(1.0, digits=6)
    # a value no dict can keep is formatted each time, never kept
    assert s.format(math.nan) == s._format(math.nan)
    assert s.format([1, 2]) == "[1, 2]"
    assert all(not isinstance(k[1], float) or k[1] == k[1] for k in s.__dict__["_labels"])
    # the kept labels are no field: a setting equals, hashes and prints as before
    assert s == lab.setting("tau") and hash(s) == hash(lab.setting("tau"))
    assert repr(s) == repr(dataclasses.replace(s))      # a copy that kept nothing
    assert len(s.__dict__["_labels"]) <= settings_table._LABELS_KEPT
