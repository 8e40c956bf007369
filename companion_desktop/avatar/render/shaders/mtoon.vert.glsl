// Morph targets (texture buffer), linear blend skinning (joint texture buffer),
// normal transform; with OUTLINE defined, the inverted hull is pushed out; with
// NORMAL_MAP defined, the tangent (xyz + handedness w) is skinned like a direction.
// Specialised by defines (``variants.py``): SKINNED, MORPHS, VERTEX_COLOR, TEX_OUTLINE.
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

uniform mat4 u_model;        // node world matrix (unskinned primitives)
uniform samplerBuffer u_joint_tbo;   // 4 RGBA texels (columns) per joint
uniform samplerBuffer u_morph_tbo;   // per target: vertex_count * stride texels
uniform int u_vertex_count;
uniform int u_morph_stride;          // 1: position deltas, 2: position + normal deltas
uniform int u_morph_count;
uniform int u_morph_index[MAX_MORPHS];
uniform float u_morph_weight[MAX_MORPHS];

#ifdef OUTLINE
uniform sampler2D u_tex_outline;     // width multiply, G channel
#endif

out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
#ifdef VERTEX_COLOR
out vec4 v_color;
#endif

mat4 joint_matrix(uint joint) {
    int base = int(joint) * 4;
    return mat4(texelFetch(u_joint_tbo, base), texelFetch(u_joint_tbo, base + 1),
                texelFetch(u_joint_tbo, base + 2), texelFetch(u_joint_tbo, base + 3));
}

// The normal matrix (inverse transpose) up to a positive scale: the cofactors, signed
// by the determinant so that a mirroring transform still turns normals the right way.
mat3 normal_matrix(mat3 m) {
    mat3 c = mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1]));
    return dot(m[0], c[0]) < 0.0 ? -c : c;
}

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
#ifdef MORPHS
    for (int i = 0; i < u_morph_count; ++i) {
        int base = (u_morph_index[i] * u_vertex_count + gl_VertexID) * u_morph_stride;
        position += u_morph_weight[i] * texelFetch(u_morph_tbo, base).xyz;
        if (u_morph_stride > 1) {
            normal += u_morph_weight[i] * texelFetch(u_morph_tbo, base + 1).xyz;
        }
    }
#endif
    mat4 model = u_model;
#ifdef SKINNED
    float total = a_weights.x + a_weights.y + a_weights.z + a_weights.w;
    if (total > 1e-6) {
        model = (a_weights.x * joint_matrix(a_joints.x)
                 + a_weights.y * joint_matrix(a_joints.y)
                 + a_weights.z * joint_matrix(a_joints.z)
                 + a_weights.w * joint_matrix(a_joints.w)) / total;
    }
#endif
    vec4 world = model * vec4(position, 1.0);
    mat3 linear = mat3(model);
    vec3 n = normal_matrix(linear) * normal;
    n = dot(n, n) > 1e-24 ? normalize(n) : vec3(0.0, 0.0, 1.0);
#ifdef NORMAL_MAP
    v_tangent = vec4(linear * a_tangent.xyz,
                     (a_tangent.w < 0.0 ? -1.0 : 1.0) * (determinant(linear) < 0.0 ? -1.0 : 1.0));
#endif
    v_uv = a_uv0;
#ifdef VERTEX_COLOR
    v_color = a_color;
#endif
#ifdef OUTLINE
#ifdef TEX_OUTLINE
    float width = u_outline_width * textureLod(u_tex_outline,
                                               uv_transform(u_uv[8], a_uv0), 0.0).g;
#else
    float width = u_outline_width;
#endif
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
