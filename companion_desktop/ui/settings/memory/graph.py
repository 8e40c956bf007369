"""The memory graph: facts as nodes coloured by category, linked by what they share.

Edges join facts whose embeddings have a cosine similarity of at least 0.5 or,
without embeddings, facts that share a keyword. With embeddings, each fact's nearest
weaker neighbours (cosine 0.35 to 0.5) are hinted at with dashed lines, so a model
whose related sentences score below 0.5 still shows clusters. Those are the numbers
for the MiniLM models; another model passes its own (``memory.calibration``). The layout is a small
Fruchterman-Reingold force simulation in numpy, seeded, so the same facts
always land in the same places. The view zooms with the wheel, pans by dragging,
and shows the fact under the pointer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QResizeEvent, QWheelEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsScene,
    QGraphicsSceneHoverEvent,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.storage.records import FactRecord
from companion_desktop.ui.plain import plain_label, plain_tip

#: Cosine similarity at or above which two facts are linked.
EDGE_COSINE = 0.5
#: Strongest links kept per fact, so large memories stay readable.
MAX_LINKS_PER_NODE = 6
#: Below the link threshold, a fact's nearest neighbours down to this cosine are hinted at
#: with faint dashed lines (at most ``HINTS_PER_NODE``), so few-link memories still cluster.
HINT_COSINE = 0.35
HINTS_PER_NODE = 2
CATEGORY_COLOURS = {"user": "#7a8ce0", "relationship": "#d873b0", "shared_experience": "#e5a54b"}
CATEGORY_LABELS = {"user": "About you", "relationship": "Relationship",
                   "shared_experience": "Shared experience"}
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_STOP = frozenset(
    "the and you your for are was with that this have has had what when where who why how but not "
    "all can her him his its our out she they them then there their user users user's likes like "
    "loves love enjoys wants once really very about from into been being were will would just "
    "also some more most she's he's they're one two".split())
ZOOM_MIN, ZOOM_MAX = 0.15, 6.0
HELP = "Hover a memory to read it. Scroll to zoom, drag to move around."


@dataclass(frozen=True)
class Edge:
    """A link between nodes ``a`` < ``b``; ``weight`` 0-1 (cosine, or keyword overlap)."""

    a: int
    b: int
    weight: float


def keywords(text: str) -> set[str]:
    """Lower-case words of three or more letters, without common and filler words."""
    return {w for w in _WORD.findall(text.casefold()) if w not in _STOP}


def similarity_edges(vectors: np.ndarray, threshold: float = EDGE_COSINE,
                     per_node: int = MAX_LINKS_PER_NODE) -> list[Edge]:
    """Edges between rows of normalized ``vectors`` (n, dim) with cosine >= ``threshold``,
    keeping each node's ``per_node`` strongest."""
    n = len(vectors)
    if n < 2:
        return []
    sims = np.asarray(vectors, np.float32) @ np.asarray(vectors, np.float32).T
    np.fill_diagonal(sims, -1.0)
    return _strongest(sims, threshold, per_node)


def similarity_hints(vectors: np.ndarray, edges: Sequence[Edge], floor: float = HINT_COSINE,
                     below: float = EDGE_COSINE, per_node: int = HINTS_PER_NODE) -> list[Edge]:
    """Each node's nearest neighbours with ``floor`` <= cosine < ``below`` that are not
    linked already (the dashed lines)."""
    n = len(vectors)
    if n < 2:
        return []
    sims = np.asarray(vectors, np.float32) @ np.asarray(vectors, np.float32).T
    np.fill_diagonal(sims, -1.0)
    sims[sims >= below] = -1.0
    linked = {(e.a, e.b) for e in edges}
    return [e for e in _strongest(sims, floor, per_node) if (e.a, e.b) not in linked]


def keyword_edges(texts: Sequence[str], per_node: int = MAX_LINKS_PER_NODE) -> list[Edge]:
    """Edges between texts that share a keyword; weight is their Jaccard overlap."""
    sets = [keywords(t) for t in texts]
    n = len(sets)
    sims = np.full((n, n), -1.0, np.float32)
    for i in range(n):
        for j in range(i + 1, n):
            shared = len(sets[i] & sets[j])
            if shared:
                sims[i, j] = sims[j, i] = shared / len(sets[i] | sets[j])
    return _strongest(sims, 1e-6, per_node)


def _strongest(sims: np.ndarray, threshold: float, per_node: int) -> list[Edge]:
    keep: set[tuple[int, int]] = set()
    for i in range(len(sims)):
        order = np.argsort(-sims[i])[:per_node]
        keep.update((min(i, int(j)), max(i, int(j))) for j in order if sims[i, j] >= threshold)
    return [Edge(a, b, float(max(0.0, min(1.0, sims[a, b])))) for a, b in sorted(keep)]


