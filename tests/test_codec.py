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


# ---------------------------------------------------------------------------
# every kind of setting
# ---------------------------------------------------------------------------

def test_floats_are_finite_and_within_range_with_a_relative_tolerance():
    assert codec.coerce("sigma", "0.05") == 0.05 and codec.coerce("sigma", 20) == 20.0
    assert codec.coerce("sigma", 20.0 * (1 + 5e-13)) == pytest.approx(20.0)  # round-off
    assert codec.coerce("tau", 1e-4 * (1 - 5e-13)) == pytest.approx(1e-4)    # below min
    with pytest.raises(ValueError, match="above the maximum 20"):
        codec.coerce("sigma", 20.0 * (1 + 1e-11))
    with pytest.raises(ValueError, match="below the minimum 0.05"):
        codec.coerce("sigma", 0.0499999)
    with pytest.raises(ValueError, match="below the minimum 0.0001"):
        codec.coerce("tau", 0.99e-4)
    with pytest.raises(ValueError, match="below the minimum 1.01"):
        codec.coerce("admm_rho", 1.0099)               # min > 1: tolerance relative to it
    with pytest.raises(ValueError, match="below the minimum 0"):
        codec.coerce("sandwich_noise", -1e-11)        # min 0: absolute 1e-12
    assert codec.coerce("sandwich_noise", -5e-13) == pytest.approx(0.0)
    for bad in ("nan", "inf", "-inf", True, "x"):
        with pytest.raises(ValueError):
            codec.coerce("sigma", bad)


def test_float_auto_ints_and_bools():
    assert codec.coerce("eta", " AUTO ") == "auto" and codec.coerce("eta", "2.5") == 2.5
    with pytest.raises(ValueError, match="below the minimum"):
        codec.coerce("eta", "0")
    with pytest.raises(ValueError):
        codec.coerce("eta", "automatic")
    assert codec.coerce("seed", "7") == 7 and isinstance(codec.coerce("seed", 7.0), int)
    assert codec.coerce("seed", "9999") == 9999
    for bad in ("7.5", "inf", "nan", True, False):
        with pytest.raises(ValueError, match="not an integer"):
            codec.coerce("seed", bad)
    with pytest.raises(ValueError, match="above the maximum 9999"):
        codec.coerce("seed", 10000)
    with pytest.raises(ValueError, match="below the minimum 20"):
        codec.coerce("n_samples", 19)
    for text, want in (("1", True), ("TRUE", True), (" yes ", True), ("on", True),
                       ("0", False), ("false", False), ("No", False), ("off", False)):
        assert codec.coerce("show_nn", text) is want
    import numpy as np
    assert codec.coerce("show_nn", np.bool_(True)) is True
    assert codec.coerce("show_nn", False) is False
    with pytest.raises(ValueError, match="not a yes/no value"):
        codec.coerce("show_nn", "maybe")


def test_choices_ranges_and_tokens():
    assert codec.coerce("pair_lines", "25") == 25 and codec.coerce("dataset", "moons") == "moons"
    with pytest.raises(ValueError, match="not one of clowns, sandwich"):
        codec.coerce("dataset", "iris")
    assert codec.coerce("sweep_range", "0.5~2") == (0.5, 2.0)
    assert codec.coerce("sweep_range", [1, 3]) == (1.0, 3.0)
    assert codec.coerce("sweep_range", "") == () and codec.coerce("sweep_range", []) == ()
    assert codec.coerce("sweep_range", None) == ()
    with pytest.raises(ValueError, match="two values"):
        codec.coerce("sweep_range", "1~2~3")
    with pytest.raises(ValueError, match="lo < hi"):
        codec.coerce("sweep_range", "2~2")
    assert codec.coerce("my_lesson", "aZ0-_") == "aZ0-_" and codec.coerce("my_lesson", None) == ""
    with pytest.raises(ValueError, match="not text"):
        codec.coerce("my_lesson", 5)
    with pytest.raises(ValueError, match="longer than 6000 characters"):
        codec.coerce("my_lesson", "a" * 6001)
    assert len(codec.coerce("my_lesson", "a" * 6000)) == 6000
    for bad in ("a b", "a+b", "é", "a/b"):
        with pytest.raises(ValueError, match="other than letters"):
            codec.coerce("my_lesson", bad)


