"""A class's votes: the live count (one horizontal bar per option, all in one neutral
colour, so the chart never gives away which option is right) and the shift from the
first vote to the second (two bars per option, told apart by their pattern too). Once
the answer is revealed, its option's label says so (a tick and "right"), never a colour
alone."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from .common import TEXT_COLOR, _axis, _figure, _layout

COUNT_COLOR = "#4C72B0"


def _labels(options: Sequence[str], wrap: int, correct: int | None) -> list[str]:
    # the lab's own wording of each option, wrapped so a narrow column keeps the bars
    labels = ["<br>".join(textwrap.wrap(str(o), wrap)) or " " for o in options]
    if correct is not None and 0 <= correct < len(labels):
        labels[correct] = f"✓ {labels[correct]} (right)"
    return labels


def answer_counts_figure(options: Sequence[str], by_choice: Mapping[int, int],
                         answered: int, students: int | None = None,
                         height: int = 320, wrap: int = 24, *, title: str | None = None,
                         correct: int | None = None) -> go.Figure:
    """Bars: how many students chose each option (``by_choice``: option index -> count);
    the title says how many answered (of ``students`` when known), or ``title``.
    ``correct``: the right option, marked on its label (only once revealed)."""
    n = [int(by_choice.get(i, 0)) for i in range(len(options))]
    of = f" of {students}" if students is not None else ""
    trace = dict(type="bar", orientation="h", x=n, y=_labels(options, wrap, correct),
                 marker=dict(color=COUNT_COLOR), text=[str(v) for v in n],
                 textposition="outside", cliponaxis=False,
                 textfont=dict(size=16, color=TEXT_COLOR), hoverinfo="skip", name="answers")
    top = max(n + [1])
    # the counts never shrunk below their size (Plotly shrinks a bar's text that is
    # taller than the bar: on a projector's short column, to 10 px)
    layout = _layout(title or f"{answered}{of} answered", height, showlegend=False,
                     uniformtext=dict(mode="show", minsize=16),
                     xaxis=_axis("students", range=[0, top * 1.25], dtick=max(1, top // 5)),
                     yaxis=_axis(autorange="reversed", tickfont=dict(size=15)))
    return _figure([trace], layout)


FIRST_VOTE_COLOR = "#9DB4D6"


def shift_figure(options: Sequence[str], first: Mapping[int, int],
                 second: Mapping[int, int], correct: int | None = None,
                 height: int = 340, wrap: int = 24, *, title: str | None = None
                 ) -> go.Figure:
    """Two bars per option: the first vote (light, hatched) and the second (solid),
    ``first``/``second``: option index -> votes. ``correct``: the right option, marked on
    its label (only once revealed)."""
    labels = _labels(options, wrap, correct)
    n1 = [int(first.get(i, 0)) for i in range(len(options))]
    n2 = [int(second.get(i, 0)) for i in range(len(options))]
    common = dict(type="bar", orientation="h", y=labels, textposition="outside",
                  cliponaxis=False, textfont=dict(size=15, color=TEXT_COLOR),
                  hoverinfo="skip")
    traces = [dict(common, x=n1, text=[str(v) for v in n1], name="first vote",
                   marker=dict(color=FIRST_VOTE_COLOR, line=dict(color=COUNT_COLOR, width=1),
                               pattern=dict(shape="/", fgcolor=COUNT_COLOR, size=6))),
              dict(common, x=n2, text=[str(v) for v in n2], name="second vote",
                   marker=dict(color=COUNT_COLOR))]
    top = max(n1 + n2 + [1])
    # thick bars, their counts never shrunk (as in answer_counts_figure)
    layout = _layout(title or f"First vote {sum(n1)}, second vote {sum(n2)}", height,
                     showlegend=True, barmode="group", bargap=0.12,
                     uniformtext=dict(mode="show", minsize=15),
                     xaxis=_axis("students", range=[0, top * 1.25], dtick=max(1, top // 5)),
                     yaxis=_axis(autorange="reversed", tickfont=dict(size=15)))
    layout["margin"]["b"] = 64      # the legend below the axis
    return _figure(traces, layout)