def force_layout(n: int, edges: Sequence[Edge], groups: Sequence[int] | None = None,
                 iterations: int = 220, seed: int = 7) -> np.ndarray:
    """(n, 2) positions in about [-1, 1]: nodes repel, edges pull by weight, a weak pull to
    the centre keeps islands near; ``groups`` (category per node) seed the start in sectors."""
    if n == 0:
        return np.zeros((0, 2))
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, 2 * math.pi, n)
    if groups is not None:
        angle = np.asarray(groups, float) * (2 * math.pi / 3) + rng.uniform(-0.8, 0.8, n)
    radius = rng.uniform(0.3, 1.0, n)
    pos = np.stack([np.cos(angle) * radius, np.sin(angle) * radius], axis=1)
    if n == 1:
        return pos * 0
    k = 1.6 / math.sqrt(n)
    a = np.array([e.a for e in edges], int)
    b = np.array([e.b for e in edges], int)
    w = np.array([0.3 + e.weight for e in edges], float)
    temperature = 0.12
    for step in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.sqrt((delta**2).sum(-1)) + 1e-6
        force = (delta * (k * k / dist**2)[..., None]).sum(1)
        if len(a):
            d = pos[a] - pos[b]
            length = np.sqrt((d**2).sum(-1)) + 1e-6
            pull = d * ((length / k) * w)[:, None]
            np.add.at(force, a, -pull)
            np.add.at(force, b, pull)
        force -= pos * 0.6 * k
        size = np.sqrt((force**2).sum(-1)) + 1e-9
        pos += force / size[:, None] * np.minimum(size, temperature)[:, None]
        temperature = 0.12 * (1 - step / iterations) + 0.002
    pos -= pos.mean(0)
    scale = np.abs(pos).max() or 1.0
    return pos / scale


