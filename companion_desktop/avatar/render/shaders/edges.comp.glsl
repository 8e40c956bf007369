// Edge lines (``silhouette.py``), after the vertices are placed, in two parts: the test
// (``FIND``) lists the edges to walk, the walk walks the listed ones.
// The test: one edge of the model per invocation,
// ``c, a, b, d`` (indices of places in ``u_clips``), where a, b, c is a face in winding
// order and b, a, d the face across the edge (d == c: an open edge). Its primitive's
// record in ``u_parts`` says which faces are drawn and whether it has a MToon hull,
// whose edges are then tested too (each vertex's hull place follows its own).
//
// An edge whose two faces turn opposite ways on screen is on the silhouette, and so is
// an open edge of a face that is drawn. Where the picture changes across it, the edge
// is walked one pixel per column (or row, for a steep edge), as a line is rasterised:
// each pixel it crosses that is not in front of it (depth) takes, from its neighbour
// across the edge, the exact share of its square that lies beyond the edge. Reads the
// picture's copy and depth, writes the picture; premultiplied in and out, so colour
// never exceeds alpha. Where two edges cross one pixel, the one written last stays.
layout(local_size_x = 64) in;
uniform samplerBuffer u_clips;   // every vertex's place on screen (and on its hull)
uniform usamplerBuffer u_edges;  // every edge of the model
uniform usamplerBuffer u_slots;  // each edge's primitive
// Per primitive: which faces are drawn, the surface's then the hull's (+1 the front
// ones, -1 the back ones, 0 both); 1 when it has a hull; 1 when drawn in this picture.
uniform samplerBuffer u_parts;
uniform sampler2D u_picture;  // the finished picture's copy
uniform sampler2D u_depth;    // its depth (0..1)
layout(rgba8) uniform writeonly image2D u_out;  // the picture
uniform uint u_count;         // edges
uniform vec2 u_size;          // the picture, pixels
uniform float u_depth_bias;   // world units
// The silhouette edges the test found: the walk's work groups (x, y, z: its indirect
// dispatch), their count, and each one's edge (index x 2, + 1: the hull's).
layout(std430, binding = 7) buffer Found {
    uint found_groups;
    uint found_y;
    uint found_z;
    uint found_count;
    uint found[];
};
const int LONGEST = 4096;     // pixels walked along one edge at most
const float THIN = 0.1;       // how far a thin line stands out (luma + alpha)

ivec2 g_last;                 // the last pixel of the picture

vec4 pixel(ivec2 p) {
    return texelFetch(u_picture, clamp(p, ivec2(0), g_last), 0);
}

// True when the picture differs across the edge at its middle (a hidden or unseen edge
// has the same surface on both sides there, and walking it would change nothing).
bool seen(vec2 from, vec2 to) {
    vec2 d = to - from;
    ivec2 across = abs(d.x) >= abs(d.y) ? ivec2(0, 1) : ivec2(1, 0);
    ivec2 p = ivec2(floor(0.5 * (from + to)));
    vec4 here = pixel(p);
    vec4 step = max(abs(here - pixel(p - across)), abs(here - pixel(p + across)));
    return max(max(step.r, step.g), max(step.b, step.a)) > 2.0 / 255.0;
}

// The window depth (0..1) of ``p`` moved ``by`` world units towards the eye along its ray.
float depth_nearer(vec4 p, float by) {
    float w = max(p.w - by, 0.5 * p.w);
    return 0.5 * (p.z + u_proj[2][2] * (p.w - w)) / w + 0.5;
}

vec2 on_screen(vec4 p) {  // window pixels
    return (p.xy / p.w + 1.0) * 0.5 * u_size;
}

float turn(vec4 a, vec4 b, vec4 c) {  // twice the signed screen area (NDC) of a, b, c
    vec2 p = a.xy / a.w;
    vec2 q = b.xy / b.w - p;
    vec2 r = c.xy / c.w - p;
    return q.x * r.y - q.y * r.x;
}

// True when ``own`` stands out from both its neighbours across the edge the same way
// (darker, or lighter, than both): a line one pixel wide, which blending from either
// side would break into dots.
bool thin(vec4 own, vec4 one, vec4 two) {
    float o = dot(own, vec4(0.2126, 0.7152, 0.0722, 1.0));
    float a = dot(one, vec4(0.2126, 0.7152, 0.0722, 1.0));
    float b = dot(two, vec4(0.2126, 0.7152, 0.0722, 1.0));
    return (o < a - THIN && o < b - THIN) || (o > a + THIN && o > b + THIN);
}

// The area of a unit square beyond a line ``t`` (>= 0) from its centre, whose normal
// has components of sizes ``a`` >= ``b`` (a^2 + b^2 = 1).
float beyond(float t, float a, float b) {
    float corner = 0.5 * (a + b);
    if (t >= corner) {
        return 0.0;
    }
    if (t <= 0.5 * (a - b)) {
        return 0.5 - t / a;
    }
    float s = corner - t;
    return s * s / (2.0 * a * b);
}

