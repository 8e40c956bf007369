// One triangle that covers the whole picture (no vertex buffer: gl_VertexID 0, 1, 2),
// for passes that work on a finished picture (``antialias.py``).
void main() {
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
