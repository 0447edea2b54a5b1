"""Presentation mode (``present=1`` on any page) and collecting lab states into a lesson.

:func:`presentation` is the one call every page makes right after :func:`page_setup`.
With ``present`` on it hides the sidebar, the header and every control of the page (CSS
injected once per run; the widgets are still drawn, so the state stays intact), removes
the page padding, sizes the text to the window and the page's first chart to the
window's height, and pins an "Exit presentation" button to a corner (on a phone, above
the page). The charts themselves (``components/chart.py``) grow their text with the
window while the button is on the page (14 px at 1280×720, 18 px at 1920×1080) and
drop the modebar; the fitting script here redraws them when the window or the mode
changes. Off, it adds to the sidebar a "Present"
button that gives the page's presentation link as copyable plain text, and, on the
pages a lesson can show, "Add this view to my lesson" (a sentence and the page's state,
collected in the session and turned into one link on the Lessons page).

Controls that must stay visible while presenting (a lesson's question and its Back /
Next buttons) sit in containers whose key starts with :data:`KEEP`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

import nplk_lab.model as lab
from nplk_lab.model import lessons as lessons_model
from nplk_lab.model import teacher_lessons as teacher

from .state import params, safe_text

#: key prefix of containers whose widgets stay visible in presentation mode
KEEP = "nplk-keep"
#: session key of the steps a teacher has collected (a list of TeacherStep)
COLLECTED = "lab_my_steps"

# The widgets' element containers are hidden (not only the widgets), so no gap remains;
# :has() and :not() with complex selectors are in every current Chromium and Firefox.
_CONTROLS = ", ".join(f'[data-testid="{t}"]' for t in (
    "stSlider", "stSelectbox", "stCheckbox", "stToggle", "stRadio", "stButton",
    "stDownloadButton", "stFileUploader", "stExpander", "stNumberInput", "stTextInput",
    "stTextArea", "stMultiSelect", "stPageLink", "stColorPicker", "stSegmentedControl",
    "stButtonGroup", "stPills"))
_CSS = f"""
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stHeader"],
[data-testid="stToolbar"], [data-testid="stDecoration"] {{ display: none !important; }}
[data-testid="stMainBlockContainer"] {{ padding: 0.6rem 1.6rem 0.8rem !important;
  max-width: 100% !important; }}
[data-testid="stMain"] [data-testid="stElementContainer"]:has(:is({_CONTROLS})):not(
  [class*="st-key-{KEEP}"] *):not([class*="st-key-{KEEP}"]),
[data-testid="stMain"] [data-testid="stExpander"]:not([class*="st-key-{KEEP}"] *),
[data-testid="stMain"] [data-testid="stLayoutWrapper"]:has(> [data-testid="stExpander"]):not(
  [class*="st-key-{KEEP}"] *) {{ display: none !important; }}
[data-testid="stMain"] h1 {{ font-size: 2.1rem !important; padding: 0 0 0.2rem !important; }}
/* text grows with the window (about 18 px at 1280×720, 27 px at 1920×1080); the
   elements sit closer than on a page with controls */
[data-testid="stMain"] [data-testid="stMarkdownContainer"] :is(p, li),
[data-testid="stMain"] [data-testid="stText"],
[data-testid="stMain"] [data-testid="stExpander"] summary p,
[data-testid="stMain"] [data-testid="stRadio"] label p {{
  font-size: clamp(1rem, min(1.4vw, 2.5vh), 2rem) !important; line-height: 1.4 !important; }}
[data-testid="stMain"] [data-testid="stCaptionContainer"] p {{
  font-size: clamp(0.9rem, min(1.15vw, 2.05vh), 1.7rem) !important; }}
[data-testid="stMain"] [data-testid="stVerticalBlock"] {{ gap: 0.55rem !important; }}
[data-testid="stMain"] [data-testid="stAlert"] [role="alert"] {{
  padding: 0.4rem 0.8rem !important; }}
[data-testid="stMain"] [data-testid="stMetricValue"] {{ font-size: 2.2rem !important; }}
[data-testid="stMain"] [data-testid="stMetricLabel"] p {{ font-size: 1.1rem !important; }}
/* the page's first chart fills the rest of the window (see _FIT_JS) */
[data-testid="stMain"] .nplk-live-chart.nplk-fit {{ height: var(--nplk-fit) !important; }}
/* out of the flow, so no gap is left: scripts, empty slots, the pinned Exit button */
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stHtml"]
  > :is(script, style):only-child),
