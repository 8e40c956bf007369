// Edge lines (``silhouette.py``), drawn: the lines the edge pass appended, as they are.
layout(location = 0) in vec4 a_clip;
layout(location = 1) in vec4 a_ends;
flat out vec4 v_line;                // the edge's two ends, window pixels

void main() {
    gl_Position = a_clip;
    v_line = a_ends;
}
