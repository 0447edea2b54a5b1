"""The lab's shared stores: one computation per key even when sessions ask at once."""

import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def test_concurrent_requests_for_one_key_compute_once():
    import lab_ui

    lab_ui.cache.clear()
    calls = []

    def compute():
        calls.append(threading.get_ident())
        time.sleep(0.4)
        return {"value": 42}

    out = [None] * 6
    def ask(i):
        out[i] = lab_ui.cached("fits", ("same-key",), compute)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(calls) == 1, calls
    assert all(o == {"value": 42} for o in out)
    assert lab_ui.cached("fits", ("same-key",), compute) == {"value": 42}
    assert len(calls) == 1
    assert not lab_ui._FLIGHTS  # no lock is left behind


def test_a_failed_computation_lets_the_next_session_try():
    import lab_ui

    lab_ui.cache.clear()
    attempts = []

    def flaky():
        attempts.append(1)
        if len(attempts) == 1:
            time.sleep(0.2)
            raise RuntimeError("first try fails")
        return "ok"

    results = {}
    def ask(name):
        try:
            results[name] = lab_ui.cached("fits", ("flaky",), flaky)
        except RuntimeError as exc:
            results[name] = str(exc)

    a = threading.Thread(target=ask, args=("a",))
    a.start()
    time.sleep(0.05)
    b = threading.Thread(target=ask, args=("b",))
    b.start()
    a.join(timeout=10)
    b.join(timeout=10)
    assert results == {"a": "first try fails", "b": "ok"}
    assert len(attempts) == 2
