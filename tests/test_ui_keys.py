"""The lab's entries in ``st.session_state`` are named in one place (``ui/keys.py``): no
other ui module, page or Home defines a name of its own for one, nor writes one as a
bare string, so two views cannot pick the same entry by accident."""

from __future__ import annotations

import re
from pathlib import Path

import nplk_lab.ui.keys as K

ROOT = Path(__file__).resolve().parents[1]
#: a module-level name bound to a "lab_…" string, or a mapping read or written by one
OWN_NAME = re.compile(r'^_?[A-Z][A-Z0-9_]* = "lab_\w+"', re.M)
BARE = re.compile(r'(?:\[|\.(?:get|pop|setdefault)\()\s*"lab_\w+"')
NOT_AN_ENTRY = {"lab_rbf_reg"}      # a method's name (LAB RBF regression), not an entry


def _sources() -> list[Path]:
    ui = [p for p in (ROOT / "nplk_lab" / "ui").rglob("*.py") if p.name != "keys.py"]
    return sorted(ui + list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"])


def test_no_module_but_keys_names_a_session_entry():
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _sources()
             for m in OWN_NAME.finditer(p.read_text(encoding="utf-8"))
             if m.group(0).split('"')[1] not in NOT_AN_ENTRY]
    found += [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _sources()
              for m in BARE.finditer(p.read_text(encoding="utf-8"))]
    assert not found, "name the entry in nplk_lab/ui/keys.py:\n" + "\n".join(found)


def test_every_entry_has_its_own_name():
    names = {k: v for k, v in vars(K).items() if k.isupper() and isinstance(v, str)}
    assert len(names) >= 30
    values = list(names.values())
    assert len(set(values)) == len(values), "two names for one entry"
    for name, value in names.items():
        assert value.startswith(("lab_", "w_")), (name, value)


def test_the_check_sees_a_module_that_names_its_own_entry():
    assert OWN_NAME.search('_SEEN = "lab_click_seen"   # a comment')
    assert BARE.search('st.session_state["lab_timing"] = 1')
    assert BARE.search('ss["lab_notes"] = []') and BARE.search('ss.get("lab_notes", [])')
    assert not OWN_NAME.search('key = "lab_dask_" + page')
