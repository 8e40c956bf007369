// Morph targets (texture buffer), linear blend skinning (joint texture buffer),
// normal transform; with OUTLINE defined, the inverted hull is pushed out; with
// NORMAL_MAPS defined, the tangent (xyz + handedness w) is skinned like a direction.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv0;
layout(location = 3) in uvec4 a_joints;
layout(location = 4) in vec4 a_weights;
layout(location = 5) in vec4 a_color;
#ifdef NORMAL_MAPS
layout(location = 6) in vec4 a_tangent;
out vec4 v_tangent;                  // world space; w flips with a mirroring transform
#endif

uniform mat4 u_model;        // node world matrix (unskinned primitives)
uniform mat4 u_view;
uniform mat4 u_proj;
uniform int u_skinned;
uniform samplerBuffer u_joint_tbo;   // 4 RGBA texels (columns) per joint
uniform samplerBuffer u_morph_tbo;   // per target: vertex_count * stride texels
uniform int u_vertex_count;
uniform int u_morph_stride;          // 1: position deltas, 2: position + normal deltas
uniform int u_morph_count;
uniform int u_morph_index[MAX_MORPHS];
uniform float u_morph_weight[MAX_MORPHS];

#ifdef OUTLINE
uniform int u_outline_mode;          // 1: world (metres), 2: screen (fraction of height)
uniform float u_outline_width;
uniform sampler2D u_tex_outline;     // width multiply, G channel
uniform mat3 u_uv_outline;
#endif

out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_color;

mat4 joint_matrix(uint joint) {
    int base = int(joint) * 4;
    return mat4(texelFetch(u_joint_tbo, base), texelFetch(u_joint_tbo, base + 1),
                texelFetch(u_joint_tbo, base + 2), texelFetch(u_joint_tbo, base + 3));
}

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    for (int i = 0; i < u_morph_count; ++i) {
        int base = (u_morph_index[i] * u_vertex_count + gl_VertexID) * u_morph_stride;
        position += u_morph_weight[i] * texelFetch(u_morph_tbo, base).xyz;
        if (u_morph_stride > 1) {
            normal += u_morph_weight[i] * texelFetch(u_morph_tbo, base + 1).xyz;
        }
    }
    mat4 model = u_model;
    if (u_skinned != 0) {
        float total = a_weights.x + a_weights.y + a_weights.z + a_weights.w;
        if (total > 1e-6) {
            model = (a_weights.x * joint_matrix(a_joints.x)
                     + a_weights.y * joint_matrix(a_joints.y)
                     + a_weights.z * joint_matrix(a_joints.z)
                     + a_weights.w * joint_matrix(a_joints.w)) / total;
        }
    }
    vec4 world = model * vec4(position, 1.0);
    vec3 n = transpose(inverse(mat3(model))) * normal;
    n = length(n) > 1e-12 ? normalize(n) : vec3(0.0, 0.0, 1.0);
#ifdef NORMAL_MAPS
    mat3 linear = mat3(model);
    v_tangent = vec4(linear * a_tangent.xyz,
                     (a_tangent.w < 0.0 ? -1.0 : 1.0) * (determinant(linear) < 0.0 ? -1.0 : 1.0));
#endif
    v_uv = a_uv0;
    v_color = a_color;
#ifdef OUTLINE
    vec2 outline_uv = uv_transform(u_uv_outline, a_uv0);
    float width = u_outline_width * textureLod(u_tex_outline, outline_uv, 0.0).g;
    if (u_outline_mode == 1) {
        world.xyz += n * width;
    }
#endif
    v_world = world.xyz;
    v_normal = n;
    gl_Position = u_proj * u_view * world;
#ifdef OUTLINE
    if (u_outline_mode == 2) {
        vec3 clip_normal = (u_proj * u_view * vec4(n, 0.0)).xyz;
        if (length(clip_normal.xy) > 1e-8) {
            vec2 offset = normalize(clip_normal.xy);
            offset.x *= u_proj[0][0] / u_proj[1][1];
            gl_Position.xy += 2.0 * width * offset * gl_Position.w;
        }
    }
#endif
}
