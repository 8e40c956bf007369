// The MToon outline's inverted hull, shared by the draw shader and the edge lines that
// smooth the hull's silhouette (``edge_places.comp.glsl``, ``edge_points.comp.glsl``):
// both must put it in the same place.

// The hull's clip position for a vertex at ``world`` (w = 1) with world normal ``n``,
// ``width`` and ``mode`` (1: world units, 2: screen) as the material says, and
// ``least`` the least width (NDC units across y). ``world`` comes back pushed out
// along ``n`` in world-width mode.
vec4 outline_place(inout vec4 world, vec3 n, float width, int mode, float least) {
    vec4 surface = u_proj * u_view * world;
    if (mode == 1) {
        world.xyz += n * width;
    }
    vec4 position = u_proj * u_view * world;
    // NDC x units to y units: the picture's width / height (flip_y negates u_proj[1][1]).
    float aspect = abs(u_proj[1][1] / u_proj[0][0]);
    vec3 clip_normal = (u_proj * u_view * vec4(n, 0.0)).xyz;
    vec2 across = clip_normal.xy * vec2(aspect, 1.0);
    if (mode == 2) {
        if (length(clip_normal.xy) > 1e-8) {
            vec2 offset = normalize(clip_normal.xy);
            offset.x /= aspect;
            position.xy += max(2.0 * width, least) * offset * position.w;
        }
    } else if (least > 0.0) {
        // How far the hull moved this vertex on screen; pushed out to ``least`` when less.
        vec2 moved = (position.xy / position.w - surface.xy / surface.w) * vec2(aspect, 1.0);
        float distance = length(moved);
        if (distance < least) {
            vec2 direction = distance > 1e-3 * least ? moved / distance
                             : (length(across) > 1e-8 ? normalize(across) : vec2(0.0));
            vec2 ndc = surface.xy / surface.w + direction * least / vec2(aspect, 1.0);
            position.xy = ndc * position.w;
        }
    }
    return position;
}

#ifdef OUTLINE
// The hull's clip position with the bound material's outline; ``share``: its width
// texture's G channel (1 without one).
vec4 outline_clip(inout vec4 world, vec3 n, float share) {
    float width = u_outline_width * share;
    // The least width keeps a thin outline from breaking into dots between pixels; a
    // width texture that thins the outline thins it too.
    float least = width > 0.0 ? u_outline_least * share : 0.0;
    return outline_place(world, n, width, u_outline_mode, least);
}
#endif
