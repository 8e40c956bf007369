// The skinning pass: morphs and joints applied once per vertex per frame, written by
// transform feedback (rasteriser off) as world-space position, normal (and tangent with
// NORMAL_MAP), which every draw of the frame then reads (``PRESKINNED``).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 3) in uvec4 a_joints;
layout(location = 4) in vec4 a_weights;
out vec3 tf_position;
out vec3 tf_normal;
#ifdef NORMAL_MAP
layout(location = 6) in vec4 a_tangent;
out vec4 tf_tangent;
#endif

void main() {
    vec3 position = a_position;
    vec3 normal = a_normal;
    morph(position, normal);
    mat4 model = skin_matrix(a_joints, a_weights);
    mat3 linear = mat3(model);
    tf_position = (model * vec4(position, 1.0)).xyz;
    tf_normal = world_normal(linear, normal);
#ifdef NORMAL_MAP
    tf_tangent = world_tangent(linear, a_tangent);
#endif
}
