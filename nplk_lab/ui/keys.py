"""The names of the lab's entries in ``st.session_state``, in one place.

A leaf module: every ui module reads and writes its entries by these names (a test holds
that no other module names an entry of its own), and importing them from here keeps the
modules free of import circles. Widgets' own keys are the settings' names, not listed here."""

STORE = "lab_params"
PREFIX = "w_"
LAST_GOOD = "lab_last_good"
PREV_FIT = "lab_prev_fit"
CSV = "lab_csv"
STATUS = "lab_status_slot"
STOP = "lab_stop_request"
STOPPED = "lab_stopped_fit"

# The views' own entries, by the module that reads and writes them

# eigenmaps.py
EIGEN_CLICK_SEEN = "lab_eigen_click_seen_"  # + page: the newest click id applied

# influence.py
FOCUS_ON = "lab_focus_on"  # (data key, index) the selection was made on
FOCUS_TARGETS = "lab_focus_targets"  # {chart key: (points as drawn, axis spans)} or n rows

# lessons.py
LESSON_NO_PICK = "lab_lesson_no_pick"  # the step where "Lock in" was pressed with no option

# maps.py
MAP_PARTIAL = "lab_map_partial"  # the newest partial map per key (what Stop keeps)
MAP_CLICK_SEEN = "lab_map_click_seen"  # the newest click id applied
MAP_OPEN = "lab_map_open"  # a clicked cell waiting to open: (page, params)
MAP_LIVE_COUNT = "lab_map_live_count"  # a fresh key for each in-progress redraw

# present_mode.py
MY_STEPS = "lab_my_steps"
MY_STEP_DRAFT = "lab_my_step_draft_"  # + what + page: the collector's typed sentence or
#                                     chosen question, kept while its panel is closed
MY_STEPS_HAD = "lab_my_steps_had"  # this session has collected a step (so none = removed)
OPEN = "lab_open_"  # + what + page: whether that closed-by-default panel is open
PRESENT_NARROW = "lab_present_narrow"  # presentation mode was left for a narrow window

# replay.py
REPLAY_FRAMES = "lab_replay_frames"  # {page: frame count of the replay last shown there}
REPLAY_PAGE = "lab_replay_page"  # the page whose player reported last

# running.py
DASK_FAILED = "lab_dask_failed"  # (address, when, why) of this session's last failure

# state.py
FROM_BROWSER = "lab_from_browser"
URLS_WRITTEN = "lab_urls_written"  # the last few URLs this session wrote

# where_it_holds.py
ATLAS_CLICK_SEEN = "lab_atlas_click_seen"
ATLAS_NOTE = "lab_atlas_note"

# widgets.py
POINTS_UNDO = "lab_points_undo"
CLICK_SEEN = "lab_click_seen"  # id of the newest click applied (the chart resends newer)
CLICK_BOUNDS = "lab_click_bounds"  # where a click may add a point (around the drawn surface)

# class_common.py
CLASS_ERROR = "lab_class_error"  # a refusal to show on the next run
CLASS_SEAT = "lab_class_seat"  # this session's own seat, when the browser has none
CLASS_TOKENS = "lab_class_tokens"  # {code: teacher token} this session knows

# class_session.py
CLASS_FOLLOW = "lab_class_follow"  # {code: bool}: this student follows the class's step
CLASS_AT = "lab_class_at"  # the step (1-based) the class last put this page at
CLASS_TO_HALL = "lab_class_to_hall"  # a class just joined here: its light page next

# class_student.py
CLASS_NO_PICK = "lab_class_no_pick"  # (code, step, vote) where "Lock in" had no option

# class_teacher.py
CLASS_LIVE_FIG = "lab_class_live_fig"  # (what it shows, figure) last drawn by the live count
CLASS_ACTED = "lab_class_acted"  # the teacher's buttons whose callback ran since the panel
CLASS_ACTED_RUN = "lab_class_acted_run"  # those whose callback ran before this run
CLASS_MOVED = "lab_class_moved"  # the move whose button's callback ran in this run

# lessons.py, downloads.py and state.py
MY_LESSON_LINK = "lab_my_lesson_link"  # the encoded lesson of "Make the lesson link"
CONFIG_APPLIED = "lab_cfg_applied"  # the uploaded configuration file already applied
PAGE = "lab_page"  # the page this session ran last (a page switch starts from its state)

# pages/5_Scaling.py and downloads.py
TIMING = "lab_timing"  # (the n measured, fit times per method) of the last timing run
NOTES = "lab_notes"  # messages to show once on the next run (a configuration loaded)
URL_WRITTEN = "lab_url_written"  # the query string this session last wrote
