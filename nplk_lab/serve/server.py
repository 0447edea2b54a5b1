"""NPLK Lab's server: the lab's pages with the lab's own routes beside them.

``streamlit run nplk_lab/serve/server.py`` (what ``nplk-lab`` and ``nplk-lab
classroom`` run) serves the pages of ``app.py`` and ``pages/`` through ``st.App``, with
what a class needs from plain HTTP (:mod:`.class_web`): a seat cookie per browser, so a
reload, a second tab or a dead worker leave a student that student and a teacher the
teacher; and the teacher link, whose token never reaches a URL's query or the tab's
history. ``streamlit run app.py`` still serves every page; a class there keeps a
browser's seat for its session only.

This file is a script to ``streamlit run``, not a module to import: Streamlit finds
``app`` in it, and imports it on its own.
"""

import streamlit as st

from nplk_lab.serve import class_web
from nplk_lab.serve.command import app_dir

app = st.App(app_dir() / "app.py", routes=class_web.routes(),
             middleware=class_web.middleware())
