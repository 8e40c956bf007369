// Uniform blocks shared by the avatar shaders (std140; packed by ``uniforms.py``).
layout(std140) uniform FrameBlock {  // binding 0: once per picture
    mat4 f_view;
    mat4 f_proj;
    vec4 f_eye;            // xyz; w: the least outline width, NDC units across y
    vec4 f_light_dir;      // xyz: towards the light, world space, normalised
    vec4 f_light_color;    // rgb (linear)
    vec4 f_sky;            // rgb: hemisphere ambient (linear); w: MToon's share of it
    vec4 f_ground;         // rgb
};

layout(std140) uniform MaterialBlock {  // binding 1: one range per material
    vec4 m_base_color;     // linear RGBA
    vec4 m_shade_color;    // rgb; w: alpha cutoff
    vec4 m_emissive;       // rgb; w: normal map scale
    vec4 m_rim_color;      // rgb; w: rim fresnel power
    vec4 m_matcap_factor;  // rgb; w: rim lift
    vec4 m_outline_color;  // rgb; w: outline lighting mix
    vec4 m_shading;        // shading shift, toony, shift texture scale, GI equalization
    vec4 m_misc;           // rim lighting mix, UV rotation (radians), outline width, outline mode
    vec4 m_uv_scroll;      // xy: UV animation offset at this time (uv units)
    mat3 m_uv[9];          // base, shade, shift, rim, matcap(unused), emissive, mask, normal, outline
};

#define u_view f_view
#define u_proj f_proj
#define u_eye f_eye.xyz
#define u_outline_least f_eye.w
#define u_light_dir f_light_dir.xyz
#define u_light_color f_light_color.rgb
#define u_sky_color f_sky.rgb
#define u_toon_ambient f_sky.w
#define u_ground_color f_ground.rgb
#define u_base_color m_base_color
#define u_shade_color m_shade_color.rgb
#define u_alpha_cutoff m_shade_color.w
#define u_emissive m_emissive.rgb
#define u_normal_scale m_emissive.w
#define u_rim_color m_rim_color.rgb
#define u_rim_fresnel_power m_rim_color.w
#define u_matcap_factor m_matcap_factor.rgb
#define u_rim_lift m_matcap_factor.w
#define u_outline_color m_outline_color.rgb
#define u_outline_lighting_mix m_outline_color.w
#define u_shading_shift m_shading.x
#define u_shading_toony m_shading.y
#define u_shift_texture_scale m_shading.z
#define u_gi_equalization m_shading.w
#define u_rim_lighting_mix m_misc.x
#define u_uv_rotation m_misc.y
#define u_outline_width m_misc.z
#define u_outline_mode int(m_misc.w)
#define u_uv_scroll m_uv_scroll.xy
#define u_uv m_uv
