"""Hana's built-in motions, authored in code and written as VRM Animation (.vrma) files.

``tools/make_builtin_clips.py`` runs it. Modules: ``qmath`` (quaternions), ``skeleton``
(the T-pose the files carry), ``curves`` (keyframe channels), ``rig`` (channels to bone
rotations: spine, arms and legs by two-bone IK), ``clips`` (every motion), ``vrma`` (the
glTF writer) and ``build`` (files, library.json, README). ``preview`` renders contact
sheets with the project's runtime and renderer, ``graphs`` plots each clip's curves.
"""
