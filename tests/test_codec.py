"""The state codec's edges (nplk_lab.model.codec), fast: every value a link or a
configuration can carry is checked the same way — finite numbers, within the setting's
range, user-added points with coordinates inside ±MAX_COORD and a class of exactly ±1 —
and what is written reads back as itself."""

from __future__ import annotations

import json

import pytest

from nplk_lab.model import codec
from nplk_lab.model import settings_table as st


@pytest.mark.parametrize("bad", ["1,2,1.5", "1,2,-1.9", "1,2,0.5", "1,2,nan", "1,2,inf",
                                 "1,2,2", "1,2,0", "1,2,-0.999999"])
def test_a_points_class_is_range_checked_not_truncated(bad):
    """y of a point must be exactly -1 or +1, like x1 and x2 must lie within ±MAX_COORD:
    a class of 1.5 or -1.9 used to be truncated to 1 or -1 and kept."""
    with pytest.raises((ValueError, OverflowError)):
        codec.coerce("points", bad)
    with pytest.raises((ValueError, OverflowError)):
        codec.coerce("points", [[1.0, 2.0, bad.split(",")[2]]])


def test_a_points_class_may_not_be_a_bool_and_exact_classes_pass():
    with pytest.raises(ValueError):
        codec.coerce("points", [[1.0, 2.0, True]])
    assert codec.coerce("points", "1,2,1;3,4,-1;5,6,1.0") == ((1.0, 2.0, 1), (3.0, 4.0, -1),
                                                            (5.0, 6.0, 1))
    assert all(isinstance(c, int) for *_, c in codec.coerce("points", "1,2,1.0"))


def test_a_link_with_a_bad_class_keeps_the_old_points_with_a_note():
    params, msgs = codec.decode_query({"points": "1,2,1.5"},
                                      {**st.defaults(), "points": ((0.0, 0.0, 1),)})
    assert params["points"] == ((0.0, 0.0, 1),)
    assert len(msgs) == 1 and "class must be -1 or +1" in msgs[0].text


@pytest.mark.parametrize("x", [codec.MAX_COORD * 1.000001, -codec.MAX_COORD * 2])
def test_coordinates_beyond_max_coord_are_refused_on_either_axis(x):
    for row in ([x, 0.0, 1], [0.0, x, 1]):
        with pytest.raises(ValueError, match="within"):
            codec.coerce("points", [row])
    assert codec.coerce("points", [[codec.MAX_COORD, -codec.MAX_COORD, 1]])


def test_points_need_three_values_and_at_most_max_points():
    with pytest.raises(ValueError, match="x1, x2 and a class"):
        codec.coerce("points", "1,2")
    many = ";".join("0,0,1" for _ in range(codec.MAX_POINTS))
    assert len(codec.coerce("points", many)) == codec.MAX_POINTS
    with pytest.raises(ValueError, match="more than"):
        codec.coerce("points", many + ";0,0,1")
    assert codec.coerce("points", "") == () and codec.coerce("points", None) == ()


def test_points_round_trip_through_the_url_and_json():
    pts = ((0.5, -1.25, 1), (3.0, 4.0, -1))
    text = codec.to_text("points", pts)
    assert text == "0.5,-1.25,1;3,4,-1"
    assert codec.coerce("points", text) == pts
    doc = json.loads(codec.params_to_json({"points": pts}))
    assert doc["params"]["points"] == [[0.5, -1.25, 1], [3.0, 4.0, -1]]
    params, msgs = codec.params_from_json(codec.params_to_json({"points": pts}))
    assert params["points"] == pts and msgs == []
