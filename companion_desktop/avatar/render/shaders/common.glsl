// Shared by every avatar shader. Colours are linear until srgb_encode().
const int MAX_MORPHS = 32;

vec3 srgb_encode(vec3 c) {
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(0.0031308, c));
}

// A texture slot's UV transform (KHR_texture_transform and expression binds).
vec2 uv_transform(mat3 m, vec2 uv) {
    return (m * vec3(uv, 1.0)).xy;
}
