"""Real-browser test of an upload, as a person does it: choose "CSV upload", pick a file
in the file chooser. A CSV in raw units is standardised with a note and drawn; a CSV
whose header is a crafted link shows that text as plain text (no link, no image, no
request to the outside host); a CSV over the lab's size limit gets a message saying so.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``test_browser.py``); skips when either is missing.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _browser import (
    ARTIFACTS,
    CLASSIFICATION_PATH,
    choose_csv,
    exception_texts,
    upload,
    wait_surface,
)

from nplk_core.datasets import make_clowns

# the server, browser and page fixtures of the first browser test

pytestmark = pytest.mark.browser

EVIL = "[Session expired](http://evil.example) ![x](http://evil.example/x.png)"


def test_raw_unit_csv_upload_is_standardised_and_drawn(app_server, page, tmp_path):
    X, y = make_clowns(120, random_state=0)
    raw = X * np.array([100.0, 1e4]) + np.array([500.0, 3000.0])
    path = tmp_path / "raw_units.csv"
    path.write_text("width_mm,mass_mg,label\n" + "\n".join(
        f"{a:.3f},{b:.3f},{int(c)}" for (a, b), c in zip(raw, y, strict=True)))
    page.goto(app_server.url + CLASSIFICATION_PATH + "?method=svm",
              wait_until="domcontentloaded")
    wait_surface(page)
    choose_csv(page)
    upload(page, path)
    page.get_by_text("Features standardised").first.wait_for(timeout=60_000)
    wait_surface(page)
    page.screenshot(path=str(ARTIFACTS / "upload-raw-units.png"))
    assert not exception_texts(page), exception_texts(page)


def test_hostile_csv_header_is_plain_text(app_server, page, tmp_path):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    path = tmp_path / "hostile.csv"
    path.write_text(f"x1,x2,{EVIL}\n" + "\n".join(f"{i},{i % 7},1" for i in range(30)))
    page.goto(app_server.url + CLASSIFICATION_PATH + "?method=svm",
              wait_until="domcontentloaded")
    wait_surface(page)
    choose_csv(page)
    upload(page, path)
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="Session expired").first
    alert.wait_for(timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "upload-hostile-header.png"))
    # shown, as text: no link, no image element came from it, nothing fetched outside
    assert alert.locator("a").count() == 0 and alert.locator("img").count() == 0
    assert "evil.example" in alert.inner_text()
    assert not [u for u in requests if "evil.example" in u], requests
    assert not exception_texts(page), exception_texts(page)


def test_an_oversized_upload_gets_a_clear_message(app_server, page, tmp_path):
    """A 6 MB CSV: the page says in words that the file is too large and what to do.
    (Above the server's upload limit the browser only marked the file with an error
    icon, its reason in a tooltip, and the page went on asking for a CSV.)"""
    path = tmp_path / "big.csv"
    row = b"0.123456789,0.987654321,1\n"
    path.write_bytes(b"x1,x2,label\n" + row * (6 * 10 ** 6 // len(row)))
    page.goto(app_server.url + CLASSIFICATION_PATH + "?method=svm",
              wait_until="domcontentloaded")
    wait_surface(page)
    choose_csv(page)
    with page.expect_file_chooser() as fc:
        page.get_by_role("button", name=re.compile("Browse files|Upload")).first.click()
    fc.value.set_files(str(path))
    alert = page.locator('[data-testid="stAlert"]').filter(has_text="big.csv").first
    alert.wait_for(timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "upload-oversized.png"))
    text = alert.inner_text()
    assert "6.0 MB" in text and "at most 5 MB" in text and "random subset" in text, text
    assert alert.is_visible()
    assert not exception_texts(page), exception_texts(page)
