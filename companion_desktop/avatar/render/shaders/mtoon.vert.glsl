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
    gl_Position = outline_clip(world, n, share);
#else
    gl_Position = u_proj * u_view * world;
#endif
    v_world = world.xyz;
    v_normal = n;
}
