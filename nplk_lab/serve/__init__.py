"""The server's machinery, apart from what the pages draw (:mod:`nplk_lab.ui` imports it;
it never imports the ui nor the pages):

:mod:`.command` the ``nplk-lab`` command: the installed app, alone or behind HAProxy for a class;
:mod:`.supervise` ``nplk-lab classroom``'s supervisor: keeps the workers and HAProxy running;
:mod:`.parent_watch` processes that die with their parent, so a killed server leaves no orphans;
:mod:`.workers` the bounded pool of fit worker processes, fair across sessions;
:mod:`.worker_main` the main module those worker processes start from;
:mod:`.stores` the stores shared by the sessions of a server, one computation per key;
:mod:`.firstpaint` a page's default run replayed from disk on a new server, without scikit-learn;
:mod:`.reaper` memory back to idle after a class: stores emptied, fit workers stopped.

Streamlit is imported here (the stores are ``st.cache_resource``, the pool and the reaper
read the runtime's sessions) but nothing is drawn: the pages' progress line for a wait in
the stores is handed in by the ui (:mod:`nplk_lab.ui.sharing`)."""
