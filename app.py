"""NPLK Lab home page (placeholder until the app pages land)."""

import streamlit as st

st.set_page_config(page_title="NPLK Lab", layout="wide")
st.title("NPLK Lab")
st.write("Non-parametric and locally adaptive kernel learning, live.")
