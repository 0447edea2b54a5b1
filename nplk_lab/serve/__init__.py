"""The server's machinery, apart from what the pages draw (:mod:`nplk_lab.ui` imports it;
it never imports the ui nor the pages):

:mod:`.command` the ``nplk-lab`` command: the installed app, alone or behind HAProxy for a class;
:mod:`.supervise` ``nplk-lab classroom``'s supervisor: keeps the workers and HAProxy running;
:mod:`.parent_watch` processes that die with their parent, so a killed server leaves no orphans;
:mod:`.workers` the bounded pool of fit worker processes, fair across sessions;
:mod:`.worker_main` the main module those worker processes start from;
:mod:`.stores` the stores shared by the sessions of a server, one computation per key;
:mod:`.firstpaint` a page's default run replayed from disk on a new server, without scikit-learn;
:mod:`.figure_cache` each cached figure's gzipped JSON, made once and shared by the sessions;
:mod:`.cluster` the Dask cluster the operator configured, and the connection to it;
:mod:`.firstpaint_build` every page's first picture, made before a new server accepts a connection;
:mod:`.reaper` memory back to idle after a class: stores emptied, fit workers stopped;
:mod:`.server` the lab's pages with the lab's own routes beside them (``st.App``);
:mod:`.class_web` those routes: a browser's seat in a class and the teacher link;
:mod:`.class_hall` the light student page of a class (``hall.html``, ``hall.js``, ``hall.css``);
:mod:`.class_room` where a process finds the class store (SQLite folder or PostgreSQL);
:mod:`.class_store` a class's answers, shared by every worker; its parts:
:mod:`.class_store_base` (opening, reading a class), :mod:`.class_store_db` (SQLite against
PostgreSQL), :mod:`.class_store_teacher` (the teacher's moves), :mod:`.class_store_rules`
(the limits and the moves of peer instruction, all in one place) and
:mod:`.class_store_results` (the summary per step and the CSV).

Streamlit is imported here (the stores are ``st.cache_resource``, the pool and the reaper
read the runtime's sessions) but nothing is drawn: the pages' progress line for a wait in
the stores is handed in by the ui (:mod:`nplk_lab.ui.sharing`)."""
