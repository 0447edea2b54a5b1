"""Real-browser test of "where the test score comes from" (issue: the mechanism): on the
Classification page the score table stands beside the decision surface (DANK, DANK with
F off at test time, DANK with the smooth rule, 1-nearest neighbour, the plain SVM) with
its paragraph; clicking "Show 1-nearest neighbour" draws 1-NN's boundary on the surface
and puts ``show_nn`` in the URL; choosing the smooth rule redraws the surface with it. On
the Regression page (step function) the same for DANK-SVR and 1-NN's step curve.

Drives Debian's Chromium through Playwright against ``streamlit run app.py`` (helpers
from ``_browser.py``, fixtures from ``conftest.py``); skips when either is missing.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import _browser as tb
import pytest
from _browser import (
    ARTIFACTS,
    choose,
    exception_texts,
    settled_surface,
    wait_idle,
    wait_surface,
    wait_url,
)

pytestmark = pytest.mark.browser

# the trace names of every Plotly graph on the page
TRACES_JS = """
() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(
  g => (g.data || []).map(t => t.name || ''))
"""


TABLE = '[data-testid="stMarkdownContainer"] table'


def table_text(page) -> str:
    tables = page.locator(TABLE)
    tables.first.wait_for()
    return tables.first.inner_text()


def click_toggle(page, label: str) -> None:
    """Click a Streamlit toggle by its label, as a person does."""
    page.locator('[data-testid="stCheckbox"]').filter(
        has=page.get_by_text(label, exact=True)).first.click()


def wait_trace(page, name: str) -> None:
    page.wait_for_function(f"() => ({TRACES_JS})().includes({name!r})",
                           timeout=tb.RERUN_TIMEOUT_MS, polling=100)


def query(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_classification_table_beside_the_surface_and_the_nn_boundary(app_server, page):
    page.goto(app_server.url + tb.CLASSIFICATION_PATH + "?n_samples=60",
              wait_until="domcontentloaded")
    wait_surface(page)
    wait_idle(page)
    text = table_text(page)
    for row in ("DANK (reciprocal-neighbour rule)", "DANK, F off at test time",
                "1-nearest neighbour",
                "SVM (σ = 10, C = 10)"):
        assert row in text, text
    assert page.get_by_text("gives the same label as 1-nearest neighbour on").count() == 1
    # beside the figure: the table's left edge is right of the surface's
    surface = page.locator('.js-plotly-plot').first.bounding_box()
    table = page.locator(TABLE).first.bounding_box()
    assert table["x"] > surface["x"] + surface["width"] * 0.8
    assert "1-nearest neighbour boundary" not in page.evaluate(TRACES_JS)
    click_toggle(page, "Show 1-nearest neighbour")
    wait_trace(page, "1-nearest neighbour boundary")
    wait_idle(page)
    assert query(page).get("show_nn") in ("1", "true", "True")
    assert exception_texts(page) == []
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ablation-classification.png"), full_page=True)


SURFACE_TITLE_JS = """
() => { const gd = [...document.querySelectorAll('.js-plotly-plot')].find(g =>
          Array.isArray(g.data) && g.data.some(t => t.name === 'decision function'));
        return gd ? (gd.layout.title && gd.layout.title.text) || '' : ''; }
"""


def test_choosing_the_smooth_rule_redraws_the_surface_with_it(app_server, page):
    """A person picks the smooth rule in the chooser beside the surface: the surface is
    drawn again under it (its title names the rule, the picture changes), the URL keeps
    the choice, and the score table has its row either way."""
    page.goto(app_server.url + tb.CLASSIFICATION_PATH + "?n_samples=60",
              wait_until="domcontentloaded")
    wait_surface(page)
    before = settled_surface(page)
    assert "DANK (smooth rule)" in table_text(page)
    assert "smooth rule" not in page.evaluate(SURFACE_TITLE_JS)
    choose(page, "Out-of-sample rule (drawn surface)", "smooth rule")
    wait_url(page, "extension", "smooth")
    after = settled_surface(page)
    assert after != before
    assert "surface: smooth rule" in page.evaluate(SURFACE_TITLE_JS)
    assert "DANK (smooth rule)" in table_text(page)
    assert exception_texts(page) == []
    page.screenshot(path=str(ARTIFACTS / "smooth-rule-classification.png"))


def test_regression_table_and_the_nn_step_curve(app_server, page):
    page.goto(app_server.url + "/Regression?n_samples=60&reg_dataset=step",
              wait_until="domcontentloaded")
    wait_trace(page, "DANK-SVR")
    wait_idle(page)
    text = table_text(page)
    for row in ("DANK-SVR (nearest-point rule)", "DANK-SVR, F off at test time",
                "1-nearest neighbour", "SVR (σ = 10, C = 10)"):
        assert row in text, text
    click_toggle(page, "Show 1-nearest neighbour")
    wait_trace(page, "1-nearest neighbour")
    wait_idle(page)
    assert query(page).get("show_nn") in ("1", "true", "True")
    assert exception_texts(page) == []
    page.screenshot(path=str(ARTIFACTS / "ablation-regression.png"), full_page=True)
