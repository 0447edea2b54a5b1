"""Downloads (data, matrices, figures as data) and the configuration save and load."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import streamlit as st

import nplk_lab.model as lab

from .keys import CONFIG_APPLIED, NOTES, OPEN, POINTS_UNDO
from .state import apply_params, params, show_messages


def _fmt(v: float, fmt: str = "{:.3f}") -> str:
    return "—" if v is None or not np.isfinite(v) else fmt.format(v)


def _npy(M: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(M))
    return buf.getvalue()


def exports(page: str, data: lab.LabData | None, res: lab.LabResult | None = None,
            container: Any = None) -> None:
    """Download buttons: data CSV, configuration JSON, learned matrix .npy."""
    c = container or st
    P = params()
    # the buttons side by side in one row (one layout element, not a row of 4 columns)
    row = c.container(horizontal=True)
    cols = [row] * 4
    if data is not None:
        def csv_text() -> str:
            from nplk_core.datasets import dataset_to_csv
            return dataset_to_csv(data.X, data.y, feature_names=data.feature_names,
                                  label_name="label" if data.task == lab.CLASSIFICATION
                                  else data.label_name)
        cols[0].download_button("Data (CSV)", csv_text, file_name=f"nplk-{page}-data.csv",
                                mime="text/csv", key=f"dl_data_{page}", on_click="ignore",
                                help="The points (features and label) as a CSV file.")
    cols[1].download_button(
        "Configuration (JSON)", lambda: lab.params_to_json(P, lab.relevant_names(page, P)),
        file_name=f"nplk-{page}-config.json", mime="application/json",
        key=f"dl_cfg_{page}", on_click="ignore",
        help="Every setting of this page as JSON; load it again under “Load / reset”.")
    if res is not None and res.matrix is not None:
        M = res.matrix
        cols[2].download_button(f"Learned {res.matrix_name} (.npy)", lambda: _npy(M),
                                file_name=f"nplk-{res.method}-{res.matrix_name}.npy",
                                mime="application/octet-stream", key=f"dl_mat_{page}",
                                on_click="ignore",
                                help="The learned matrix as a NumPy file (numpy.load).")
    if res is not None and getattr(res, "ok", False) and data is not None and \
            res.task in (lab.CLASSIFICATION, lab.REGRESSION):
        def script() -> str:
            from nplk_lab.model.export_code import export_script
            try:
                return export_script(P, data, res.method)
            except ValueError as exc:
                return f"# {exc}\n"
        cols[3].download_button(
            "Export as code (.py)", script, file_name=f"nplk-{res.method}-fit.py",
            mime="text/x-python", key=f"dl_code_{page}", on_click="ignore",
            help="A short Python script that makes the same data, fits the same model with "
                 "these parameters (nplk_core and scikit-learn) and prints the scores shown "
                 "here.")
    c.caption("Figures: use the camera icon of each plot to save a PNG.")


def state_controls(page: str) -> None:
    """Sidebar footer: load a configuration, reset to defaults. Closed, the panel sends
    its label alone: its widgets are drawn once it is opened (which reruns the page),
    not on every run of every student."""
    ss = st.session_state
    box = st.sidebar.expander("Load / reset", expanded=False, key=f"{OPEN}load_{page}",
                              on_change="rerun")
    if not box.open:
        return
    with box:
        up = st.file_uploader("Load a configuration (JSON)", type=["json"],
                              key=f"cfg_upload_{page}",
                              help="A file saved with “Configuration (JSON)”: the page "
                                   "takes its settings.")
        if up is not None and ss.get(CONFIG_APPLIED) != up.file_id:
            ss[CONFIG_APPLIED] = up.file_id
            new, msgs = lab.params_from_json(up.getvalue(), params())
            if not any(m.level == "error" for m in msgs):
                apply_params(new)
                ss[NOTES] = msgs + [lab.Message("info", "Configuration loaded.")]
                st.rerun()
            show_messages(msgs)
        if st.button("Reset to defaults", key=f"reset_{page}",
                     help="Every setting back to its default (the points you added too)."):
            apply_params(lab.defaults())
            ss.pop(POINTS_UNDO, None)
            st.rerun()
        st.caption("The URL always holds the full state: copy it to share this view.")
