// Post-pass antialiasing of a finished picture (``antialias.py``): premultiplied,
// sRGB-encoded RGBA in, the same out, one pixel for one pixel.
//
// A pixel whose neighbourhood has little contrast is copied as it is. At an edge the
// pass finds which way the edge runs (horizontal or vertical) and which neighbour lies
// across it, follows the edge both ways until the pair of rows (or columns) along it
// stops looking like the same edge, and from the distance to the nearer end estimates
// how much of the neighbour's area the true (sloped) edge takes from this pixel. The
// pixel is then blended with its neighbour by that share, through one bilinear read.
// A pixel that differs from its whole neighbourhood (a thin line, a lone pixel) is
// softened towards the 3x3 average as well.
//
// The "signal" compared is linear in the colour: half luma, half alpha, so the edge of
// her silhouette against the transparent clear counts as strongly as a colour edge.
// Every output is a convex blend of input pixels, so colour never exceeds alpha.
uniform sampler2D u_picture;   // bilinear, clamped to the edge
out vec4 frag_color;

const float EDGE_MIN = 0.04;        // contrast below this is no edge (signal units)
const float EDGE_RELATIVE = 0.12;   // ... nor below this share of the brightest nearby
const float SUBPIXEL = 0.75;        // how far lone pixels and thin lines are softened
const int SEARCH = 8;               // steps of the search along an edge, each way

float signal(vec4 c) {
    return dot(c, vec4(0.2126, 0.7152, 0.0722, 1.0) * 0.5);
}

float pixel(ivec2 p) {
    ivec2 last = textureSize(u_picture, 0) - 1;
    return signal(texelFetch(u_picture, clamp(p, ivec2(0), last), 0));
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 centre = texelFetch(u_picture, p, 0);
    float m = signal(centre);
    float n = pixel(p + ivec2(0, 1));
    float s = pixel(p - ivec2(0, 1));
    float e = pixel(p + ivec2(1, 0));
    float w = pixel(p - ivec2(1, 0));
    float high = max(max(max(n, s), max(e, w)), m);
    float low = min(min(min(n, s), min(e, w)), m);
    float contrast = high - low;
    if (contrast < max(EDGE_MIN, high * EDGE_RELATIVE)) {
        discard;  // the target holds this pixel already; software GL skips the rest
    }
    float ne = pixel(p + ivec2(1, 1));
    float nw = pixel(p + ivec2(-1, 1));
    float se = pixel(p + ivec2(1, -1));
    float sw = pixel(p + ivec2(-1, -1));

    // An edge running along x changes most across y (second differences), and back.
    float along_x = 2.0 * abs(n + s - 2.0 * m) + abs(ne + se - 2.0 * e) + abs(nw + sw - 2.0 * w);
    float along_y = 2.0 * abs(e + w - 2.0 * m) + abs(ne + nw - 2.0 * n) + abs(se + sw - 2.0 * s);
    bool horizontal = along_x >= along_y;
    float before = horizontal ? s : w;
    float after = horizontal ? n : e;
    float step_before = abs(before - m);
    float step_after = abs(after - m);
    bool towards_after = step_after >= step_before;
    float neighbour = towards_after ? after : before;
    vec2 texel = 1.0 / vec2(textureSize(u_picture, 0));
    vec2 across = (horizontal ? vec2(0.0, texel.y) : vec2(texel.x, 0.0))
                  * (towards_after ? 1.0 : -1.0);
    vec2 along = horizontal ? vec2(texel.x, 0.0) : vec2(0.0, texel.y);

    // Follow the edge: halfway between this pixel and its neighbour a bilinear read
    // is the pair's average, which stays near edge_level while the edge goes on.
    vec2 uv = gl_FragCoord.xy * texel;
    vec2 on_edge = uv + 0.5 * across;
    float edge_level = 0.5 * (m + neighbour);
    float tolerance = 0.25 * max(step_before, step_after);
    float reach_minus = 0.0, reach_plus = 0.0;
    float end_minus = 0.0, end_plus = 0.0;
    bool open_minus = true, open_plus = true;
    for (int i = 0; i < SEARCH; ++i) {
        float stride = i < 4 ? 1.0 : (i < 6 ? 2.0 : 4.0);
        if (open_minus) {
            reach_minus += stride;
            end_minus = signal(texture(u_picture, on_edge - reach_minus * along)) - edge_level;
            open_minus = abs(end_minus) < tolerance;
        }
        if (open_plus) {
            reach_plus += stride;
            end_plus = signal(texture(u_picture, on_edge + reach_plus * along)) - edge_level;
            open_plus = abs(end_plus) < tolerance;
        }
        if (!open_minus && !open_plus) break;
    }
    // Near the end where the edge steps towards this pixel's side, the true edge
    // crosses into the pixel: blend up to half; in the middle of a run, not at all.
    bool minus_nearer = reach_minus < reach_plus;
    float reach = minus_nearer ? reach_minus : reach_plus;
    float end = minus_nearer ? end_minus : end_plus;
    bool steps_here = (end < 0.0) != (m - edge_level < 0.0);
    float share = steps_here ? 0.5 - reach / (reach_minus + reach_plus) : 0.0;

    // A lone pixel or a line one pixel thin: soften it towards its surroundings.
    float average = (2.0 * (n + s + e + w) + (ne + nw + se + sw)) / 12.0;
    float lone = clamp(abs(average - m) / contrast, 0.0, 1.0);
    lone = smoothstep(0.0, 1.0, lone);
    share = max(share, lone * lone * SUBPIXEL);

    vec4 c = texture(u_picture, uv + share * across);
    frag_color = vec4(min(c.rgb, vec3(c.a)), c.a);
}
