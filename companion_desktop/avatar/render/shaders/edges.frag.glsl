// Edge lines (``silhouette.py``): a pixel the silhouette crosses takes, from the
// neighbour across the edge, the share of its area that lies beyond the edge (the
// exact area of the pixel's square cut by the edge's line). Reads the finished
// picture's copy; premultiplied in and out, so colour never exceeds alpha.
uniform sampler2D u_picture;
flat in vec4 v_line;                    // the edge's two ends, window pixels
out vec4 frag_color;

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

void main() {
    vec2 centre = gl_FragCoord.xy;
    vec2 d = v_line.zw - v_line.xy;
    float size = length(d);
    if (size < 1e-4) {
        discard;  // an edge seen end-on
    }
    vec2 normal = vec2(-d.y, d.x) / size;
    float off = dot(normal, v_line.xy - centre);  // towards the edge, along its normal
    // The neighbour across the edge: up or down from a mostly horizontal edge, else
    // left or right, on the edge's side.
    ivec2 across = abs(d.x) >= abs(d.y) ? ivec2(0, normal.y * off >= 0.0 ? 1 : -1)
                                        : ivec2(normal.x * off >= 0.0 ? 1 : -1, 0);
    float share = beyond(abs(off), max(abs(normal.x), abs(normal.y)),
                         min(abs(normal.x), abs(normal.y)));
    if (share <= 0.0) {
        discard;
    }
    ivec2 p = ivec2(centre);
    ivec2 last = textureSize(u_picture, 0) - 1;
    vec4 own = texelFetch(u_picture, p, 0);
    vec4 other = texelFetch(u_picture, clamp(p + across, ivec2(0), last), 0);
    frag_color = mix(own, other, share);
}