// Walk the edge from ``from`` to ``to`` (window pixels). ``depths``: its ends' window
// depths pulled ``u_depth_bias`` towards the eye (xy: a pixel nearer than that is in
// front of the edge; the surface it edges turns away steeply there and lies up to about
// 2 cm nearer within the pixel) and ``u_depth_bias`` / 3 (zw: one of the two pixels
// across the edge must be at least that far, or both are something in front of it).
void walk(vec2 from, vec2 to, vec4 depths) {
    vec2 d = to - from;
    float size = length(d);
    if (size < 1e-4) {
        return;  // seen end-on
    }
    vec2 normal = vec2(-d.y, d.x) / size;
    float a = max(abs(normal.x), abs(normal.y));
    float b = min(abs(normal.x), abs(normal.y));
    bool wide = abs(d.x) >= abs(d.y);  // one pixel per column, else per row
    float start = wide ? from.x : from.y;
    float span = wide ? d.x : d.y;
    float lo = min(start, start + span);
    int first = int(ceil(lo - 0.5));
    int last = min(int(ceil(max(start, start + span) - 0.5)) - 1, first + LONGEST);
    for (int k = first; k <= last; ++k) {
        float t = (float(k) + 0.5 - start) / span;
        vec2 on = from + t * d;
        ivec2 p = ivec2(floor(on));
        if (wide) {
            p.x = k;
        } else {
            p.y = k;
        }
        if (any(lessThan(p, ivec2(0))) || any(greaterThan(p, g_last))) {
            continue;
        }
        float here = texelFetch(u_depth, p, 0).r;
        if (mix(depths.x, depths.y, t) > here) {
            continue;  // something nearer covers this pixel
        }
        vec2 centre = vec2(p) + 0.5;
        float off = dot(normal, from - centre);  // towards the edge, along its normal
        float share = beyond(abs(off), a, b);
        if (share <= 0.0) {
            continue;
        }
        ivec2 across = wide ? ivec2(0, normal.y * off >= 0.0 ? 1 : -1)
                            : ivec2(normal.x * off >= 0.0 ? 1 : -1, 0);
        float there = texelFetch(u_depth, clamp(p + across, ivec2(0), g_last), 0).r;
        if (max(here, there) < mix(depths.z, depths.w, t)) {
            continue;  // both sides nearer: the edge is hidden behind what covers them
        }
        vec4 own = pixel(p);
        vec4 other = pixel(p + across);
        if (thin(own, other, pixel(p - across))) {
            continue;  // a line one pixel wide (her outline, thin): kept whole
        }
        imageStore(u_out, p, mix(own, other, share));
    }
}

// True when the edge ``a``-``b`` (faces a, b, c and b, a, d) is on the silhouette and
// the picture changes across it: the edges ``walk`` has work on.
bool shows(vec4 c, vec4 a, vec4 b, vec4 d, bool open, float visible) {
    if (min(min(a.w, b.w), min(c.w, d.w)) <= 0.0) {
        return false;
    }
    float first = turn(a, b, c);
    bool silhouette = open ? visible == 0.0 || first * visible > 0.0
                           : first * turn(b, a, d) < 0.0;
    return silhouette && seen(on_screen(a), on_screen(b));
}

vec4 place(uint at) {
    return texelFetch(u_clips, int(at));
}

#ifdef FIND
// The test: every edge tested, the silhouette edges the picture shows listed (their
// index, times two, plus one for the hull's), and the list counted in the walk's work
// groups.
void append(uint item) {
    uint at = atomicAdd(found_count, 1u);
    if (at % 64u == 0u) {
        atomicAdd(found_groups, 1u);
    }
    found[at] = item;
}

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= u_count) {
        return;
    }
    vec4 part = texelFetch(u_parts, int(texelFetch(u_slots, int(index)).r));
    if (part.w == 0.0) {
        return;  // its primitive is not drawn in this picture
    }
    g_last = ivec2(u_size) - 1;
    uvec4 e = texelFetch(u_edges, int(index));
    bool open = e.w == e.x;
    if (shows(place(e.x), place(e.y), place(e.z), place(e.w), open, part.x)) {
        append(2u * index);
    }
    if (part.z > 0.0) {  // its MToon hull: each vertex's hull place follows its own
        e += 1u;
        if (shows(place(e.x), place(e.y), place(e.z), place(e.w), open, part.y)) {
            append(2u * index + 1u);
        }
    }
}
#else
// The walk: the listed edges, one an invocation. Every invocation of a group walks; in
// one pass over every edge, most of them waited while the few on the silhouette walked.
void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= found_count) {
        return;
    }
    g_last = ivec2(u_size) - 1;
    uint item = found[index];
    uvec4 e = texelFetch(u_edges, int(item >> 1u)) + (item & 1u);
    vec4 a = place(e.y);
    vec4 b = place(e.z);
    float bias = u_depth_bias;
    vec4 depths = vec4(depth_nearer(a, bias), depth_nearer(b, bias),
                       depth_nearer(a, bias / 3.0), depth_nearer(b, bias / 3.0));
    walk(on_screen(a), on_screen(b), depths);
}
#endif
