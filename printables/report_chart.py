"""The report's line charts over game minutes: one line per team (or track), and a legend that
names every one of them, on as many rows as the names need (2 to 6 teams, names up to 30 characters)."""

from __future__ import annotations

from reportlab.graphics import renderPDF
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing
from reportlab.graphics.widgets.markers import makeMarker

from .drawing import FONT, INK, PT, colour, text, white_contrast
from .fonts import width as string_width
from .geometry import Box
from .labels import t

MARKERS = ("FilledCircle", "FilledSquare", "FilledTriangle", "FilledDiamond", "Circle", "Square")
DASHES = (None, (2, 1), (0.6, 0.8), (3, 1, 0.6, 1), (1.5, 1.5), (4, 1.5))


def line_colour(hex_value: str):
    """A team colour made dark enough to read as a line on white (yellow at 1.7:1 would vanish)."""
    if white_contrast(hex_value) >= 3:
        return colour(hex_value)
    r, g, b = (int(hex_value[i:i + 2], 16) for i in (1, 3, 5))
    return colour(f"#{int(r * 0.55):02x}{int(g * 0.55):02x}{int(b * 0.55):02x}")


def spread(series: list, top: float) -> list:
    """Each series lifted a hair above the one before, so equal step lines lie side by side, not on top."""
    lift = top * 0.012
    return [[(x, y + i * lift) for x, y in points] for i, (_, _, points) in enumerate(series)]


def chart(c, box: Box, series: list, minutes: float, lang: str, top: float | None = None,
          marks: tuple = ()) -> None:
    """A line chart of (label, colour, points) over game minutes, its legend under it (`legend_height`
    of the box: the plot keeps the rest).

    Lines differ by colour, dash and marker, and the legend shows all three with
    the name, so no one needs to tell red from green. `marks` are (value, label)
    horizontal lines (the unlock level, the end of a track).
    """
    below = legend_height(series, box.w)
    plot_box = Box(box.x, box.y + below, box.w, box.h - below)
    drawing = Drawing(plot_box.w, plot_box.h)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 10, 8, plot_box.w - 14, plot_box.h - 10
    top = top or max([y for _, _, points in series for _, y in points] + [1])
    plot.data = spread(series, top)
    for i, (_, hex_value, _) in enumerate(series):
        plot.lines[i].strokeColor = line_colour(hex_value)
        plot.lines[i].strokeWidth = 0.6
        plot.lines[i].strokeDashArray = DASHES[i % len(DASHES)]
        plot.lines[i].symbol = makeMarker(MARKERS[i % len(MARKERS)], size=1.6, fillColor=line_colour(hex_value),
                                          strokeColor=line_colour(hex_value))
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = 0, max(1.0, minutes)
    plot.yValueAxis.valueMin, plot.yValueAxis.valueMax = 0, top * 1.04
    for axis, ticks in ((plot.xValueAxis, "tickDown"), (plot.yValueAxis, "tickLeft")):
        setattr(axis, ticks, 1)
        axis.strokeWidth = 0.2
        axis.labels.fontName, axis.labels.fontSize = FONT, 8 * PT
    plot.xValueAxis.labels.dy = -1
    plot.yValueAxis.labels.dx = -1
    drawing.add(plot)
    renderPDF.draw(drawing, c, plot_box.x, plot_box.y)
    for value, label in marks:
        y = plot_box.y + plot.y + plot.height * value / (top * 1.04)
        c.saveState()
        c.setDash(1.2, 1)
        c.setStrokeColor(INK)
        c.setLineWidth(0.3)
        c.line(plot_box.x + plot.x, y, plot_box.x + plot.x + plot.width, y)
        c.restoreState()
        text(c, label, plot_box.x + plot.x + 1, y + 0.8, 8 * PT, FONT, INK)
    text(c, t(lang, "minutes"), plot_box.right - 4, plot_box.y + 1, 8 * PT, FONT, INK, "right")
    for i, (label, hex_value, _), x, row in legend_places(series, box):
        y = box.y + 1.5 + LEGEND_ROW * (row_count(series, box.w) - 1 - row)
        ink = line_colour(hex_value)
        c.saveState()
        c.setStrokeColor(ink)
        c.setLineWidth(0.6)
        if DASHES[i % len(DASHES)]:
            c.setDash(list(DASHES[i % len(DASHES)]))
        c.line(x, y + 1.1, x + 8, y + 1.1)
        c.restoreState()
        marker = makeMarker(MARKERS[i % len(MARKERS)], size=1.8, fillColor=ink, strokeColor=ink)
        marker.x, marker.y = 4, 0
        small = Drawing(8, 3)
        small.add(marker)
        renderPDF.draw(small, c, x, y + 1.1)
        text(c, label, x + 10, y, LEGEND_SIZE)


LEGEND_SIZE = 9 * PT
LEGEND_ROW = 4.5  # mm from one row of the legend to the next
ENTRY_GAP = 6  # mm after an entry's name before the next entry's line


def _entry_width(label: str) -> float:
    return 10 + string_width(label, FONT, LEGEND_SIZE)


def legend_places(series: list, box: Box) -> list:
    """(index, series entry, x, row) of each entry: left to right, a new row when the next would pass the box."""
    places, x, row = [], box.x + 10, 0
    for i, entry in enumerate(series):
        width = _entry_width(entry[0])
        if x > box.x + 10 and x + width > box.right:
            x, row = box.x + 10, row + 1
        places.append((i, entry, x, row))
        x += width + ENTRY_GAP
    return places


def row_count(series: list, width: float) -> int:
    places = legend_places(series, Box(0, 0, width, 0))
    return 1 + max((row for *_, row in places), default=0)


def legend_height(series: list, width: float) -> float:
    """The height under the plot: its axis labels and every row of the legend (9 mm for one row)."""
    return 4.5 + LEGEND_ROW * row_count(series, width)