def test_to_text_is_the_exact_url_form():
    assert codec.to_text("show_nn", True) == "1" and codec.to_text("show_nn", 0) == "0"
    assert codec.to_text("sigma", 0.1) == "0.1" and codec.to_text("eta", "auto") == "auto"
    assert codec.to_text("eta", 3) == "3.0" and codec.to_text("seed", 7.0) == "7"
    assert codec.to_text("sweep_range", (0.5, 2)) == "0.5~2.0"
    assert codec.to_text("sweep_range", ()) == ""
    assert codec.to_text("dataset", "moons") == "moons" and codec.to_text("pair_lines", 25) == "25"
    for name, value in (("sigma", 1 / 3), ("sweep_range", (0.1, 0.7)), ("seed", 42)):
        assert codec.coerce(name, codec.to_text(name, value)) == value


def test_relevant_names_follow_the_page_method_and_dataset():
    names = codec.relevant_names("classification", {"method": "onk", "dataset": "moons"})
    assert {"onk_rho", "onk_solver", "moons_noise", "sigma", "C"} <= set(names)
    assert not {"tau", "gamma", "clowns_spread", "reg_method", "step_s"} & set(names)
    assert "view" in names and "epsilon" not in names
    reg = codec.relevant_names("regression", {"reg_method": "dank_svr", "reg_dataset": "chirp"})
    assert {"tau", "epsilon", "chirp_f0"} <= set(reg) and "step_s" not in reg
    sens = codec.relevant_names("sensitivity", {"sweep_method": "svr", "reg_dataset": "step",
                                                "dataset": "moons"})
    assert "step_s" in sens and "moons_noise" not in sens and "tau" not in sens
    sens_c = codec.relevant_names("sensitivity", {"sweep_method": "dank", "dataset": "moons"})
    assert "moons_noise" in sens_c and "tau" in sens_c and "step_s" not in sens_c
    pair = codec.relevant_names("pairwise")
    assert {"npkl_C", "B", "clowns_spread"} <= set(pair) and "method" not in pair
    assert codec.relevant_names("classification") == codec.relevant_names(
        "classification", st.defaults())
    scaling = codec.relevant_names("scaling", {"method": "svm"})
    assert "tau" not in scaling or "scale_clusters" in scaling
    assert "scale_clusters" in scaling


def test_encode_query_writes_only_known_names_it_has():
    p = {**st.defaults(), "sigma": 0.5, "unknown": 3}
    q = codec.encode_query(p, ["sigma", "unknown", "points", "nope"])
    assert q == {"sigma": "0.5", "points": ""}
    full = codec.encode_query({"sigma": 2.0, "other": 1})
    assert full == {"sigma": "2.0"}


# ---------------------------------------------------------------------------
# reading links and configurations: never raises, says what it ignored
# ---------------------------------------------------------------------------

def test_decode_query_messages_are_few_and_exact():
    base = {**st.defaults(), "sigma": 1.0}
    params, msgs = codec.decode_query({"sigma": ["3", "0.5"], "embed": "true",
                                       "seed": "7.5"}, base)
    assert params["sigma"] == 0.5 and params["seed"] == base["seed"]
    assert [m.text for m in msgs] == [
        f"Link parameter seed=“7.5” is invalid (not an integer); kept "
        f"{st.setting('seed').format(base['seed'])}."]
    assert msgs[0].level == "warning"
    params, msgs = codec.decode_query({"sigma": []}, base)
    assert params["sigma"] == 1.0 and "sigma=“”" in msgs[0].text
    params, msgs = codec.decode_query({"bogus": "1"})
    assert [m.text for m in msgs] == ["Ignored unknown link parameter “bogus”."]
    assert params == st.defaults()
    _, msgs = codec.decode_query({"a": 1, "b": 2, "c": 3, "d": 4})
    assert [m.text for m in msgs] == ["Ignored 4 unknown link parameters: “a”, “b”, “c”, …."]
    _, msgs = codec.decode_query({"a": 1, "b": 2})
    assert [m.text for m in msgs] == ["Ignored 2 unknown link parameters: “a”, “b”."]


