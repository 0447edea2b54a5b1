"""The lab's browser components: the live Plotly chart (:mod:`.chart`) and the training
replay player (:mod:`.replay`). They import only Streamlit, so a page can import them
first and start the browser's Plotly.js download before the lab's heavy imports."""
