"""The fixtures every test module may ask for by name: a system Chromium's path, a
Streamlit server running ``app.py`` and one browser page, each once per module (the
helpers behind them are in ``_browser``). A module that needs another server or page
defines a fixture of the same name, which wins over these."""

from __future__ import annotations

import pytest
from _browser import (
    ARTIFACTS,
    RERUN_TIMEOUT_MS,
    VIEWPORT,
    StreamlitServer,
    find_chromium,
    launch_browser,
)


@pytest.fixture(scope="module")
def chromium_path() -> str:
    pytest.importorskip("playwright.sync_api",
                        reason="Playwright is not installed (pip install -e '.[test]')")
    path = find_chromium()
    if path is None:
        pytest.skip("no chromium binary (apt-get install chromium); Playwright's own "
                    "browser download is not used")
    return path


@pytest.fixture(scope="module")
def app_server(chromium_path):
    ARTIFACTS.mkdir(exist_ok=True)
    with StreamlitServer("app.py", log=ARTIFACTS / "streamlit-browser-test.log") as server:
        yield server


@pytest.fixture(scope="module")
def page(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_browser(pw, chromium_path)
        context = browser.new_context(viewport=VIEWPORT)
        pg = context.new_page()
        pg.set_default_timeout(RERUN_TIMEOUT_MS)
        try:
            yield pg
        finally:
            context.close()
            browser.close()
