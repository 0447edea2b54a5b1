"""NPLK Lab's server: the lab's pages with the lab's own routes beside them.

``streamlit run nplk_lab/serve/server.py`` (what ``nplk-lab`` and ``nplk-lab
classroom`` run) serves the pages of ``app.py`` and ``pages/`` through ``st.App``, with
what a class needs from plain HTTP (:mod:`.class_web`): a seat cookie per browser, so a
reload, a second tab or a dead worker leave a student that student and a teacher the
teacher; the teacher link, whose token never reaches a URL's query or the tab's
history; and a class's light student page (:mod:`.class_hall`). ``streamlit run
app.py`` still serves every page; a class there keeps a browser's seat for its session
only.

This file is a script to ``streamlit run``, not a module to import: Streamlit finds
``app`` in it, and imports it on its own.
"""

import os

import streamlit as st

from nplk_lab.serve import class_hall, class_web, firstpaint
from nplk_lab.serve.command import WARM_START_ENV, app_dir

# A worker of `nplk-lab classroom` imports scikit-learn now, before it answers its health
# check, so HAProxy sends it no one before: a class's page needs the data's split and a
# fit (the teacher's share right, the reveal), and the first class page a worker served
# paid that import; that worker is the one a teacher lands on when their own worker
# died or the classroom restarted. The fit pool still starts at the first idle moment.
if os.environ.get(WARM_START_ENV) == "1":
    firstpaint.warm_up()

app = st.App(app_dir() / "app.py", routes=class_web.routes() + class_hall.routes(),
             middleware=class_web.middleware())
