// Edge lines (``silhouette.py``), first pass for a primitive whose outline width comes
// from a texture (the others share ``edge_places.comp.glsl``): each vertex placed on
// screen as the draw shader places it, into ``clips`` from ``u_base`` on: the surface's
// place, and with OUTLINE also the MToon hull's (as ``outline.glsl`` puts it) right
// after it. Vertices come from the skinning pass (PRESKINNED: world space, ``u_layout``
// says where in its records) or with the node's matrix ``u_model``.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Positions { float positions[]; };
layout(std430, binding = 1) readonly buffer Normals { float normals[]; };
layout(std430, binding = 2) readonly buffer Uvs { vec2 uvs[]; };
layout(std430, binding = 3) writeonly buffer Clips { vec4 clips[]; };
uniform ivec4 u_layout;   // position stride, offset; normal stride, offset (floats)
uniform uint u_count;     // vertices
uniform uint u_base;      // where the primitive's places start in ``clips``
#ifdef TEX_OUTLINE
uniform sampler2D u_tex_outline;     // width multiply, G channel
#endif

void main() {
    uint vertex = gl_GlobalInvocationID.x;
    if (vertex >= u_count) {
        return;
    }
    int at = int(vertex) * u_layout.x + u_layout.y;
    vec3 position = vec3(positions[at], positions[at + 1], positions[at + 2]);
#ifdef PRESKINNED
    vec4 world = vec4(position, 1.0);
#else
    vec4 world = u_model * vec4(position, 1.0);
#endif
#ifdef OUTLINE
    clips[u_base + 2u * vertex] = u_proj * u_view * world;
    at = int(vertex) * u_layout.z + u_layout.w;
    vec3 normal = vec3(normals[at], normals[at + 1], normals[at + 2]);
#ifdef PRESKINNED
    vec3 n = normal;
#else
    vec3 n = world_normal(mat3(u_model), normal);
#endif
#ifdef TEX_OUTLINE
    float share = textureLod(u_tex_outline, uv_transform(u_uv[8], uvs[vertex]), 0.0).g;
#else
    float share = 1.0;
#endif
    clips[u_base + 2u * vertex + 1u] = outline_clip(world, n, share);
#else
    clips[u_base + vertex] = u_proj * u_view * world;
#endif
}
