

def test_relaxed_pose_bends_elbows_forward():
    import random as _random

    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime as _Runtime
    from companion_desktop.resources import default_avatar_path

    model = load_model(default_avatar_path())
    frame = _Runtime(model, _random.Random(0), animation=relaxed_pose, springs=False).update(1 / 30)
    for side in ("left", "right"):
        elbow = frame.world[model.humanoid[f"{side}LowerArm"]][:3, 3]
        wrist = frame.world[model.humanoid[f"{side}Hand"]][:3, 3]
        assert wrist[1] < elbow[1]  # arms hang down
        assert wrist[2] > elbow[2]  # and the forearm comes forward (+Z), not behind her