[data-testid="stMain"] [data-testid="stElementContainer"]:has(> [data-testid="stEmpty"])
  {{ display: none !important; }}
[data-testid="stLayoutWrapper"]:has(> .st-key-{KEEP}-exit), .st-key-{KEEP}-exit {{
  position: fixed !important; right: 0.8rem; top: 0.5rem; z-index: 1000;
  width: auto !important; }}
/* a phone stacks the page's columns: the pinned button gets a strip of its own above
   them, so it covers nothing (a lesson's "◀ Back" came first there) */
@media (max-width: 640px) {{
  [data-testid="stMainBlockContainer"] {{ padding-top: 3.4rem !important; }}
  /* a lesson's words (Back, Next, the question) before its figure */
  .st-key-nplk-lesson-cols > [data-testid="stLayoutWrapper"]
    > [data-testid="stHorizontalBlock"] {{
    flex-direction: column-reverse !important; }}
}}
</style>
"""


# The page's first chart gets the height left below its top edge (at least 320 px, at
# most its own height + 40 %), on every layout change: the figure and the scores in its
# corner then fit above the fold at any window size. Runs in the page, once per tab.
_FIT_JS = """
<script>
(() => {
  if (window.__nplkFit) { window.__nplkFit(); return; }
  let busy = false;
  const touched = new Set();
  const SIZES = ['height', 'min-height', 'max-height', 'flex-basis'];
  const fit = () => {
    if (busy) return;
    busy = true;
    requestAnimationFrame(() => {
      busy = false;
      const main = document.querySelector('[data-testid="stMain"]');
      const on = document.querySelector('[class*="st-key-nplk-keep-exit"]');
      const charts = main ? [...main.querySelectorAll('.nplk-live-chart')] : [];
      // chart text follows the window in presentation mode (components/chart.py):
      // a chart drawn for another window size or mode is drawn again
      const floor = window.__nplkPresentFloor ? window.__nplkPresentFloor() : 0;
      charts.forEach((c) => {
        if (c.__nplkRedraw && (c.__nplkFloor || 0) !== floor) c.__nplkRedraw();
      });
      // (a class's live count keeps its own height: it sits under the question)
      const el = on ? charts.find((c) => c.getBoundingClientRect().width > 0 &&
                                  !c.closest('[class*="st-key-class-count"]')) : null;
      charts.forEach((c) => {
        if (c === el || !c.classList.contains('nplk-fit')) return;
        c.classList.remove('nplk-fit');
        if (window.Plotly && c.data) window.Plotly.Plots.resize(c);
      });
      const keep = new Set();
      for (let p = el && el.parentElement; p && p !== main; p = p.parentElement) {
        keep.add(p);
        if (p.dataset.testid === 'stElementContainer') break;
      }
      touched.forEach((p) => { if (!keep.has(p)) {   // presentation left, or a new chart
        SIZES.forEach((prop) => p.style.removeProperty(prop));
        touched.delete(p);
      } });
      if (!el) return;
      const top = el.getBoundingClientRect().top + window.scrollY;
      const own = parseFloat(el.style.height) || 600;
      const h = Math.round(Math.max(320, Math.min(innerHeight - top - 14, own * 1.4)));
      el.style.setProperty('--nplk-fit', h + 'px');
      el.classList.add('nplk-fit');
      // the component's wrappers keep the figure's own height: give them the new one
      keep.forEach((p) => {
        touched.add(p);
        SIZES.forEach((prop) => {
          if (p.style.getPropertyValue(prop) !== h + 'px') {
            p.style.setProperty(prop, h + 'px', 'important');
          }
        });
      });
      const drawn = el._fullLayout && el._fullLayout.height;
      if (window.Plotly && el.data && drawn && Math.abs(drawn - h) > 1) {
        window.Plotly.Plots.resize(el);
      }
    });
  };
  window.__nplkFit = fit;
  new MutationObserver(fit).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('resize', fit);
  fit();
})();
</script>
"""


def presenting() -> bool:
    return bool(params().get("present"))


def presentation(page: str) -> bool:
    """Presentation mode for ``page`` when the state says so (returns True), else the
    sidebar's "Present" and "Add this view to my lesson". Call right after
    :func:`page_setup`."""
    P = params()
    if P.get("present"):
        st.html(_CSS)
        st.html(_FIT_JS, unsafe_allow_javascript=True)
        with st.container(key=f"{KEEP}-exit"):
            st.button("Exit presentation", key="present_exit", on_click=_set_present,
                      args=(False,), help="Show the controls and the sidebar again.")
        return True
    with st.sidebar.expander("Present · add to a lesson", expanded=False):
        if st.button("Present", key="present_link", icon=":material/slideshow:",
                     help="Gives this page's link in presentation mode: no controls, the "
                          "figure large, for a projector."):
            st.session_state["lab_present_link"] = page
        if st.session_state.get("lab_present_link") == page and P.get("class"):
            # another browser needs the class's teacher link to show its controls
            st.caption("In a class, “Present on another screen” on the class's panel gives "
                       "the projector's link; this tab can present at once.")
            st.button("Present here", key="present_here", on_click=_set_present,
                      args=(True,))
        elif st.session_state.get("lab_present_link") == page:
            st.caption("Presentation link (copy it, or open it on the projector):")
            st.code(present_url(page, P), language=None, wrap_lines=True)
            st.button("Present here", key="present_here", on_click=_set_present,
                      args=(True,))
        if page in lessons_model.STEP_PAGES:
            _collector(page, P)
    return False


def _set_present(on: bool) -> None:
    params()["present"] = bool(on)
    st.session_state.pop("lab_present_link", None)
    # Home and Paper results do not rewrite their URL: a present=1 left there would be
    # read again on the next run
    if "present" in st.query_params:
        st.query_params["present"] = "1" if on else "0"


def page_query(page: str, P: dict[str, Any]) -> dict[str, str]:
    """The query a page's link carries: its relevant settings."""
    if page in lab.PAGES or page == "lessons":
        return lab.encode_query(P, lab.relevant_names(page, P))
    return {}