class NodeItem(QGraphicsEllipseItem):
    """One fact; hovering highlights it and its links and reports it to the view."""

    def __init__(self, fact: FactRecord, radius: float, view: MemoryGraphView) -> None:
        super().__init__(-radius, -radius, 2 * radius, 2 * radius)
        self.fact = fact
        self.view = view
        self.edges: list[QGraphicsLineItem] = []
        colour = QColor(CATEGORY_COLOURS.get(fact.category, "#9a8fa3"))
        self.setBrush(QBrush(colour))
        self.setPen(QPen(QColor("#ffffff"), 1.5))
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        self.setToolTip(plain_tip(tooltip(fact)))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self.view.hover(self, True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self.view.hover(self, False)
        super().hoverLeaveEvent(event)


def tooltip(fact: FactRecord) -> str:
    model = fact.embedding_model or "not embedded"
    return (f"{fact.content}\n{CATEGORY_LABELS.get(fact.category, fact.category)} · importance "
            f"{fact.importance:.0f} · referenced {fact.reference_count}× · {model}")


class MemoryGraphView(QGraphicsView):
    """The scene of nodes and edges. ``hovered`` carries the fact text ("" when none)."""

    hovered = Signal(str)
    SPREAD = 400.0  # scene units per layout unit

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryGraph")
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(QColor("#fdfafd"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMinimumHeight(220)
        self.nodes: list[NodeItem] = []
        self.edges: list[Edge] = []
        self.hints: list[Edge] = []
        self.zoom = 1.0
        self.auto_fit = True  # refit on resize until the user zooms

    def set_graph(self, facts: Sequence[FactRecord], vectors: np.ndarray | None,
                  edge: float = EDGE_COSINE, hint: float = HINT_COSINE) -> None:
        """Draw ``facts``; with ``vectors`` (n, dim) edges come from similarity (links at
        ``edge`` or more, dashed hints from ``hint``), else keywords."""
        scene = self.scene()
        scene.clear()
        self.nodes = []
        if vectors is not None and len(vectors) == len(facts):
            self.edges = similarity_edges(vectors, edge)
            self.hints = similarity_hints(vectors, self.edges, floor=hint, below=edge)
        else:
            self.edges = keyword_edges([f.content for f in facts])
            self.hints = []
        order = {"user": 0, "relationship": 1, "shared_experience": 2}
        pulls = self.edges + [Edge(h.a, h.b, h.weight * 0.4) for h in self.hints]
        pos = force_layout(len(facts), pulls, [order.get(f.category, 0) for f in facts])
        points = [QPointF(float(x) * self.SPREAD, float(y) * self.SPREAD) for x, y in pos]
        for fact, point in zip(facts, points, strict=True):
            node = NodeItem(fact, 7.0 + 11.0 * max(0.0, min(100.0, fact.importance)) / 100, self)
            node.setPos(point)
            scene.addItem(node)
            self.nodes.append(node)
        for edge, hint in [(e, False) for e in self.edges] + [(h, True) for h in self.hints]:
            line = QGraphicsLineItem(points[edge.a].x(), points[edge.a].y(),
                                     points[edge.b].x(), points[edge.b].y())
            line.setData(0, edge.weight)
            line.setData(1, hint)
            line.setPen(self._edge_pen(edge.weight, False, hint))
            line.setZValue(0)
            scene.addItem(line)
            self.nodes[edge.a].edges.append(line)
            self.nodes[edge.b].edges.append(line)
        self._labels(points)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-40, -30, 40, 30))
        self.auto_fit = True
        self.fit()

    def _labels(self, points: list[QPointF]) -> None:
        """Short labels on the most important facts (the rest show on hover)."""
        ranked = sorted(range(len(self.nodes)), key=lambda i: -self.nodes[i].fact.importance)
        font = QFont()
        font.setPointSizeF(8.5)
        for i in ranked[:12]:
            text = self.nodes[i].fact.content
            label = QGraphicsSimpleTextItem(text if len(text) <= 28 else text[:26] + "…")
            label.setFont(font)
            label.setBrush(QColor("#6f5f7a"))
            label.setPos(points[i] + QPointF(14, -7))
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            label.setZValue(1)
            label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self.scene().addItem(label)

    @staticmethod
    def _edge_pen(weight: float, lit: bool, hint: bool = False) -> QPen:
        colour = QColor("#9b4fc0" if lit else "#a892b8" if hint else "#9a6cb8")
        colour.setAlphaF(0.8 if lit else 0.6 if hint else 0.45 + 0.5 * weight)
        pen = QPen(colour, (1.4 if hint else 2.4) if lit else 1.0 if hint else 1.0 + 2.0 * weight)
        if hint:
            pen.setStyle(Qt.PenStyle.DashLine)
        return pen

    def hover(self, node: NodeItem, entered: bool) -> None:
        for line in node.edges:
            line.setPen(self._edge_pen(float(line.data(0) or 0), entered, bool(line.data(1))))
            line.setZValue(1 if entered else 0)
        node.setPen(QPen(QColor("#5b3a6e" if entered else "#ffffff"), 2.5 if entered else 1.5))
        self.hovered.emit(tooltip(node.fact) if entered else "")

    def fit(self) -> None:
        """Show the whole graph (and keep it fitted as the view resizes)."""
        rect: QRectF = self.scene().sceneRect()
        self.auto_fit = True
        if rect.isEmpty():
            return
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        self.zoom = self.transform().m11()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if not steps:
            return
        factor = 1.15**steps
        target = max(ZOOM_MIN, min(ZOOM_MAX, self.zoom * factor))
        self.auto_fit = False
        self.scale(target / self.zoom, target / self.zoom)
        self.zoom = target


class MemoryGraph(QWidget):
    """The Graph tab: a legend, the view, a line naming the fact under the pointer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        legend = QHBoxLayout()
        for category, colour in CATEGORY_COLOURS.items():
            dot = QLabel("●")
            dot.setStyleSheet(f"color: {colour}; font-size: 15px;")
            legend.addWidget(dot)
            legend.addWidget(QLabel(CATEGORY_LABELS[category], objectName="pageHint"))
            legend.addSpacing(10)
        legend.addStretch(1)
        self.fit_button = QPushButton("Fit", objectName="secondaryButton")
        legend.addWidget(self.fit_button)
        layout.addLayout(legend)
        self.view = MemoryGraphView()
        frame = QFrame(objectName="graphFrame")
        frame.setStyleSheet("#graphFrame { border: 1px solid #eadff0; border-radius: 12px; "
                            "background: #fdfafd; }")
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(2, 2, 2, 2)
        inner.addWidget(self.view)
        layout.addWidget(frame, 1)
        self.summary = plain_label(objectName="pageHint", wordWrap=True)
        layout.addWidget(self.summary)
        self.info = plain_label(HELP, objectName="graphInfo", wordWrap=True)  # fact text
        self.info.setStyleSheet("#graphInfo { color: #5b3a6e; }")
        self.info.setMinimumHeight(36)
        self.info.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.info)
        self.fit_button.clicked.connect(self.view.fit)
        self.view.hovered.connect(self._hovered)

    def _hovered(self, text: str) -> None:
        self.info.setText(text or HELP)

    def set_graph(self, facts: Sequence[FactRecord], vectors: np.ndarray | None,
                  edge: float = EDGE_COSINE, hint: float = HINT_COSINE) -> None:
        self.view.set_graph(facts, vectors, edge, hint)
        how = "similar meaning" if vectors is not None else "shared words"
        n, links = len(facts), len(self.view.edges)
        text = (f"{n} memor{'y' if n == 1 else 'ies'} · "
                f"{links} link{'' if links == 1 else 's'} by {how}")
        if vectors is not None:
            text += f" (≥ {edge:g})"
        if self.view.hints:
            text += f" · {len(self.view.hints)} dashed: nearest, weaker"
        self.summary.setText(text)
