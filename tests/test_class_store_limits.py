"""The class store's limits, on SQLite and PostgreSQL (the fixtures of
``test_class_store.py``): a class's size, set by its teacher; wrong join codes per client
address, typed or in a link; and what a class of 300 behind one campus NAT address needs
(every student in, typos and all, within 2 minutes of the store's clock)."""

from __future__ import annotations

import random

import pytest
from _class_store import T0, rows, seat

from nplk_lab.serve.class_store import ClassOver, TooMany, UnknownClass
from nplk_lab.serve.class_store_rules import (
    CODE_ALPHABET,
    DEFAULT_CLASS_SIZE,
    JOIN_WINDOW_S,
    MAX_FAILED_JOINS,
    MAX_STUDENTS,
)


def wrong_code(rng: random.Random, real: str) -> str:
    """A code as a student mistypes it: one character changed."""
    i = rng.randrange(len(real))
    c = rng.choice([c for c in CODE_ALPHABET if c != real[i]])
    return real[:i] + c + real[i + 1:]


def test_the_class_size_is_the_teachers(store):  # noqa: F811
    t = seat()
    st = store.start_class(1, seat=t, size=3)
    assert store.state(st.code).size == 3
    assert store.start_class(1).code and store.state(store.start_class(1).code).size == \
        DEFAULT_CLASS_SIZE
    joined = [seat() for _ in range(3)]
    for s in joined:
        store.join(st.code, seat=s)
    with pytest.raises(TooMany, match=r"full \(3 students\): your teacher can make it "
                                      "larger"):
        store.join(st.code, seat=seat())
    assert store.join(st.code, seat=joined[0]).again     # a student of it comes back in
    v = store.state(st.code).count_version
    grown = store.resize(st.code, t, 4)
    assert (grown.size, grown.count_version) == (4, v + 1)
    store.join(st.code, seat=seat())
    with pytest.raises(TooMany):
        store.join(st.code, seat=seat())
    store.resize(st.code, t, 1)                      # fewer than joined: no one is sent out
    assert store.state(st.code).students == 4
    assert store.start_class(1, size=MAX_STUDENTS).code
    store.end(st.code, t)
    with pytest.raises(ClassOver):
        store.resize(st.code, t, 10)


def test_wrong_codes_are_limited_per_client_address_typed_or_in_a_link(store, clock):  # noqa: F811
    room = store.start_class(1)
    elsewhere = store.start_class(1)
    store.join(room.code, seat=seat(), client="10.0.0.1")    # the room is in
    wrong = ["", "x", "ABC", 12345, "O0O0O0O0", room.code + "2", "ZZZZZZZZ"]
    for i in range(MAX_FAILED_JOINS):
        try_ = (store.join if i % 2 else store.enter)         # typed, or a link
        with pytest.raises(UnknownClass, match="no class with this code"):
            try_(wrong[i % len(wrong)], seat=seat(), client="10.0.0.1")
    for bad in ("ZZZZZZZZ", elsewhere.code):       # past the limit: no other class is found
        with pytest.raises(TooMany, match="Too many wrong codes.*10 min"):
            store.join(bad, seat=seat(), client="10.0.0.1")
        with pytest.raises(TooMany):
            store.enter(bad, seat(), client="10.0.0.1")
    # ... but the room's class: the correct code always joins there
    for _ in range(5):
        assert not store.join(room.code, seat=seat(), client="10.0.0.1").again
    assert store.enter(room.code, seat(), client="10.0.0.1").role == "visitor"
    store.join(elsewhere.code, seat=seat(), client="10.0.0.2")   # others are not held back
    clock.t += JOIN_WINDOW_S
    store.join(elsewhere.code, seat=seat(), client="10.0.0.1")   # a new window


def test_joins_that_work_do_not_count_as_wrong_codes(store):  # noqa: F811
    st = store.start_class(1)
    for _ in range(MAX_FAILED_JOINS - 1):
        with pytest.raises(UnknownClass):
            store.join("ZZZZZZZZ", seat=seat(), client="c")
    for _ in range(MAX_FAILED_JOINS + 1):
        store.join(st.code, seat=seat(), client="c")
        store.enter(st.code, seat(), client="c")
    with pytest.raises(UnknownClass):
        store.join("ZZZZZZZZ", seat=seat(), client="c")
    with pytest.raises(TooMany):
        store.enter("ZZZZZZZZ", seat(), client="c")


def test_a_browser_already_in_the_class_is_not_counted_again(store):  # noqa: F811
    st = store.start_class(1)
    s = seat()
    store.join(st.code, seat=s, client="c")
    before = rows(store, "join_failures")
    for _ in range(3 * MAX_FAILED_JOINS):            # a student's page reruns
        assert store.enter(st.code, s, client="c").role == "student"
    assert rows(store, "join_failures") == before == []


def test_a_class_of_300_behind_one_address_joins_in_2_minutes_typos_and_all(store, clock):  # noqa: F811
    """One campus NAT address; every student types the code, one in eight makes a typo
    first (more than the limit of wrong codes in all), some open the link twice."""
    rng = random.Random(0)
    t = seat()
    st = store.start_class(1, seat=t, size=300)
    nat = "192.0.2.10"
    typos = 0
    browsers = [seat() for _ in range(300)]
    for i, b in enumerate(browsers):
        clock.t = T0 + 120 * i / 300                   # 300 students in 2 minutes
        if rng.random() < 1 / 8:
            typos += 1
            with pytest.raises((UnknownClass, TooMany)):
                store.join(wrong_code(rng, st.code), seat=b, client=nat)
        store.enter(st.code, b, client=nat)          # the link
        assert not store.join(st.code.lower(), seat=b, client=nat).again
        if rng.random() < 0.1:
            assert store.join(st.code, seat=b, client=nat).again   # a second tab
    assert typos > MAX_FAILED_JOINS
    assert store.state(st.code).students == 300
    assert clock.t - T0 < 120
