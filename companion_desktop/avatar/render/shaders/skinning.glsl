// Morph targets and linear blend skinning, shared by the draw and skinning shaders.
uniform mat4 u_model;                // node world matrix (unskinned vertices)
uniform samplerBuffer u_joint_tbo;   // 4 RGBA texels (columns) per joint
uniform samplerBuffer u_morph_tbo;   // per target: vertex_count * stride texels
uniform int u_vertex_count;
uniform int u_morph_stride;          // 1: position deltas, 2: position + normal deltas
uniform int u_morph_count;
uniform int u_morph_index[MAX_MORPHS];
uniform float u_morph_weight[MAX_MORPHS];

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

// position and normal with the active morph targets added (object space).
void morph(inout vec3 position, inout vec3 normal) {
#ifdef MORPHS
    for (int i = 0; i < u_morph_count; ++i) {
        int base = (u_morph_index[i] * u_vertex_count + gl_VertexID) * u_morph_stride;
        position += u_morph_weight[i] * texelFetch(u_morph_tbo, base).xyz;
        if (u_morph_stride > 1) {
            normal += u_morph_weight[i] * texelFetch(u_morph_tbo, base + 1).xyz;
        }
    }
#endif
}

// The vertex's world matrix: its joints' blend, or the node's when it has no weight.
mat4 skin_matrix(uvec4 joints, vec4 weights) {
    mat4 model = u_model;
#ifdef SKINNED
    float total = weights.x + weights.y + weights.z + weights.w;
    if (total > 1e-6) {
        model = (weights.x * joint_matrix(joints.x) + weights.y * joint_matrix(joints.y)
                 + weights.z * joint_matrix(joints.z) + weights.w * joint_matrix(joints.w))
                / total;
    }
#endif
    return model;
}

vec3 world_normal(mat3 linear, vec3 normal) {
    vec3 n = normal_matrix(linear) * normal;
    return dot(n, n) > 1e-24 ? normalize(n) : vec3(0.0, 0.0, 1.0);
}

vec4 world_tangent(mat3 linear, vec4 tangent) {
    return vec4(linear * tangent.xyz,
                (tangent.w < 0.0 ? -1.0 : 1.0) * (determinant(linear) < 0.0 ? -1.0 : 1.0));
}
