"""Paper results: the reproduction table (python -m nplk_app.reproduce) and, per paper
result, a link that opens its page in the preset state where the effect shows."""

import pandas as pd
import streamlit as st

import lab_chart

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
lab_chart.preload()

import lab_ui as ui
from nplk_app import presets as pr

ui.page_setup("paper", "Paper results", "📄")
ui.presentation("paper")  # present=1: no controls, larger text
PAPER_VALUE = "paper's value"

st.title("Paper results")
st.caption("What the five papers claim, what this lab measures, and where to see it. "
           "Each “Open” link opens a page in a state where the effect is visible "
           "(it replaces the page's current settings; the URL then holds them).")

results, why_not = pr.load_paper_results()
if results is None:
    st.info("No reproduction results on this installation yet: the command below "
            "writes them, and the table of the papers' values against ours then appears "
            "here. The links further down work without it.")
    st.text(why_not)
    st.code(pr.REPRODUCE_COMMAND + "   # or add --quick for a short run", language="bash")
else:
    table = pr.results_table(results)
    st.text(f"Generated {pr.as_text(results.get('generated'))} by: "
            f"{pr.as_text(results.get('command'))}"
            + (" (quick run)" if results.get("quick") is True else ""))
    if table:
        st.dataframe(pd.DataFrame(table), hide_index=True)
    else:
        st.text("The results file has no rows.")

st.subheader("Open each result on its page")
groups = pr.results_by_preset(results)
for name, preset in pr.PRESETS.items():
    with st.container(border=True):
        left, right = st.columns([4, 1], vertical_alignment="center")
        with left:
            st.text(preset.title)
            st.caption(preset.claim)
            for row in groups[name]:
                st.text(f"{row['result']} | paper: {row[PAPER_VALUE]} | ours: {row['ours']} "
                        f"| holds: {row['holds']}")
        with right:
            st.page_link(pr.preset_file(name), label="Open", icon="▶️",
                         query_params=pr.preset_query(name))
