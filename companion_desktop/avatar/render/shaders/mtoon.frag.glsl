// MToon 1.0 approximation, unlit and simple lit (Lambert) glTF; premultiplied sRGB out.
// Specialised per material by defines (``variants.py``): SHADING (0 MToon, 1 unlit,
// 2 lit), ALPHA_MODE (0 OPAQUE, 1 MASK, 2 BLEND), TEX_<SLOT> for each texture the
// material has (an absent one reads as white), UV_ANIM, RIM (rim or matcap light),
// EMISSIVE, VERTEX_COLOR, NORMAL_MAP and OUTLINE; SHADE_IS_BASE when the shade
// texture is the base texture at the same UVs (VRoid exports), read once; RIM_POW N
// when the rim's fresnel power is the whole number N (1..8). Code for what a material lacks is left
// out, so software rasterisers pay only for what shows.
in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
#ifdef VERTEX_COLOR
in vec4 v_color;
#endif
#ifdef NORMAL_MAP
in vec4 v_tangent;
#endif

uniform sampler2D u_tex_base;
uniform sampler2D u_tex_shade;
uniform sampler2D u_tex_shift;
uniform sampler2D u_tex_rim;
uniform sampler2D u_tex_matcap;
uniform sampler2D u_tex_emissive;
uniform sampler2D u_tex_mask;
uniform sampler2D u_tex_normal;

out vec4 frag_color;

#define SAMPLE(slot, index, uv) texture(u_tex_##slot, uv_transform(u_uv[index], uv))

float linearstep(float a, float b, float t) {
    return clamp((t - a) / max(b - a, 1e-5), 0.0, 1.0);
}

#ifdef UV_ANIM
vec2 animated_uv(vec2 uv) {
#ifdef TEX_MASK
    float mask = SAMPLE(mask, 6, uv).b;
#else
    float mask = 1.0;
#endif
    uv += u_uv_scroll * mask;
    float angle = u_uv_rotation * mask;
    float c = cos(angle), s = sin(angle);
    return mat2(c, -s, s, c) * (uv - 0.5) + 0.5;
}
#endif

#ifdef NORMAL_MAP
// The front-face normal n tilted by the normal map at uv (glTF: +X along the tangent,
// +Y along cross(n, tangent) * w); n itself where the tangent frame degenerates.
vec3 perturbed(vec3 n, vec2 uv) {
    vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);
    if (dot(t, t) < 1e-12) return n;
    t = normalize(t);
    vec3 b = cross(n, t) * (v_tangent.w < 0.0 ? -1.0 : 1.0);
    vec3 m = SAMPLE(normal, 7, uv).rgb * 2.0 - 1.0;
    m.xy *= u_normal_scale;
    vec3 p = t * m.x + b * m.y + n * m.z;
    return dot(p, p) > 1e-12 ? normalize(p) : n;
}
#endif

vec3 hemisphere(vec3 n) {
    return mix(u_ground_color, u_sky_color, n.y * 0.5 + 0.5);
}

void main() {
    vec3 n = normalize(v_normal);
#if SHADING == 0 && defined(UV_ANIM)
    vec2 uv = animated_uv(v_uv);
#else
    vec2 uv = v_uv;
#endif
#ifdef NORMAL_MAP
    n = perturbed(n, uv);
#endif
#ifndef OUTLINE
    if (!gl_FrontFacing) n = -n;
#endif
#ifdef TEX_BASE
    vec4 base_texel = SAMPLE(base, 0, uv);
    vec4 base = u_base_color * base_texel;
#else
    vec4 base = u_base_color;
#endif
#if SHADING != 0 && defined(VERTEX_COLOR)
    base *= v_color;
#endif
    float alpha = base.a;
#if ALPHA_MODE == 1
    if (alpha < u_alpha_cutoff) discard;
    alpha = 1.0;
#elif ALPHA_MODE == 0
    alpha = 1.0;
#else
    if (alpha <= 0.0) discard;
#endif
#ifdef EMISSIVE
#ifdef TEX_EMISSIVE
    vec3 emission = u_emissive * SAMPLE(emissive, 5, uv).rgb;
#else
    vec3 emission = u_emissive;
#endif
#else
    const vec3 emission = vec3(0.0);
#endif
    vec3 color;
#if SHADING == 1
    color = base.rgb;
#elif SHADING == 2
    float lambert = max(dot(n, u_light_dir), 0.0);
    color = base.rgb * (0.75 * u_light_color * lambert + hemisphere(n)) + emission;
#else
    float shift = u_shading_shift;
#ifdef TEX_SHIFT
    shift += SAMPLE(shift, 2, uv).r * u_shift_texture_scale;
#endif
    float shading = dot(n, u_light_dir) + shift;
    shading = linearstep(-1.0 + u_shading_toony, 1.0 - u_shading_toony, shading);
#if defined(SHADE_IS_BASE)
    vec3 shade = u_shade_color * base_texel.rgb;  // the same texture at the same UVs
#elif defined(TEX_SHADE)
    vec3 shade = u_shade_color * SAMPLE(shade, 1, uv).rgb;
#else
    vec3 shade = u_shade_color;
#endif
    vec3 direct = mix(shade, base.rgb, shading) * u_light_color;
    vec3 gi = u_toon_ambient
        * mix(hemisphere(n), 0.5 * (u_sky_color + u_ground_color), u_gi_equalization);
    color = min(direct + gi * base.rgb, base.rgb * max(u_light_color, vec3(1.0)));
#ifdef RIM
    vec3 irradiance = u_light_color * shading + gi;
    vec3 v = normalize(u_eye - v_world);
#ifdef TEX_MATCAP
    vec3 view_n = normalize(mat3(u_view) * n);
    vec3 rim = u_matcap_factor * texture(u_tex_matcap, view_n.xy * vec2(0.5, -0.5) + 0.5).rgb;
#else
    vec3 rim = vec3(0.0);
#endif
    float fresnel = clamp(1.0 - dot(n, v) + u_rim_lift, 0.0, 1.0);
#ifdef RIM_POW
    float lit_rim = 1.0;  // a whole-number power: multiplications instead of exp2(log2())
    for (int i = 0; i < RIM_POW; ++i) lit_rim *= fresnel;
    rim += u_rim_color * lit_rim;
#else
    rim += u_rim_color * pow(fresnel, max(u_rim_fresnel_power, 1e-5));
#endif
#ifdef TEX_RIM
    rim *= SAMPLE(rim, 3, uv).rgb;
#endif
    color += rim * mix(vec3(1.0), irradiance, u_rim_lighting_mix);
#endif
    color += emission;
#ifdef OUTLINE
    color = u_outline_color * mix(vec3(1.0), color, u_outline_lighting_mix);
#endif
#endif
    frag_color = vec4(srgb_encode(color) * alpha, alpha);
}
