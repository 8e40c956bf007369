"""Her 3D avatar: the VRM model (``vrm``), its animation, its drawing (``render``)."""
