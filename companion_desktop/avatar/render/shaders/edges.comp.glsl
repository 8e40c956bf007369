// Edge lines (``silhouette.py``), second pass: one edge per invocation (of the surface,
// and with OUTLINE of its hull too: ``clips`` then holds both places of each vertex),
// ``c, a, b, d``
// where a, b, c is a face in winding order and b, a, d the face across the edge
// (d == c: an open edge). An edge whose two faces turn opposite ways on screen is on
// the silhouette, and so is an open edge of a face that is drawn: it is appended to
// ``lines`` as a one-pixel line (two vertices: clip position, then both ends in window
// pixels), pulled a little towards the eye so that it passes the depth test on the
// surface it edges. ``command`` is the indirect draw that draws them all.
layout(local_size_x = 64) in;
uniform samplerBuffer u_clips;
uniform usamplerBuffer u_edges;
layout(std430, binding = 5) buffer Command {
    uint vertex_count;
    uint instance_count;
    uint first_vertex;
    uint base_instance;
};
layout(std430, binding = 6) writeonly buffer Lines { vec4 lines[]; };
uniform uint u_count;         // edges
uniform vec2 u_size;          // the picture, pixels
// Which faces are drawn, the surface's then (with OUTLINE) the hull's: +1 the front
// ones, -1 the back ones, 0 both.
uniform vec2 u_visible;
uniform float u_depth_bias;   // world units
uniform sampler2D u_picture;  // the finished picture

// True when the picture differs across the edge at its middle (a hidden or unseen edge
// has the same surface on both sides there, and its line would change nothing).
bool seen(vec4 ends) {
    vec2 middle = 0.5 * (ends.xy + ends.zw);
    vec2 d = ends.zw - ends.xy;
    ivec2 across = abs(d.x) >= abs(d.y) ? ivec2(0, 1) : ivec2(1, 0);
    ivec2 last = textureSize(u_picture, 0) - 1;
    ivec2 p = ivec2(floor(middle));
    vec4 one = texelFetch(u_picture, clamp(p - across, ivec2(0), last), 0);
    vec4 two = texelFetch(u_picture, clamp(p + across, ivec2(0), last), 0);
    vec4 here = texelFetch(u_picture, clamp(p, ivec2(0), last), 0);
    vec4 step = max(abs(here - one), abs(here - two));
    return max(max(step.r, step.g), max(step.b, step.a)) > 2.0 / 255.0;
}

// ``p`` moved ``u_depth_bias`` (world units) towards the eye along its ray: the band
// then passes the depth test on the surface it edges, which turns away steeply there,
// and not behind anything nearer.
vec4 nearer(vec4 p) {
    float w = max(p.w - u_depth_bias, 0.5 * p.w);
    return vec4(p.xy * (w / p.w), p.z + u_proj[2][2] * (p.w - w), w);
}

float turn(vec4 a, vec4 b, vec4 c) {  // twice the signed screen area (NDC) of a, b, c
    vec2 p = a.xy / a.w;
    vec2 q = b.xy / b.w - p;
    vec2 r = c.xy / c.w - p;
    return q.x * r.y - q.y * r.x;
}

// The edge a -> b of faces a, b, c and b, a, d (or open: ``open``) as a line when it is
// on the silhouette and the picture shows something across it.
void edge_line(vec4 c, vec4 a, vec4 b, vec4 d, bool open, float visible) {
    if (min(min(a.w, b.w), min(c.w, d.w)) <= 0.0) {
        return;
    }
    float first = turn(a, b, c);
    bool silhouette = open ? visible == 0.0 || first * visible > 0.0
                           : first * turn(b, a, d) < 0.0;
    if (!silhouette) {
        return;
    }
    vec2 half_size = u_size * 0.5;
    vec4 ends = vec4((a.xy / a.w + 1.0) * half_size, (b.xy / b.w + 1.0) * half_size);
    if (!seen(ends)) {
        return;
    }
    a = nearer(a);
    b = nearer(b);
    uint at = atomicAdd(vertex_count, 2u) * 2u;
    lines[at] = a;
    lines[at + 1u] = ends;
    lines[at + 2u] = b;
    lines[at + 3u] = ends;
}

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= u_count) {
        return;
    }
    uvec4 edge = texelFetch(u_edges, int(index));
    bool open = edge.w == edge.x;
#ifdef OUTLINE
    uvec4 at = 2u * edge;
    edge_line(texelFetch(u_clips, int(at.x)), texelFetch(u_clips, int(at.y)), texelFetch(u_clips, int(at.z)), texelFetch(u_clips, int(at.w)), open, u_visible.x);
    at += 1u;
    edge_line(texelFetch(u_clips, int(at.x)), texelFetch(u_clips, int(at.y)), texelFetch(u_clips, int(at.z)), texelFetch(u_clips, int(at.w)), open, u_visible.y);
#else
    edge_line(texelFetch(u_clips, int(edge.x)), texelFetch(u_clips, int(edge.y)), texelFetch(u_clips, int(edge.z)), texelFetch(u_clips, int(edge.w)), open, u_visible.x);
#endif
}
