"""``companion-desktop avatar inspect|render``: the model report and offscreen renders."""

from __future__ import annotations

import argparse
import json
import random
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import CliError

EMOTIONS_HELP = ("happy, sad, excited, anxious, content, frustrated, curious, affectionate, "
                 "playful, melancholy, flustered, neutral")


def add_parser(sub: argparse._SubParsersAction) -> None:
    avatar = sub.add_parser("avatar", help="inspect or render a VRM / glTF model")
    what = avatar.add_subparsers(dest="avatar_command", metavar="ACTION", required=True)
    inspect = what.add_parser("inspect", help="a report on a model: bones, expressions, problems")
    inspect.add_argument("model", type=Path)
    inspect.add_argument("--json", action="store_true")
    render = what.add_parser("render", help="render a model offscreen to a transparent PNG")
    render.add_argument("model", type=Path, help="a .vrm/.glb/.gltf file, or 'default' for Hana")
    render.add_argument("--out", type=Path, required=True, help="the PNG to write")
    render.add_argument("--size", default="512x768",
                        help="WIDTHxHEIGHT in pixels (default 512x768)")
    render.add_argument("--shot", choices=("upper", "full"), default="upper", help="framing")
    render.add_argument("--expression", action="append", default=[], metavar="NAME=WEIGHT",
                        help="set an expression weight 0..1 (repeatable), e.g. happy=1 or blink=1")
    render.add_argument("--mood", metavar="EMOTION:INTENSITY", help=f"her mood ({EMOTIONS_HELP})")
    render.add_argument("--look-at", metavar="X,Y",
                        help="where she looks: -1..1 across and up the picture")
    render.add_argument("--time", type=float, default=0.0, metavar="SEC",
                        help="seconds into her idle motion")
    render.add_argument("--clip", metavar="ID|PATH",
                        help="play an animation: a built-in id (see `animations`) or a .vrma file")
    render.add_argument("--pose", choices=("relaxed", "rest"), default="relaxed",
                        help="relaxed: arms down (default); rest: the file's own rest pose")
    render.add_argument("--aa", choices=("auto", "msaa", "lines", "post", "none"),
                        default="auto",
                        help="edge smoothing: auto (as the app draws here: lines on software "
                             "GL, msaa on a GPU), msaa (4 samples), lines (her silhouette's "
                             "edges from the mesh, over the finished picture; post where "
                             "OpenGL has no compute shaders), post (a pass over the finished "
                             "picture), none")


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CliError(f"--size: {text!r} is not WIDTHxHEIGHT, e.g. 512x768") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise CliError("--size: width and height must be between 16 and 4096")
    return w, h


def _model_path(text: Path) -> Path:
    if str(text) == "default":
        from companion_desktop.resources import default_avatar_path

        return default_avatar_path()
    if not text.is_file():
        raise CliError(f"{text}: no such file")
    return text


def _load(path: Path):  # noqa: ANN202
    from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model

    try:
        return load_model(path)
    except AvatarLoadError as error:
        raise CliError(str(error)) from None


def cmd_inspect(args: argparse.Namespace) -> int:
    from companion_desktop.avatar.vrm.report import format_report, inspect

    report = inspect(_load(_model_path(args.model)))
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(format_report(report))
    return 0


def _expressions(items: list[str]) -> dict[str, float]:
    weights: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            weights[name.strip()] = max(0.0, min(1.0, float(value)))
        except ValueError:
            raise CliError(f"--expression: {item!r} is not NAME=WEIGHT, e.g. happy=1") from None
    return weights


def cmd_render(args: argparse.Namespace) -> int:
    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer, save_png
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime
    from companion_desktop.cli.offscreen_gl import use_available_context
    from companion_desktop.engine.emotions import normalize_emotion

    use_available_context()
    width, height = _size(args.size)
    model = _load(_model_path(args.model))
    animation = relaxed_pose if args.pose == "relaxed" else None
    if args.clip:
        from companion_desktop.avatar.animation.driver import AnimationDriver

        animation = AnimationDriver()
        animation.mixer.play_base(_clip(args.clip), fade=0.0)
    runtime = AvatarRuntime(model, random.Random(0), animation=animation)
    if args.clip:
        animation.bind(runtime)
    runtime.set_blink_enabled(False)
    if args.mood:
        name, _, value = args.mood.partition(":")
        emotion = normalize_emotion(name)
        if emotion is None:
            raise CliError(f"--mood: unknown emotion {name!r}; use one of {EMOTIONS_HELP}")
        try:
            intensity = int(float(value or 70))
        except ValueError:
            raise CliError(f"--mood: {args.mood!r} is not EMOTION:INTENSITY, "
                           "e.g. happy:80") from None
        runtime.mood(emotion, max(0, min(100, intensity)))
    for name, weight in _expressions(args.expression).items():
        if not runtime.set_expression(name, weight):
            known = ", ".join(sorted(model.expressions)) or "none"
            raise CliError(f"--expression: the model has no expression {name!r} (it has: {known})")
    if args.look_at:
        try:
            x, y = (float(v) for v in args.look_at.split(","))
        except ValueError:
            raise CliError(f"--look-at: {args.look_at!r} is not X,Y, e.g. 0.5,0.2") from None
        runtime.look_at_point(_look_point(model, max(-1.0, min(1.0, x)), max(-1.0, min(1.0, y))))
    frame = _settle(runtime, max(0.0, min(600.0, args.time)))
    try:
        with OffscreenRenderer(aa=args.aa) as offscreen:  # the app's context and edges
            rgba = offscreen.render(model, frame, width, height, shot=args.shot)
            aa = offscreen.renderer.aa
    except RenderUnavailable as error:
        raise CliError(f"cannot render here: {error}") from None
    save_png(rgba, args.out)
    print(f"Wrote {args.out} ({width}x{height}, RGBA, edges: {aa})")
    return 0


def _clip(text: str):  # noqa: ANN202
    """A built-in clip by id, or a .vrma file; CliError with the loader's message."""
    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.avatar.animation.vrma import ClipLoadError, load_vrma

    try:
        if Path(text).suffix.lower() == ".vrma" or Path(text).is_file():
            if not Path(text).is_file():
                raise CliError(f"{text}: no such file")
            return load_vrma(Path(text))
        library = AnimationLibrary()
        if text not in library:
            known = ", ".join(sorted(library.ids())) or "none"
            raise CliError(f"--clip: no built-in animation {text!r} (built-ins: {known})")
        return library.get(text)
    except ClipLoadError as error:
        raise CliError(str(error)) from None


def _look_point(model, x: float, y: float):  # noqa: ANN001, ANN202
    """A point 1 m in front of her head, moved by (x, y) metres across and up the picture."""
    import numpy as np

    from companion_desktop.avatar.vrm.frame import rest_frame

    head = model.humanoid.get("head")
    origin = rest_frame(model).world[head][:3, 3] if head is not None else np.array([0, 1.4, 0])
    return np.asarray(origin, np.float32) + np.array([x, y, 1.0], np.float32)


def _settle(runtime, seconds: float):  # noqa: ANN001, ANN202
    """Run her runtime to ``seconds`` in 1/30 s steps (at least one step: faces fade in)."""
    frame = runtime.update(1 / 30)
    steps = int(seconds * 30)
    for _ in range(steps):
        frame = runtime.update(1 / 30)
    for _ in range(30 if not steps else 0):  # let the face finish fading to its target
        frame = runtime.update(1 / 30)
    return frame


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    """Inspect or render (time plays no part: ``now`` is accepted like every command's)."""
    return cmd_inspect(args) if args.avatar_command == "inspect" else cmd_render(args)
