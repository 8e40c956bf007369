"""A model report for ``companion-desktop avatar inspect``: what a file holds, and its problems.

``inspect(model)`` gives a JSON-ready dict; ``format_report(report)`` a readable text.
Vertices are counted once per distinct POSITION array (primitives sharing vertex data
count once), triangles per primitive, morph targets per mesh.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .model import PRESET_EXPRESSIONS, VrmModel

#: Optional bones whose absence changes what the avatar can do.
NOTABLE_OPTIONAL_BONES = ("neck", "chest", "leftEye", "rightEye")


def _geometry(model: VrmModel) -> dict[str, int]:
    positions = {id(p.positions): len(p.positions) for m in model.meshes for p in m.primitives}
    return {
        "meshes": len(model.meshes),
        "primitives": sum(len(m.primitives) for m in model.meshes),
        "vertices": sum(positions.values()),
        "triangles": sum(len(p.indices) // 3 for m in model.meshes for p in m.primitives),
        "morph_targets": sum(
            max((len(p.targets) for p in m.primitives), default=0) for m in model.meshes
        ),
        "skins": len(model.skins),
        "joints": sum(len(s.joints) for s in model.skins),
        "nodes": len(model.nodes),
    }


def inspect(model: VrmModel) -> dict[str, Any]:
    """Counts and names describing ``model`` (see the module docstring)."""
    presets = [name for name in PRESET_EXPRESSIONS if name in model.expressions
               and model.expressions[name].preset]
    custom = [name for name, e in model.expressions.items() if not e.preset]
    shapes = Counter(c.shape for c in model.colliders)
    return {
        "source": model.source,
        "version": model.version,
        "meta": {
            "name": model.meta.name, "version": model.meta.version,
            "authors": list(model.meta.authors), "license": model.meta.license,
        },
        "geometry": _geometry(model),
        "humanoid": {
            "count": len(model.humanoid),
            "bones": sorted(model.humanoid),
            "missing_optional": [b for b in NOTABLE_OPTIONAL_BONES if b not in model.humanoid]
            if model.version != "gltf" else [],
        },
        "expressions": {"count": len(model.expressions), "presets": presets, "custom": custom},
        "look_at": model.look_at.type if model.look_at else None,
        "first_person_annotations": len(model.first_person),
        "constraints": {kind: sum(1 for c in model.constraints if getattr(c, "kind", None) == kind)
                        for kind in ("roll", "aim", "rotation")},
        "springs": {
            "chains": len(model.springs),
            "joints": sum(len(s.joints) for s in model.springs),
            "colliders": len(model.colliders),
            "spheres": shapes.get("sphere", 0),
            "capsules": shapes.get("capsule", 0),
            "collider_groups": len(model.collider_groups),
        },
        "materials": {
            "count": len(model.materials),
            "mtoon": sum(1 for m in model.materials if m.mtoon is not None),
            "unlit": sum(1 for m in model.materials if m.unlit),
            "alpha_modes": dict(Counter(m.alpha_mode for m in model.materials)),
        },
        "textures": {
            "count": len(model.textures),
            "placeholders": sum(1 for t in model.textures if t.placeholder),
        },
        "problems": [
            {"severity": p.severity, "message": p.message, "action": p.action}
            for p in model.problems
        ],
    }


def _names(values: list[str]) -> str:
    return ", ".join(values) if values else "none"


def _constraint_line(counts: dict[str, int]) -> str:
    """``Node constraints: 3 (2 roll, 1 aim, 0 rotation)``; "none" without any."""
    total = sum(counts.values())
    if not total:
        return "Node constraints: none"
    kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    return f"Node constraints: {total} ({kinds})"


def format_report(report: dict[str, Any]) -> str:
    """The report as lines of text for a terminal."""
    g, h, e, s = report["geometry"], report["humanoid"], report["expressions"], report["springs"]
    m, t, meta = report["materials"], report["textures"], report["meta"]
    kind = {"0.x": "VRM 0.x (converted to 1.0)", "1.0": "VRM 1.0", "gltf": "glTF scene"}
    lines = [
        f"Model: {report['source']}",
        f"Kind: {kind.get(report['version'], report['version'])}",
        f"Name: {meta['name'] or '-'}  version: {meta['version'] or '-'}  "
        f"authors: {_names(meta['authors'])}  license: {meta['license'] or '-'}",
        f"Geometry: {g['meshes']} meshes, {g['primitives']} primitives, {g['vertices']} "
        f"vertices, {g['triangles']} triangles, {g['morph_targets']} morph targets",
        f"Skeleton: {g['nodes']} nodes, {g['skins']} skins, {g['joints']} joints",
    ]
    if report["version"] != "gltf":
        lines += [
            f"Humanoid: {h['count']} bones; missing optional: {_names(h['missing_optional'])}",
            f"Expressions: {e['count']} (presets: {_names(e['presets'])}; custom: "
            f"{_names(e['custom'])})",
            f"Look-at: {report['look_at'] or 'none'}",
            f"Spring bones: {s['chains']} chains, {s['joints']} joints, {s['colliders']} "
            f"colliders ({s['spheres']} spheres, {s['capsules']} capsules) in "
            f"{s['collider_groups']} groups",
            _constraint_line(report.get("constraints", {})),
        ]
    modes = ", ".join(f"{k} {v}" for k, v in sorted(m["alpha_modes"].items())) or "-"
    lines += [
        f"Materials: {m['count']} ({m['mtoon']} MToon, {m['unlit']} unlit; {modes})",
        f"Textures: {t['count']} ({t['placeholders']} placeholders)",
    ]
    problems = report["problems"]
    lines.append(f"Problems: {len(problems) or 'none'}")
    lines += [f"  [{p['severity']}] {p['message']} -> {p['action']}" for p in problems]
    return "\n".join(lines)
