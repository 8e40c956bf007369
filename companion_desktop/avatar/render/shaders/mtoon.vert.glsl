// The draw shader's vertex stage: with PRESKINNED, the vertex comes from the skinning
// pass already in world space; otherwise morphs and the node (or joint) matrix are
// applied here. With OUTLINE defined the inverted hull is pushed out; with NORMAL_MAP
// the tangent (xyz + handedness w) follows. Specialised by defines (``variants.py``).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv0;
layout(location = 3) in uvec4 a_joints;
layout(location = 4) in vec4 a_weights;
layout(location = 5) in vec4 a_color;
#ifdef NORMAL_MAP
layout(location = 6) in vec4 a_tangent;
out vec4 v_tangent;                  // world space; w flips with a mirroring transform
#endif

#ifdef OUTLINE
uniform sampler2D u_tex_outline;     // width multiply, G channel
#endif

out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
#ifdef VERTEX_COLOR
out vec4 v_color;
#endif

void main() {
#ifdef PRESKINNED
    vec4 world = vec4(a_position, 1.0);
    vec3 n = a_normal;
#ifdef NORMAL_MAP
    v_tangent = a_tangent;
#endif
#else
    vec3 position = a_position;
    vec3 normal = a_normal;
    morph(position, normal);
    mat4 model = skin_matrix(a_joints, a_weights);
    mat3 linear = mat3(model);
    vec4 world = model * vec4(position, 1.0);
    vec3 n = world_normal(linear, normal);
#ifdef NORMAL_MAP
    v_tangent = world_tangent(linear, a_tangent);
#endif
#endif
    v_uv = a_uv0;
#ifdef VERTEX_COLOR
    v_color = a_color;
#endif
#ifdef OUTLINE
#ifdef TEX_OUTLINE
    float share = textureLod(u_tex_outline, uv_transform(u_uv[8], a_uv0), 0.0).g;
#else
    float share = 1.0;
#endif
    float width = u_outline_width * share;
    // The least width (in NDC units across y) keeps a thin outline from breaking into
    // dots between pixels; a width texture that thins the outline thins it too.
    float least = width > 0.0 ? u_outline_least * share : 0.0;
    vec4 surface = u_proj * u_view * world;
    if (u_outline_mode == 1) {
        world.xyz += n * width;
    }
#endif
    v_world = world.xyz;
    v_normal = n;
    gl_Position = u_proj * u_view * world;
#ifdef OUTLINE
    // NDC x units to y units: the picture's width / height (flip_y negates u_proj[1][1]).
    float aspect = abs(u_proj[1][1] / u_proj[0][0]);
    vec3 clip_normal = (u_proj * u_view * vec4(n, 0.0)).xyz;
    vec2 across = clip_normal.xy * vec2(aspect, 1.0);
    if (u_outline_mode == 2) {
        if (length(clip_normal.xy) > 1e-8) {
            vec2 offset = normalize(clip_normal.xy);
            offset.x /= aspect;
            gl_Position.xy += max(2.0 * width, least) * offset * gl_Position.w;
        }
    } else if (least > 0.0) {
        // How far the hull moved this vertex on screen; pushed out to ``least`` when less.
        vec2 moved = (gl_Position.xy / gl_Position.w - surface.xy / surface.w)
                     * vec2(aspect, 1.0);
        float distance = length(moved);
        if (distance < least) {
            vec2 direction = distance > 1e-3 * least ? moved / distance
                             : (length(across) > 1e-8 ? normalize(across) : vec2(0.0));
            vec2 ndc = surface.xy / surface.w + direction * least / vec2(aspect, 1.0);
            gl_Position.xy = ndc * gl_Position.w;
        }
    }
#endif
}