def test_only_five_invalid_values_are_named_and_the_rest_counted():
    q = {k: "garbage" for k in ("sigma", "C", "tau", "seed", "n_samples", "test_size", "eta")}
    params, msgs = codec.decode_query(q)
    assert params == st.defaults()
    assert len(msgs) == codec.MAX_NOTES + 1
    assert all("is invalid" in m.text for m in msgs[:codec.MAX_NOTES])
    assert msgs[-1].text == ("2 more invalid link parameters were ignored (their settings "
                             "kept their values).")
    _, five = codec.decode_query(dict(list(q.items())[:5]))
    assert len(five) == 5 and all("is invalid" in m.text for m in five)


def test_invalid_value_notes_quote_the_value_short():
    _, msgs = codec.decode_query({"sigma": "9" * 300})
    assert msgs[0].text.startswith("Link parameter sigma=“" + "9" * 39 + "…” is invalid (")
    assert codec._short_repr("x" * 300) == "x" * 200
    assert codec._short_repr(list(range(20))) == "list of 20"
    assert codec._short_repr((1, 2)) == "(1, 2)"
    assert codec._short_repr({"a": 1}) == "{'a': 1}"
    assert codec._short_repr(list(range(8))) == repr(list(range(8)))
    assert codec._short_repr(3.5) == "3.5" and len(codec._short_repr(10 ** 300)) == 200


def test_configuration_round_trip_and_its_json():
    import numpy as np
    p = {**st.defaults(), "sigma": np.float64(0.5), "seed": np.int64(3),
         "sweep_range": (0.1, 2.0)}
    text = codec.params_to_json(p)
    doc = json.loads(text)
    assert doc["format"] == "nplk-lab-config" and doc["version"] == 1
    assert doc["params"]["sweep_range"] == [0.1, 2.0] and doc["params"]["seed"] == 3
    assert type(doc["params"]["sigma"]) is float
    assert "\n  " in text                                   # indented for a reader
    back, msgs = codec.params_from_json(text)
    assert msgs == [] and back["sigma"] == 0.5 and back["sweep_range"] == (0.1, 2.0)
    only = json.loads(codec.params_to_json(p, ["sigma", "nope"]))
    assert only["params"] == {"sigma": 0.5}
    assert json.loads(codec.params_to_json({"sigma": 1.0, "x": 1}))["params"] == {"sigma": 1.0}
    back, _ = codec.params_from_json(text.encode("utf-8-sig"))
    assert back["seed"] == 3
    base = {**st.defaults(), "C": 5.0}
    back, msgs = codec.params_from_json('{"params": {"sigma": 2, "zz": 1}}', base)
    assert back["C"] == 5.0 and back["sigma"] == 2.0
    assert [m.text for m in msgs] == ["Ignored unknown setting “zz”."]


def test_configurations_refused_before_parsing():
    base = st.defaults()
    big = "x" * (codec.MAX_CONFIG_BYTES + 1)
    params, msgs = codec.params_from_json(big)
    assert params == base and msgs[0].level == "error"
    assert msgs[0].text.startswith("The configuration is 64 KB; a lab configuration is at "
                                   "most 64 KB.")
    assert codec.params_from_json("x" * codec.MAX_CONFIG_BYTES)[1][0].text.startswith(
        "The configuration is not valid JSON")
    deep = '{"params": {"points": ' + "[" * 9 + "]" * 9 + "}}"
    _, msgs = codec.params_from_json(deep)
    assert msgs[0].text.startswith("The configuration is nested 11 levels deep; a lab "
                                   "configuration has at most 8.")
    ok_depth = '{"params": {"points": ' + "[" * 6 + "]" * 6 + "}}"
    assert "nested" not in " ".join(m.text for m in codec.params_from_json(ok_depth)[1])
    _, msgs = codec.params_from_json("[1, 2]")
    assert msgs[0].text == ("The configuration has no “params” object; was it saved by "
                            "NPLK Lab?")
    _, msgs = codec.params_from_json('{"params": [1]}')
    assert "no “params” object" in msgs[0].text
    _, msgs = codec.params_from_json(b"\xff\xfe")
    assert msgs[0].text.startswith("The configuration is not valid JSON (")
    assert msgs[0].text.endswith("Load a file saved by NPLK Lab (“Configuration (JSON)”).")


