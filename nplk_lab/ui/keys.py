"""The names of the lab's entries in ``st.session_state``, in one place.

A leaf module: :mod:`.state`, :mod:`.progress` and :mod:`.running` read and write these
entries, and importing the names from here keeps those modules free of import circles."""

STORE = "lab_params"
PREFIX = "w_"
LAST_GOOD = "lab_last_good"
PREV_FIT = "lab_prev_fit"
CSV = "lab_csv"
STATUS = "lab_status_slot"
STOP = "lab_stop_request"
STOPPED = "lab_stopped_fit"
