"""The live count of a class's answers (issue 32): one horizontal bar per option, all in
one neutral colour, so the chart never gives away which option is right."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .common import TEXT_COLOR, _axis, _figure, _layout

COUNT_COLOR = "#4C72B0"


def answer_counts_figure(options: Sequence[str], by_choice: Mapping[int, int],
                         answered: int, students: int | None = None,
                         height: int = 320, wrap: int = 24) -> go.Figure:
    """Bars: how many students chose each option (``by_choice``: option index -> count);
    the title says how many answered (of ``students`` when known)."""
    n = [int(by_choice.get(i, 0)) for i in range(len(options))]
    of = f" of {students}" if students is not None else ""
    # the lab's own wording of each option, wrapped so a narrow column keeps the bars
    labels = ["<br>".join(textwrap.wrap(str(o), wrap)) or " " for o in options]
    trace = dict(type="bar", orientation="h", x=n, y=labels, marker=dict(color=COUNT_COLOR),
                 text=[str(v) for v in n], textposition="outside", cliponaxis=False,
                 textfont=dict(size=16, color=TEXT_COLOR), hoverinfo="skip",
                 name="answers")
    top = max(n + [1])
    layout = _layout(f"{answered}{of} answered", height, showlegend=False,
                     xaxis=_axis("students", range=[0, top * 1.25], dtick=max(1, top // 5)),
                     yaxis=_axis(autorange="reversed", tickfont=dict(size=15)))
    return _figure([trace], layout)