def base_url() -> str:
    """This page's address without its query ("" when Streamlit does not know it)."""
    try:
        url = st.context.url or ""
    except (AttributeError, RuntimeError):
        url = ""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}" if parts.netloc else parts.path


def present_url(page: str, P: dict[str, Any]) -> str:
    """The page's link in its current state with presentation mode on."""
    q = {**page_query(page, P), "present": "1"}
    return f"{base_url()}?{urlencode(q)}"


def _collector(page: str, P: dict[str, Any]) -> None:
    """"Add this view to my lesson": the page's state and a sentence, collected in
    the session (at most MAX_TEACHER_STEPS)."""
    ss = st.session_state
    steps = ss.setdefault(COLLECTED, [])
    st.divider()
    st.caption("Build your own lesson: add this view with a sentence for the class; "
               "order the steps and make the link on the Lessons page.")
    text = st.text_input("Sentence for this step", key=f"collect_text_{page}",
                         max_chars=teacher.MAX_SENTENCE,
                         placeholder="What should the class notice here?",
                         help="One sentence the class reads with this view in your lesson.")
    asks = {q.key: q.wording(P) for q in teacher.questions_for(page, P)}
    ask = ""
    if asks:
        ask = st.selectbox(
            "Question for the class", ["", *asks], key=f"collect_ask_{page}",
            format_func=lambda k: asks.get(k, "No question: the class reads and looks"),
            help="Optional: the class answers before the figure appears; the lab measures "
                 "the numbers that decide the answer when the step is revealed, so the "
                 "answer is always the one these settings give.")
    full = len(steps) >= teacher.MAX_TEACHER_STEPS
    if st.button("Add this view to my lesson", key=f"collect_add_{page}", disabled=full,
                 help="Keep this page's settings and your sentence as the next step of "
                      "your lesson (ordered and linked on the Lessons page)."):
        try:
            steps.append(teacher.teacher_step(page, P, text, ask))
        except ValueError as exc:  # e.g. a view of an uploaded CSV
            st.error(safe_text(str(exc)))
        else:
            ss.pop(f"collect_text_{page}", None)
            ss.pop(f"collect_ask_{page}", None)
            st.rerun()
    if steps:
        st.caption(safe_text(f"Your lesson has {len(steps)} step"
                             f"{'s' if len(steps) != 1 else ''}"
                             + (" (the most a lesson holds)." if full else ".")))
        st.page_link("pages/7_Lessons.py", label="Make the lesson link",
                     icon=":material/school:")
