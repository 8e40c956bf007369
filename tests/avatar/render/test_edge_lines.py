"""Edge lines (``avatar.render.silhouette``): the edges found in a mesh, and pictures
drawn with them against a 4x4 supersampled reference of the same frame (EGL)."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.render.antialias import box_down, edge_error, edge_mask
from companion_desktop.avatar.render.mesh_edges import mesh_edges
from tests.avatar.render import scenes


def _faces(indices) -> set[tuple[int, int, int]]:
    """Every face as its three rotations (winding kept)."""
    out = set()
    for a, b, c in np.asarray(indices).reshape(-1, 3).tolist():
        out |= {(a, b, c), (b, c, a), (c, a, b)}
    return out


def _welded_cube() -> scenes.Primitive:
    """A cube of 8 shared corners, 12 outward counter-clockwise faces."""
    corners = [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    box = scenes.box((2, 2, 2))
    weld = {tuple(p): i for i, p in enumerate(corners)}
    indices = [weld[tuple(np.round(box.positions[i]).astype(int).tolist())]
               for i in box.indices]
    return scenes.prim(corners, np.array(corners, float) / np.sqrt(3), indices)


def test_a_closed_cube_has_its_twelve_edges_each_between_its_two_faces():
    cube = _welded_cube()
    edges = mesh_edges(cube.indices, cube.positions)
    faces = _faces(cube.indices)
    assert edges.dtype == np.uint32 and edges.shape == (12, 4)  # the 6 diagonals are flat
    for c, a, b, d in edges.tolist():
        assert d != c  # closed: a face on each side
        assert (a, b, c) in faces and (b, a, d) in faces
    assert len({frozenset(e[1:3]) for e in edges.tolist()}) == 12
    with_flat = mesh_edges(cube.indices, cube.positions, flat_degrees=0.0)
    assert with_flat.shape == (18, 4)  # the face diagonals too


def test_a_uv_seam_is_no_edge_and_the_split_cube_gives_the_same_edges():
    split = scenes.box((2, 2, 2))  # 24 vertices: every corner split three ways
    edges = mesh_edges(split.indices, split.positions)
    assert edges.shape == (12, 4) and (edges[:, 3] != edges[:, 0]).all()
    ends = {frozenset(map(tuple, np.round(split.positions[e[1:3]]).astype(int).tolist()))
            for e in edges}
    assert len(ends) == 12


def test_open_edges_and_faces_that_do_not_pair():
    square = scenes.quad(2.0)  # two triangles: four open sides, a flat diagonal
    edges = mesh_edges(square.indices, square.positions)
    assert edges.shape == (4, 4) and (edges[:, 3] == edges[:, 0]).all()
    faces = _faces(square.indices)
    assert all((a, b, c) in faces for c, a, b, _d in edges.tolist())
    # A neighbour wound the other way is no pair: each face keeps its side as open.
    flipped = np.array([0, 1, 2, 0, 1, 3], np.uint32)
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0.5]], np.float32)
    shared = [e for e in mesh_edges(flipped, points).tolist() if {e[1], e[2]} == {0, 1}]
    assert len(shared) == 2 and all(e[3] == e[0] for e in shared)
    # Three faces on one edge: none of them pairs.
    fan = np.array([0, 1, 2, 1, 0, 3, 1, 0, 4], np.uint32)
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, -1, 0.5], [0, -1, -0.5]],
                      np.float32)
    shared = [e for e in mesh_edges(fan, points).tolist() if {e[1], e[2]} == {0, 1}]
    assert len(shared) == 3 and all(e[3] == e[0] for e in shared)
    degenerate = np.array([0, 0, 1], np.uint32)
    assert mesh_edges(degenerate, points).shape == (0, 4)
    assert mesh_edges(np.zeros(0, np.uint32), points).shape == (0, 4)


def _pictures(gl_context, model, size=(96, 144), modes=("none", "lines")):
    """Premultiplied pictures of ``model`` in each mode and the 4x4 reference."""
    from companion_desktop.avatar.render.camera import frame_camera
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer, rest_frame

    width, height = size
    frame = rest_frame(model)
    camera = frame_camera(model, frame, "full", width / height)
    out = {}
    for mode in ("none", *modes):
        offscreen = OffscreenRenderer(aa=mode, context=gl_context)
        try:
            if mode == "lines" and offscreen.renderer.aa != "lines":
                pytest.skip("this OpenGL context has no compute shaders")
            out[mode] = offscreen.render(model, frame, width, height, camera=camera,
                                         premultiplied=True)
            if mode == "none":
                big = offscreen.render(model, frame, width * 4, height * 4, camera=camera,
                                       premultiplied=True, pixel_scale=4)
                out["reference"] = box_down(big, 4)
        finally:
            offscreen.renderer.release()
    return out


@pytest.mark.gl
def test_lines_smooth_a_silhouette_to_a_fraction_of_a_pixel(gl_context, gl):
    material = scenes.mtoon_material("ball", (0.9, 0.5, 0.2), (0.6, 0.3, 0.1))
    model = scenes.single_mesh([scenes.sphere(0.5, segments=40, rings=24)], [material])
    p = _pictures(gl_context, model)
    reference, none, lines = p["reference"], p["none"], p["lines"]
    before, after = edge_error(none, reference)[0], edge_error(lines, reference)[0]
    assert after < 0.4 * before
    alpha = lines[..., 3].astype(int)
    assert ((alpha > 0) & (alpha < 255)).sum() > 40  # the rim got in-between alpha
    assert (lines[..., :3].astype(int) <= alpha[..., None]).all()  # premultiplied
    far = ~edge_mask(reference[..., 3])
    grown = np.pad(far, 2)[4:, 2:-2] & np.pad(far, 2)[:-4, 2:-2] & far
    assert np.array_equal(lines[grown], none[grown])  # away from the edge: untouched


@pytest.mark.gl
def test_an_outline_is_smoothed_on_both_its_sides(gl_context, gl):
    material = scenes.mtoon_material("ball", (0.3, 0.5, 1.0), (0.2, 0.35, 0.9),
                                     outline=0.012)
    model = scenes.single_mesh([scenes.sphere(0.5, segments=40, rings=24)], [material])
    p = _pictures(gl_context, model)
    reference = p["reference"]
    before, after = edge_error(p["none"], reference)[0], edge_error(p["lines"], reference)[0]
    assert after < 0.5 * before
    # Inside the rim, where the dark outline meets the blue body, pixels are opaque in
    # the reference too: the lines place that edge as well.
    inner = edge_mask(reference[..., 3]) & (reference[..., 3] > 254.5)

    def inner_error(rgba: np.ndarray) -> float:
        return float(np.abs(rgba[inner].astype(float) - reference[inner]).mean())

    assert inner.sum() > 100 and inner_error(p["lines"]) < 0.75 * inner_error(p["none"])


@pytest.mark.gl
def test_a_hidden_silhouette_changes_nothing(gl_context, gl):
    """A ball wholly behind a wall: its silhouette edges are hidden, so the picture is
    the wall's, with only the wall's own edges smoothed."""
    wall = scenes.mtoon_material("wall", (0.2, 0.7, 0.3), (0.1, 0.4, 0.2))
    ball = scenes.mtoon_material("ball", (0.9, 0.2, 0.2), (0.5, 0.1, 0.1))
    model = scenes.single_mesh([scenes.quad(2.0, z=0.4, material=0),
                                scenes.sphere(0.3, (0, 0, 0), 24, 16, material=1)],
                               [wall, ball])
    _assert_wall_untouched(_pictures(gl_context, model))


def _assert_wall_untouched(p: dict) -> None:
    lines, none = p["lines"], p["none"]
    inside = none[..., 3] == 255
    inside &= np.pad(inside, 2)[4:, 2:-2] & np.pad(inside, 2)[:-4, 2:-2]
    inside &= np.pad(inside, 2)[2:-2, 4:] & np.pad(inside, 2)[2:-2, :-4]
    assert inside.sum() > 1000 and np.array_equal(lines[inside], none[inside])


@pytest.mark.gl
def test_an_edge_just_behind_a_patterned_wall_changes_nothing(gl_context, gl):
    """A card 2 cm behind a checkered wall: near enough that the depth test alone would
    let its edges through (an edge is pulled 3 cm towards the eye), but the pixels on
    both sides of them are the wall, in front of the card."""
    wall = scenes.mtoon_material("wall", (0.9, 0.9, 0.9), (0.6, 0.6, 0.6),
                                 base_color_texture=scenes.TextureRef(0, scale=(6.0, 6.0)))
    card = scenes.mtoon_material("card", (0.9, 0.2, 0.2), (0.5, 0.1, 0.1),
                                 double_sided=True)
    model = scenes.single_mesh([scenes.quad(2.0, z=0.02, material=0),
                                scenes.quad(0.9, z=0.0, material=1, center=(0.07, 0.03))],
                               [wall, card], textures=[scenes.checker(64, 8)])
    _assert_wall_untouched(_pictures(gl_context, model))


@pytest.mark.gl
def test_lines_fall_back_to_the_post_pass_without_compute_shaders(gl, monkeypatch):
    from companion_desktop.avatar.render import renderer
    from companion_desktop.avatar.render.antialias import auto_mode
    from companion_desktop.avatar.render.compute import supported

    assert supported()  # Mesa's llvmpipe: OpenGL 4.5
    assert renderer.Renderer(aa="lines").aa == "lines"
    assert renderer.Renderer(aa="lines", specialize=False).aa == "post"
    monkeypatch.setattr(renderer, "supported", lambda: False)
    assert renderer.Renderer(aa="lines").aa == "post"
    assert auto_mode("llvmpipe (LLVM 15.0.6, 256 bits)", compute=True) == "lines"
    assert auto_mode("llvmpipe (LLVM 15.0.6, 256 bits)", compute=False) == "post"
    assert auto_mode("NVIDIA GeForce RTX 4070/PCIe/SSE2", compute=True) == "msaa"


@pytest.mark.gl
def test_rigid_parts_and_a_skinned_model_are_smoothed(gl_context, gl):
    """Many rigid parts, each with its node's matrix and an outline (the doll), and the
    skinned built-in Hana: both placed by the one pass over the whole model."""
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.resources import default_avatar_path

    for model in (scenes.doll(), load_model(default_avatar_path())):
        p = _pictures(gl_context, model, size=(120, 220))
        before = edge_error(p["none"], p["reference"])[0]
        assert edge_error(p["lines"], p["reference"])[0] < 0.5 * before


@pytest.mark.gl
def test_the_whole_model_pass_places_vertices_as_the_one_by_one_pass(gl_context, gl,
                                                                     monkeypatch):
    """Primitives whose outline width comes from a texture are placed one by one; the
    others all at once. Placed one by one, every vertex (on the surface and on the hull)
    lands where the whole-model pass puts it, and the picture's edges are as smooth (its
    pixels may differ where two edges cross one: whichever edge the walk wrote last)."""
    from companion_desktop.avatar.render import silhouette
    from companion_desktop.avatar.render.camera import frame_camera
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer, rest_frame
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.resources import default_avatar_path

    width, height = 120, 220
    for model in (scenes.doll(), load_model(default_avatar_path())):
        frame = rest_frame(model)
        camera = frame_camera(model, frame, "full", width / height)
        reference = _pictures(gl_context, model, size=(width, height), modes=())["reference"]
        places, errors = [], []
        for one_by_one in (False, True):
            with monkeypatch.context() as patch:
                if one_by_one:
                    patch.setattr(silhouette, "_textured", lambda prim, params: params.has_outline)
                offscreen = OffscreenRenderer(aa="lines", context=gl_context)
                try:
                    if offscreen.renderer.aa != "lines":
                        pytest.skip("this OpenGL context has no compute shaders")
                    picture = offscreen.render(model, frame, width, height, camera=camera,
                                               premultiplied=True)
                    layout = offscreen.renderer.edges._layout
                    if one_by_one:  # every outlined primitive went through its own pass
                        assert layout.textured == layout.outlined
                    places.append(_buffer(layout.places.buffer, np.float32).reshape(-1, 4))
                    errors.append(edge_error(picture, reference)[0])
                finally:
                    offscreen.renderer.release()
        together, apart = places
        assert together.shape == apart.shape and len(together) > 100
        np.testing.assert_allclose(apart, together, rtol=1e-5, atol=1e-5)
        assert errors[1] == pytest.approx(errors[0], abs=0.25)


def _buffer(buffer: int, dtype) -> np.ndarray:  # noqa: ANN001
    from OpenGL import GL

    GL.glBindBuffer(GL.GL_COPY_READ_BUFFER, buffer)
    size = int(GL.glGetBufferParameteriv(GL.GL_COPY_READ_BUFFER, GL.GL_BUFFER_SIZE))
    data = GL.glGetBufferSubData(GL.GL_COPY_READ_BUFFER, 0, size)
    GL.glBindBuffer(GL.GL_COPY_READ_BUFFER, 0)
    return np.frombuffer(data, dtype).copy()


@pytest.mark.gl
def test_only_the_silhouette_edges_the_picture_shows_are_walked(gl_context, gl):
    """The first part tests every edge and lists the ones to walk; the second walks
    only those, so the list holds silhouette edges (the surface's and the hull's), each
    once, and the walk's work groups are counted for it."""
    from companion_desktop.avatar.render.camera import frame_camera
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer, rest_frame

    material = scenes.mtoon_material("ball", (0.3, 0.5, 1.0), (0.2, 0.35, 0.9),
                                     outline=0.012)
    model = scenes.single_mesh([scenes.sphere(0.5, segments=40, rings=24)], [material])
    frame = rest_frame(model)
    camera = frame_camera(model, frame, "full", 96 / 144)
    offscreen = OffscreenRenderer(aa="lines", context=gl_context)
    try:
        if offscreen.renderer.aa != "lines":
            pytest.skip("this OpenGL context has no compute shaders")
        lines = offscreen.render(model, frame, 96, 144, camera=camera, premultiplied=True)
        layout = offscreen.renderer.edges._layout
        found = _buffer(layout.found, np.uint32)
        places = _buffer(layout.places.buffer, np.float32).reshape(-1, 4)
        edges = _buffer(layout.edges.buffer, np.uint32).reshape(-1, 4)[:layout.count]
    finally:
        offscreen.renderer.release()
    groups, high, deep, count = found[:4].tolist()
    listed = found[4:4 + count]
    assert (high, deep) == (1, 1) and groups == -(-count // 64)
    assert len(set(listed.tolist())) == count and (listed < 2 * len(edges)).all()
    hull = listed % 2 == 1
    assert hull.any() and (~hull).any()  # the body's rim and the outline's
    # every listed edge is on the silhouette: its two faces turn opposite ways on screen
    c, a, b, d = (places[edges[listed // 2, k] + hull] for k in range(4))

    def turn(p, q, r):  # noqa: ANN001, ANN202
        p, q, r = (v[:, :2] / v[:, 3:] for v in (p, q, r))
        return (q[:, 0] - p[:, 0]) * (r[:, 1] - p[:, 1]) - (q[:, 1] - p[:, 1]) * (r[:, 0] - p[:, 0])

    assert (turn(a, b, c) * turn(b, a, d) < 0).all()
    # a sphere 40 around shows about one edge in ten of its surface and hull at once
    assert 40 <= count <= 0.2 * 2 * len(edges)
    assert ((lines[..., 3] > 0) & (lines[..., 3] < 255)).sum() > 40  # and they were walked
