"""The shell of a page the lab exports to open offline (nplk_lab.figures.offline_page):
what a user wrote cannot close an element or run as code, the JSON it carries reads back
the same, and the page loads nothing from elsewhere."""

from __future__ import annotations

import json
import re

import pytest

from nplk_lab.figures import offline_page as op

HOSTILE = "</script><!-- <script>alert(1)</script> & \u2028 ]]>"


def test_inert_json_reads_back_the_same_and_cannot_close_its_element():
    obj = {"title": HOSTILE, "values": [1.5, -2], "nested": {"a": "<b>&amp;</b>"}}
    text = op.inert_json(json.dumps(obj, ensure_ascii=False))
    assert not re.search(r"[<>&]", text)
    assert json.loads(text) == obj


def test_inline_script_leaves_nothing_that_closes_the_element_or_opens_a_comment():
    code = f"const s = {json.dumps(HOSTILE)}; // </script> in a comment"
    out = op.inline_script(code)
    assert "</" not in out and "<!--" not in out
    # the only change is a backslash before '/' and '!', which JavaScript strings ignore
    assert out.replace("<\\/", "</").replace("<\\!--", "<!--") == code


def test_the_page_escapes_its_title_and_carries_data_and_scripts_in_order():
    page = op.offline_page(HOSTILE, "<div id='host'></div>", style="body { margin: 0; }",
                           data={"the-data": json.dumps({"t": HOSTILE})},
                           scripts=["window.first = 1;", "window.second = 2;"])
    assert page.startswith("<!DOCTYPE html>")
    head = page.split("<style>")[0]                  # before the style and Plotly.js
    assert head.count("<title>") == 1 and "&lt;/script&gt;" in head
    assert "alert(1)</script>" not in page
    blob = re.search(r'<script type="application/json" id="the-data">(.*?)</script>',
                     page, flags=re.S).group(1)
    assert json.loads(blob) == {"t": HOSTILE}
    assert page.index("window.first") < page.index("window.second") < page.index("</body>")
    # Plotly.js rides inside; no element loads anything
    assert "Plotly" in page and len(page) > 1_000_000
    tags = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.S)
    assert not re.search(r"\b(src|href)\s*=", tags, flags=re.I)


def test_a_data_element_id_is_a_plain_name():
    with pytest.raises(ValueError, match="ids"):
        op.offline_page("t", "", data={'x" onload="alert(1)': "{}"})
