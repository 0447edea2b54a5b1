"""Where a process finds the class store (nplk_lab/serve/class_room.py): the setting
``NPLK_LAB_CLASS_STORE`` (what ``nplk-lab classroom`` passes every worker, ``--store``
overriding its folder), else the lab's cache folder; one store per process, opened again
when the setting changes; the purge at most once a minute."""

from __future__ import annotations

import time

import pytest

from nplk_lab.serve import class_room
from nplk_lab.serve.class_store import ClassStore, UnknownClass
from nplk_lab.serve.command import parse


def test_the_setting_names_the_store_and_the_default_is_the_cache_folder(tmp_path,
                                                                          monkeypatch):
    monkeypatch.delenv(class_room.ENV, raising=False)
    monkeypatch.setenv("NPLK_LAB_CACHE_DIR", str(tmp_path / "cache"))
    assert class_room.where() == str(tmp_path / "cache" / "classes")
    monkeypatch.setenv(class_room.ENV, str(tmp_path / "a"))
    a = class_room.store()
    assert class_room.store() is a
    a = ClassStore(tmp_path / "a")          # its own handle: the module's is closed below
    code = a.start_class("L1").code
    monkeypatch.setenv(class_room.ENV, str(tmp_path / "b"))
    b = class_room.store()
    assert b is not a and b.backend == "sqlite"
    with pytest.raises(UnknownClass):            # another store: not its class
        b.state(code)
    assert a.state(code).code == code


def test_purge_runs_at_most_once_a_minute(tmp_path, monkeypatch):
    monkeypatch.setenv(class_room.ENV, str(tmp_path / "p"))
    store = class_room.store()
    # kept a day (the default, the end of today, is within the hour just before midnight)
    first = store.start_class("L1", idle_timeout_s=60, retention_s=86400).code
    later = time.time() + 3600
    class_room.tidy(later, force=True)
    assert store.state(first).ended
    second = store.start_class("L1", idle_timeout_s=60, retention_s=86400).code
    class_room.tidy(later)                       # within the minute: skipped
    assert not store.state(second).ended
    class_room.tidy(later, force=True)
    assert store.state(second).ended


def test_classroom_takes_a_store_option():
    _, ns, _ = parse(["classroom", "--store", "postgresql://lab@db/classes"])
    assert ns.store == "postgresql://lab@db/classes"
    _, ns, _ = parse(["classroom"])
    assert ns.store is None