def test_nesting_depth_skips_brackets_inside_strings():
    assert codec._nesting_depth('{"a": "[[[[{{{"}') == 1
    assert codec._nesting_depth('[[], [[]], {"k": [1]}]') == 3
    assert codec._nesting_depth('{"a\\"[": [1]}') == 2
    assert codec._nesting_depth("") == 0
    assert codec._nesting_depth("]][[") == 0          # closing first never counts


def test_notes_quote_long_errors_to_80_characters_and_are_warnings():
    long_error = "not one of " + ", ".join(st.setting("sweep_method").options)
    assert len(long_error) > 81
    _, msgs = codec.decode_query({"sweep_method": "x"})
    assert msgs[0].text == (f"Link parameter sweep_method=“x” is invalid "
                            f"({st.clip(long_error, 80)}); kept "
                            f"{st.setting('sweep_method').format(st.defaults()['sweep_method'])}.")
    q = {k: "garbage" for k in ("sigma", "C", "tau", "seed", "n_samples", "test_size")}
    q.update({"zz": 1})
    _, msgs = codec.decode_query(q)
    assert [m.level for m in msgs] == ["warning"] * 7
    _, msgs = codec.decode_query({"a" * 30: 1, "b": 2, "c": 3})
    assert msgs[0].level == "warning"
    assert msgs[0].text == f"Ignored 3 unknown link parameters: “{'a' * 23}…”, “b”, “c”."
    params, _ = codec.decode_query({"sigma": ["1", "2", "3"]})
    assert params["sigma"] == 3.0                   # a repeated key: the last one wins


def test_short_repr_edges():
    assert codec._short_repr(list(range(9))) == "list of 9"
    long8 = tuple("x" * 40 for _ in range(8))
    assert codec._short_repr(long8) == repr(long8)[:200] and len(codec._short_repr(long8)) == 200


def test_configuration_messages_word_for_word():
    base = st.defaults()
    big = " " * (600 * 1024)
    _, msgs = codec.params_from_json(big)
    assert msgs[0].text == ("The configuration is 600 KB; a lab configuration is at most "
                            "64 KB. Load a file saved by NPLK Lab (“Configuration (JSON)”).")
    deep = '{"params": {"points": ' + "[" * 9 + "]" * 9 + "}}"
    _, msgs = codec.params_from_json(deep)
    assert msgs[0].level == "error" and msgs[0].text == (
        "The configuration is nested 11 levels deep; a lab configuration has at most 8. "
        "Load a file saved by NPLK Lab (“Configuration (JSON)”).")
    _, msgs = codec.params_from_json(b"\xff\xfe")
    err = "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
    assert msgs[0].level == "error" and msgs[0].text == (
        f"The configuration is not valid JSON ({st.clip(err, 80)}). Load a file saved by "
        "NPLK Lab (“Configuration (JSON)”).")
    params, msgs = codec.params_from_json("[]")
    assert msgs[0].level == "error" and params == base


def test_configuration_json_layout_and_names():
    text = codec.params_to_json({"sigma": 1.0, "seed": 2}, ["nope", "sigma", "C", "seed"])
    assert json.loads(text)["params"] == {"sigma": 1.0, "seed": 2}
    assert text.splitlines()[1] == '  "format": "nplk-lab-config",'
    assert text.splitlines()[4] == '    "sigma": 1.0,'


