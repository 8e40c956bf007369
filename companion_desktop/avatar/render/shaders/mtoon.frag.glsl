// MToon 1.0 approximation, unlit and simple lit (Lambert) glTF; premultiplied sRGB out.
in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_color;

uniform int u_shading;          // 0: MToon, 1: unlit, 2: lit glTF (Lambert + ambient)
uniform int u_alpha_mode;       // 0: OPAQUE, 1: MASK, 2: BLEND
uniform float u_alpha_cutoff;
uniform vec4 u_base_color;      // linear RGBA
uniform vec3 u_shade_color;
uniform vec3 u_emissive;
uniform float u_shading_shift;
uniform float u_shading_toony;
uniform float u_shift_texture_scale;
uniform float u_gi_equalization;
uniform vec3 u_rim_color;
uniform float u_rim_fresnel_power;
uniform float u_rim_lift;
uniform float u_rim_lighting_mix;
uniform vec3 u_matcap_factor;
uniform vec2 u_uv_scroll;       // UV animation offset at this time (uv units)
uniform float u_uv_rotation;    // UV animation angle at this time (radians)
uniform mat3 u_uv[8];           // base, shade, shift, rim, matcap(unused), emissive, mask, normal

uniform sampler2D u_tex_base;
uniform sampler2D u_tex_shade;
uniform sampler2D u_tex_shift;
uniform sampler2D u_tex_rim;
uniform sampler2D u_tex_matcap;
uniform sampler2D u_tex_emissive;
uniform sampler2D u_tex_mask;

uniform vec3 u_eye;
uniform mat4 u_view;
uniform vec3 u_light_dir;       // towards the light, world space, normalised
uniform vec3 u_light_color;
uniform vec3 u_sky_color;       // hemisphere ambient (linear)
uniform vec3 u_ground_color;
uniform float u_toon_ambient;   // share of the hemisphere that lifts MToon shade

#ifdef NORMAL_MAPS
in vec4 v_tangent;
uniform int u_normal_map;       // 1: perturb the normal with u_tex_normal (tangent space)
uniform float u_normal_scale;   // glTF normalTexture.scale (multiplies the map's X and Y)
uniform sampler2D u_tex_normal;
#endif

#ifdef OUTLINE
uniform vec3 u_outline_color;
uniform float u_outline_lighting_mix;
#endif

out vec4 frag_color;

float linearstep(float a, float b, float t) {
    return clamp((t - a) / max(b - a, 1e-5), 0.0, 1.0);
}

vec2 animated_uv(vec2 uv) {
    float mask = texture(u_tex_mask, uv_transform(u_uv[6], uv)).b;
    uv += u_uv_scroll * mask;
    float angle = u_uv_rotation * mask;
    float c = cos(angle), s = sin(angle);
    return mat2(c, -s, s, c) * (uv - 0.5) + 0.5;
}

#ifdef NORMAL_MAPS
// The front-face normal n tilted by the normal map at uv (glTF: +X along the tangent,
// +Y along cross(n, tangent) * w); n itself where the tangent frame degenerates.
vec3 perturbed(vec3 n, vec2 uv) {
    vec3 t = v_tangent.xyz - n * dot(n, v_tangent.xyz);
    if (dot(t, t) < 1e-12) return n;
    t = normalize(t);
    vec3 b = cross(n, t) * (v_tangent.w < 0.0 ? -1.0 : 1.0);
    vec3 m = texture(u_tex_normal, uv_transform(u_uv[7], uv)).rgb * 2.0 - 1.0;
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
    vec2 uv = u_shading == 0 ? animated_uv(v_uv) : v_uv;
#ifdef NORMAL_MAPS
    if (u_normal_map != 0) n = perturbed(n, uv);
#endif
#ifndef OUTLINE
    if (!gl_FrontFacing) n = -n;
#endif
    vec4 base = u_base_color * texture(u_tex_base, uv_transform(u_uv[0], uv));
    if (u_shading != 0) base *= v_color;
    float alpha = base.a;
    if (u_alpha_mode == 1) {
        if (alpha < u_alpha_cutoff) discard;
        alpha = 1.0;
    } else if (u_alpha_mode == 0) {
        alpha = 1.0;
    } else if (alpha <= 0.0) {
        discard;
    }
    vec3 emission = u_emissive * texture(u_tex_emissive, uv_transform(u_uv[5], uv)).rgb;
    vec3 color;
    if (u_shading == 1) {
        color = base.rgb;
    } else if (u_shading == 2) {
        float lambert = max(dot(n, u_light_dir), 0.0);
        color = base.rgb * (0.75 * u_light_color * lambert + hemisphere(n)) + emission;
    } else {
        vec3 v = normalize(u_eye - v_world);
        float shift = u_shading_shift
            + texture(u_tex_shift, uv_transform(u_uv[2], uv)).r * u_shift_texture_scale;
        float shading = dot(n, u_light_dir) + shift;
        shading = linearstep(-1.0 + u_shading_toony, 1.0 - u_shading_toony, shading);
        vec3 shade = u_shade_color * texture(u_tex_shade, uv_transform(u_uv[1], uv)).rgb;
        vec3 direct = mix(shade, base.rgb, shading) * u_light_color;
        vec3 gi = u_toon_ambient
            * mix(hemisphere(n), 0.5 * (u_sky_color + u_ground_color), u_gi_equalization);
        color = min(direct + gi * base.rgb, base.rgb * max(u_light_color, vec3(1.0)));
        vec3 irradiance = u_light_color * shading + gi;
        vec3 view_n = normalize(mat3(u_view) * n);
        vec3 rim = u_matcap_factor * texture(u_tex_matcap, view_n.xy * vec2(0.5, -0.5) + 0.5).rgb;
        float fresnel = clamp(1.0 - dot(n, v) + u_rim_lift, 0.0, 1.0);
        rim += u_rim_color * pow(fresnel, max(u_rim_fresnel_power, 1e-5));
        rim *= texture(u_tex_rim, uv_transform(u_uv[3], uv)).rgb;
        color += rim * mix(vec3(1.0), irradiance, u_rim_lighting_mix);
        color += emission;
#ifdef OUTLINE
        color = u_outline_color * mix(vec3(1.0), color, u_outline_lighting_mix);
#endif
    }
    frag_color = vec4(srgb_encode(color) * alpha, alpha);
}
