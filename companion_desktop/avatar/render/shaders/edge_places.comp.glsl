// Edge lines (``silhouette.py``), first pass, for every primitive at once (but those
// whose outline width comes from a texture: ``edge_points.comp.glsl``): each vertex
// placed on screen as the draw shader places it, the surface's place and, when its
// primitive has a MToon hull, the hull's right after it (as ``outline.glsl`` puts it).
//
// ``u_jobs`` holds per vertex its primitive's record, where its position and normal
// start in ``sources`` (the skinning pass's output copied there each picture, world
// space; a rigid primitive's own, copied there once) and where its place goes in
// ``clips``. A record is five texels: the node's matrix (columns; rigid primitives),
// then the outline width, its mode, 1 with a hull, 1 when rigid.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Sources { float sources[]; };
layout(std430, binding = 3) writeonly buffer Clips { vec4 clips[]; };
uniform usamplerBuffer u_jobs;
uniform samplerBuffer u_records;
uniform uint u_count;     // vertices

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= u_count) {
        return;
    }
    uvec4 job = texelFetch(u_jobs, int(index));
    int record = int(job.x) * 5;
    vec4 part = texelFetch(u_records, record + 4);
    uint at = job.y;
    vec4 world = vec4(sources[at], sources[at + 1u], sources[at + 2u], 1.0);
    vec3 n = vec3(sources[at + 3u], sources[at + 4u], sources[at + 5u]);
    if (part.w > 0.5) {
        mat4 model = mat4(texelFetch(u_records, record), texelFetch(u_records, record + 1),
                          texelFetch(u_records, record + 2), texelFetch(u_records, record + 3));
        world = model * world;
        n = world_normal(mat3(model), n);
    }
    clips[job.z] = u_proj * u_view * world;
    if (part.z > 0.5) {
        float width = part.x;
        clips[job.z + 1u] = outline_place(world, n, width, int(part.y),
                                          width > 0.0 ? u_outline_least : 0.0);
    }
}