def test_relevant_names_drop_other_methods_settings_on_every_page():
    reg = codec.relevant_names("regression", {"reg_method": "dank_svr"})
    assert "n_support" not in reg and "lam" not in reg and "tau" in reg
    assert "n_support" in codec.relevant_names("regression", {"reg_method": "lab_rbf_reg"})
    pair = codec.relevant_names("pairwise")
    assert "C" not in pair and "sigma" not in pair and "npkl_C" in pair
    onk = codec.relevant_names("classification", {"method": "onk"})
    assert "extension" not in onk and "ablation_cv" not in onk and "eigen_index" in onk
    assert "extension" in codec.relevant_names("classification", {"method": "dank"})
    assert codec.to_text("sigma", 3) == "3.0" and codec.to_text("eta", 3) == "3.0"


@pytest.mark.parametrize("name, value, message", [
    ("sigma", True, "not a number"),
    ("sigma", "inf", "not finite"),
    ("seed", "1.5", "not an integer"),
    ("seed", True, "not an integer"),
    ("show_nn", "perhaps", "not a yes/no value"),
    ("sweep_range", "1~2~3", "a range needs two values 'lo~hi'"),
    ("sweep_range", "2~1", "the range needs lo < hi"),
    ("my_lesson", 3, "not text"),
    ("my_lesson", "a+b", "contains characters other than letters, digits, - and _"),
    ("points", "1,2", "each point needs x1, x2 and a class"),
    ("points", "1,2,3", "a point's class must be -1 or +1"),
    ("sigma", 21, "above the maximum 20"),
    ("sigma", 0.01, "below the minimum 0.05"),
])
def test_each_refusal_says_exactly_why(name, value, message):
    with pytest.raises(ValueError) as err:
        codec.coerce(name, value)
    assert str(err.value) == message


def test_an_unknown_kind_is_named_and_the_range_edges_are_tight(monkeypatch):
    import dataclasses
    odd = dataclasses.replace(st.setting("sigma"), kind="colour")
    monkeypatch.setattr(codec, "setting", lambda name: odd)
    with pytest.raises(ValueError) as err:
        codec.coerce("sigma", 1)
    assert str(err.value) == "unknown setting kind 'colour'"


def test_range_tolerance_is_1e12_of_at_least_one():
    """A value within 1e-12 · max(1, |limit|) beyond a limit is round-off and allowed
    (the limit itself is allowed, the tolerance's edge too); beyond that it is refused."""
    assert codec.coerce("sigma", 20 + 1e-12 * 20) == pytest.approx(20)      # the edge
    assert codec.coerce("sigma", 20 + 1.5e-11) == pytest.approx(20)
    with pytest.raises(ValueError):
        codec.coerce("sigma", 20 + 2.5e-11)
    assert codec.coerce("tau", 1e-4 - 1e-12 * 1.0) == pytest.approx(1e-4)  # the edge
    assert codec.coerce("tau", 1e-4 - 0.9e-12) == pytest.approx(1e-4)
    with pytest.raises(ValueError):
        codec.coerce("tau", 1e-4 - 1.5e-12)                   # |min| < 1: tolerance 1e-12
    assert codec.coerce("admm_rho", 1.01 - 1.0e-12) == pytest.approx(1.01)  # 1.01e-12
    assert codec.coerce("sandwich_noise", 0.5 + 0.9e-12) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        codec.coerce("sandwich_noise", 0.5 + 1.5e-12)
    assert codec.coerce("sigma", 20) == 20.0 and codec.coerce("n_samples", 1000) == 1000


def test_empty_and_odd_values_of_ranges_points_and_tokens():
    assert codec.coerce("sweep_range", "") == ()
    with pytest.raises(ValueError):
        codec.coerce("sweep_range", "XXXX")
    with pytest.raises(ValueError):
        codec.coerce("points", "XXXX")
    assert codec.coerce("my_lesson", "XX") == "XX"
    with pytest.raises(ValueError):
        codec.coerce("my_lesson", "a X")
