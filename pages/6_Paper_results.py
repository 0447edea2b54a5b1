"""Paper results: the verdicts of ``python -m nplk_lab.model.reproduce`` with their numbers and
intervals, the real-data rows, and per paper result a link that opens its page in the
preset state where the effect shows."""

import streamlit as st

import nplk_lab.ui.components.chart as chart_component

# First element of every page, before the lab's own imports: the browser starts
# fetching and parsing Plotly.js while the server imports numpy, SciPy and the lab.
chart_component.preload()

import nplk_lab.ui as ui
from nplk_lab.model import presets as pr
from nplk_lab.model import verdicts as vd

ui.page_setup("paper", "Paper results")
ui.follow_cell_click()  # a clicked atlas square opens its state on its page
ui.presentation("paper")  # present=1: no controls, larger text
PAPER_VALUE = "paper's value"


def text(value) -> str:
    """A report cell as plain text, its underscore subscripts as subscripts."""
    return vd.maths(pr.as_text(value))


st.title("Paper results")
st.caption("What the five papers claim, what this lab measures, and where to see it. "
           "Each verdict comes from paired differences (method − baseline) over 10 seeds "
           "or data splits: it holds when the whole 95 % confidence interval is on the "
           "claimed side of 0, does not hold when it is on the other side (a loss) or at 0, "
           "and is inconclusive when it contains 0. “By construction” marks a result that "
           "follows from a parameter choice rather than from the data. Each “Open” link "
           "opens a page in a state where the effect is visible (it replaces the page's "
           "current settings; the URL then holds them).")

results, why_not = pr.load_paper_results()
if results is None:
    st.info("No reproduction results on this installation yet: the command below "
            "writes them, and the table of the papers' values against ours then appears "
            "here. The links further down work without it.")
    st.text(why_not)
    st.code(pr.REPRODUCE_COMMAND + "   # or add --quick for a short run", language="bash")
else:
    table = vd.table(results)
    c = vd.counts(results)
    st.text(f"Generated {pr.as_text(results.get('generated'))} by: "
            f"{pr.as_text(results.get('command'))}"
            + (" (quick scale: fewer points, 10 seeds or splits)"
               if results.get("quick") is True else ""))
    st.text(f"{len(table)} results: {c['holds']} hold ({c['by construction']} of all "
            f"results by construction), {c['does not hold']} do not hold, "
            f"{c['inconclusive']} inconclusive, {c['shown']} shown only.")
    if table:
        # five columns, every cell whole (a data grid's fixed row height cut the longer
        # ones at 1280×720), each cell plain text (every Markdown character escaped);
        # each row's note (often a paragraph) is in full in the list below
        shown = ("result", "verdict", "judged on: mean [95 % CI]", PAPER_VALUE, "ours")
        st.markdown(ui.markdown_table([{c: row[c] for c in shown} for row in table]))
        st.caption("Each result's note, with every number behind its verdict, is in the "
                   "list below the table.")
        st.subheader("Every verdict with its numbers")
        for row in results.get("rows", []):
            if not isinstance(row, dict):
                continue
            # file text goes through st.text only (an expander label would be markdown)
            with st.container(border=True):
                st.text(f"{text(row.get('item'))}: {vd.row_verdict(row)}")
                st.text(f"Claim: {text(row.get('claim'))}")
                st.text(f"Paper: {text(row.get('paper_value'))}")
                st.text(f"Ours: {text(row.get('ours'))}")
                for line in vd.stat_lines(row):
                    st.text(f"• {line}")
                if row.get("by_construction"):
                    st.text(f"By construction: {text(row.get('by_construction'))}")
                if row.get("note"):
                    st.text(f"Note: {text(row.get('note'))}")
    else:
        st.text("The results file has no rows.")

ui.atlas_panel()
ui.npkl_panel()

st.subheader("Open each result on its page")
groups = vd.by_preset(results, pr.PRESETS)
for name, preset in pr.PRESETS.items():
    with st.container(border=True):
        left, right = st.columns([4, 1], vertical_alignment="center")
        with left:
            st.text(preset.title)
            st.caption(preset.claim)
            for row in groups[name]:
                st.text(f"{row['result']} | paper: {row[PAPER_VALUE]} | ours: {row['ours']} "
                        f"| verdict: {row['verdict']}")
        with right:
            st.page_link(pr.preset_file(name), label="Open", icon=":material/play_arrow:",
                         query_params=pr.preset_query(name))
