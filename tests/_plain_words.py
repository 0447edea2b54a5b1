"""The page states whose help texts and figure texts the plain-words tests read, and
the texts of a figure (titles, axis titles, legend and hover names)."""

SMALL = {"n_samples": "60"}


STATES = [
    ("app.py", {}),
    ("pages/1_Classification.py", SMALL),
    ("pages/1_Classification.py", {**SMALL, "view": "spectra", "replay": "true"}),
    ("pages/1_Classification.py", {**SMALL, "view": "convergence", "focus_point": "0"}),
    ("pages/1_Classification.py", {**SMALL, "method": "onk"}),
    ("pages/1_Classification.py", {**SMALL, "method": "lab_rbf"}),
    ("pages/2_Regression.py", SMALL),
    ("pages/2_Regression.py", {**SMALL, "reg_dataset": "harmonic", "replay": "true"}),
    ("pages/2_Regression.py", {**SMALL, "reg_method": "lab_rbf_reg", "reg_view": "convergence"}),
    ("pages/3_Pairwise_constraints.py", SMALL),
    ("pages/4_Sensitivity.py", {**SMALL, "sweep_points": "3", "sweep_repeats": "1"}),
    ("pages/4_Sensitivity.py", {**SMALL, "sweep_points": "3", "sweep_repeats": "1",
                                "sweep_method": "onk", "sweep_param": "onk_rho"}),
    ("pages/5_Scaling.py", {**SMALL, "scale_max_clusters": "3"}),
    ("pages/6_Paper_results.py", {}),
    ("pages/7_Lessons.py", {}),
]


def figure_texts(fig: dict) -> list[str]:
    out = []
    lay = fig.get("layout", {})

    def title(t):
        return t.get("text", "") if isinstance(t, dict) else (t or "")
    out.append(title(lay.get("title")))
    for k, v in lay.items():
        if (k.startswith("xaxis") or k.startswith("yaxis")) and isinstance(v, dict):
            out.append(title(v.get("title")))
        if k.startswith("coloraxis") and isinstance(v, dict):
            out.append(title(v.get("colorbar", {}).get("title")))
    out += [a.get("text", "") for a in lay.get("annotations", [])]
    for tr in fig.get("data", []):
        if tr.get("showlegend", True) is not False:
            out.append(tr.get("name") or "")
        out.append(title((tr.get("colorbar") or {}).get("title")))
    return [t for t in out if t]
