"""Every built-in clip's .vrma bytes, the ``library.json`` manifest and the folder README."""

from __future__ import annotations

import json

from .clips import all_motions
from .motion import Motion
from .vrma import write

README_HEAD = """# Built-in animations

Hana's built-in motions: VRM Animation files (`.vrma`: glTF 2.0 binary with
`VRMC_vrm_animation` 1.0) authored in this project's own code, no motion capture and no
third-party data. **Generated** by `tools/make_builtin_clips.py` (source in
`tools/clips_gen/`): do not edit them by hand; change the code and run

    .venv/bin/python tools/make_builtin_clips.py

`tests/avatar/test_builtin_clips.py` checks that these files equal what the generator
writes. `library.json` lists them (id, name, kind, file, description, loop) for
`companion_desktop.avatar.animation.library`.

Each file carries a T-pose humanoid skeleton with Hana's proportions and identity rest
rotations, so a node's animated local rotation is the bone's normalized rotation (she faces
+Z, +X is her left). Every bone has a rotation channel and the hips a translation channel,
linear keys at 30 fps with the redundant ones left out; some clips animate expressions
(`expressions.preset.<name>.node`, weight in translation.x). Loops end on their first key;
emotes start and end at the same relaxed arms-down pose.

Preview them on Hana and Godette (contact sheets in `shots/`, git-ignored):

    .venv/bin/python tools/clips_gen/preview.py [ids...] [--vrma]

| id | kind | loop | seconds | description |
|---|---|---|---|---|
"""


def entry(m: Motion) -> dict:
    return {"id": m.id, "name": m.name, "kind": m.kind, "file": f"{m.id}.vrma",
            "description": m.description, "loop": m.loop}


def build() -> tuple[dict[str, bytes], list[Motion]]:
    """File name -> bytes for every clip, library.json and README.md."""
    motions = all_motions()
    files: dict[str, bytes] = {}
    for m in motions:
        files[f"{m.id}.vrma"] = write(m.bake(), m.id)
    manifest = {"clips": [entry(m) for m in motions]}
    files["library.json"] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode()
    rows = "".join(f"| `{m.id}` | {m.kind} | {'yes' if m.loop else 'no'} | {m.duration:g} | "
                   f"{m.description} |\n" for m in motions)
    files["README.md"] = (README_HEAD + rows).encode()
    return files, motions
