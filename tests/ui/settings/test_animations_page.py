"""Settings > Animations over a real database: edits via apply, uploads, delete, preview."""

from __future__ import annotations

import pytest

from companion_desktop.avatar.animation.clip import Clip
from companion_desktop.pipeline.animations import AnimationService
from companion_desktop.ui.settings.animations_page import NO_AVATAR, AnimationsPage
from companion_desktop.ui.settings.llm_page import SettingsProblem
from tests.conftest import T0
from tests.pipeline.test_animation_library import (
    make_library,
    sparse_file,
    write_png,
    write_vrma,
)

pytestmark = pytest.mark.qt

WAIT_MS = 8000


@pytest.fixture
def animations(service, tmp_path):
    return AnimationService(service.db, tmp_path / "data", make_library(tmp_path / "builtin"),
                            clock=lambda: T0)


@pytest.fixture
def page(qtbot, service, animations):
    widget = AnimationsPage(service, animations=animations)
    qtbot.addWidget(widget)
    widget.show()
    return widget


def upload(qtbot, page, path):
    page.upload_file(path)
    qtbot.waitUntil(lambda: page.upload_button.isEnabled(), timeout=WAIT_MS)


def test_lists_emotes_and_idles(page):
    assert list(page.rows) == ["wave", "nod"]
    assert list(page.pool_boxes) == ["idle_breathe", "idle_sway"]
    assert all(box.isChecked() for box in page.pool_boxes.values())
    assert page.rows["wave"].name.text() == "Wave"
    assert page.rows["wave"].kind.text() == "Built-in emote"
    assert page.rows["wave"].enabled.isChecked()
    assert not page.rows["wave"].delete.isVisible()
    assert page.thinking.currentData() is None
    assert [page.thinking.itemData(i) for i in range(page.thinking.count())][:3] == [
        None, "idle_breathe", "idle_sway"]


def test_rename_switch_pool_and_thinking_are_saved_by_apply(qtbot, page, animations):
    page.rows["wave"].name.setText("  Big wave ")
    page.rows["wave"].description.setText("waves with both arms")
    page.rows["nod"].enabled.setChecked(False)
    page.pool_boxes["idle_sway"].setChecked(False)
    page.thinking.setCurrentIndex(page.thinking.findData("thinking"))
    assert animations.entry("wave").name == "Wave"  # nothing written before apply
    with qtbot.waitSignal(page.library_changed, timeout=WAIT_MS):
        page.apply()
    wave = animations.entry("wave")
    assert (wave.name, wave.description) == ("Big wave", "waves with both arms")
    assert animations.entry("nod").enabled is False
    assert animations.idle_pool() == ["idle_breathe"]
    assert animations.thinking_clip() == "thinking"
    assert animations.enabled_for_prompt() == [("wave", "waves with both arms")]
    fresh = AnimationsPage(page.service, animations=animations)
    qtbot.addWidget(fresh)
    assert fresh.rows["wave"].name.text() == "Big wave"
    assert not fresh.pool_boxes["idle_sway"].isChecked()
    assert fresh.thinking.currentData() == "thinking"
    assert fresh.changes() == {}


def test_a_bad_name_is_refused_and_nothing_written(page, animations):
    page.rows["wave"].name.setText("   ")
    page.rows["nod"].name.setText("Nod twice")
    with pytest.raises(SettingsProblem, match="Animations, Wave: An animation needs a name"):
        page.check()
    with pytest.raises(SettingsProblem):
        page.apply()
    assert animations.entry("nod").name == "Nod"


def test_upload_of_a_file_too_big_shows_the_reason_inline(qtbot, page, tmp_path):
    big = sparse_file(tmp_path / "huge.vrma", 26 * 1024 * 1024)
    upload(qtbot, page, big)
    assert page.upload_status.isVisible()
    assert "huge.vrma is 26.0 MB; animations can be at most 25 MB" in page.upload_status.text()
    assert page.upload_status.property("kind") == "error"
    assert not page.busy.isVisible()
    assert not (tmp_path / "data" / "animations").exists()
    assert list(page.rows) == ["wave", "nod"]


def test_upload_of_a_png_shows_the_reason_inline(qtbot, page, tmp_path):
    upload(qtbot, page, write_png(tmp_path / "photo.png"))
    assert "photo.png is not a VRM animation" in page.upload_status.text()
    assert page.upload_status.property("kind") == "error"


def test_upload_of_a_corrupt_vrma_shows_the_loaders_message(qtbot, page, tmp_path):
    fake = write_png(tmp_path / "fake.vrma")
    upload(qtbot, page, fake)
    assert page.upload_status.property("kind") == "error"
    assert page.upload_status.text().startswith("✗")
    assert list(page.rows) == ["wave", "nod"]


def test_upload_of_a_real_vrma_adds_it(qtbot, page, tmp_path):
    with qtbot.waitSignal(page.library_changed, timeout=WAIT_MS):
        page.upload_file(write_vrma(tmp_path / "spin.vrma"))
    assert "upload_spin_1" in page.rows


def test_upload_adds_a_row_a_pool_box_and_a_thinking_choice(qtbot, page, animations, tmp_path):
    write_vrma(tmp_path / "spin.vrma")
    page.rows["wave"].name.setText("Unsaved edit")
    with qtbot.waitSignal(page.library_changed, timeout=WAIT_MS):
        page.upload_file(tmp_path / "spin.vrma")
    assert list(page.rows) == ["wave", "nod", "upload_spin_1"]
    assert page.rows["wave"].name.text() == "Unsaved edit"  # edits survive an upload
    row = page.rows["upload_spin_1"]
    assert row.kind.text() == "Your upload" and not row.delete.isHidden()
    assert "upload_spin_1" in page.pool_boxes
    assert page.thinking.findData("upload_spin_1") > 0
    assert page.upload_status.property("kind") == "ok"
    page.pool_boxes["upload_spin_1"].setChecked(True)
    page.pool_boxes["idle_breathe"].setChecked(False)
    page.pool_boxes["idle_sway"].setChecked(False)
    page.rows["wave"].name.setText("Wave")
    page.apply()
    assert animations.idle_pool() == ["upload_spin_1"]


def test_delete_asks_first_then_removes_everywhere(qtbot, page, animations, tmp_path):
    write_vrma(tmp_path / "spin.vrma")
    upload(qtbot, page, tmp_path / "spin.vrma")
    page.thinking.setCurrentIndex(page.thinking.findData("upload_spin_1"))
    page.confirm = lambda text: False
    assert page.delete("upload_spin_1") is False
    assert "upload_spin_1" in page.rows
    asked: list[str] = []
    page.confirm = lambda text: asked.append(text) or True
    with qtbot.waitSignal(page.library_changed, timeout=WAIT_MS):
        assert page.delete("upload_spin_1") is True
    assert asked == ["Delete Spin? Its file is removed from the data folder."]
    assert "upload_spin_1" not in page.rows and "upload_spin_1" not in page.pool_boxes
    assert page.thinking.findData("upload_spin_1") == -1
    assert page.thinking.currentData() is None
    assert list((tmp_path / "data" / "animations").iterdir()) == []
    page.apply()  # nothing stale left to write
    assert page.delete("wave") is False
    assert "cannot be deleted" in page.upload_status.text()


def test_preview_without_an_avatar_says_so(page):
    page.preview("wave")
    assert page.preview_status.text() == NO_AVATAR


class FakeHost:
    def __init__(self, accept: bool = True) -> None:
        self.model = object()
        self.played: list[Clip] = []
        self.accept = accept

    def play_emote(self, clip: Clip) -> bool:
        self.played.append(clip)
        return self.accept


def test_preview_plays_the_clip_on_the_host(qtbot, service, animations):
    host = FakeHost()
    page = AnimationsPage(service, host=host, animations=animations)
    qtbot.addWidget(page)
    page.rows["wave"].preview.click()
    qtbot.waitUntil(lambda: bool(host.played), timeout=WAIT_MS)
    assert host.played[0].id == "wave"
    assert page.preview_status.property("kind") == "ok"
    host.accept = False
    page.preview("nod")
    qtbot.waitUntil(lambda: len(host.played) == 2, timeout=WAIT_MS)
    assert "busy" in page.preview_status.text()


def test_settings_dialog_has_the_animations_page(qtbot, service):
    from companion_desktop.ui.settings import SettingsDialog
    from companion_desktop.ui.settings.dialog import PAGES

    dialog = SettingsDialog(service, lambda: T0, page="Animations")
    qtbot.addWidget(dialog)
    assert "Animations" in PAGES
    assert dialog.stack.currentIndex() == PAGES.index("Animations")
    assert isinstance(dialog.animations, AnimationsPage)


def test_preview_reaches_the_mixer_of_the_runtime(qtbot, service, animations, tmp_path):
    """A host without play_emote: the page finds the AnimationDriver's mixer."""
    from types import SimpleNamespace

    from companion_desktop.avatar.animation.driver import AnimationDriver

    driver = AnimationDriver()
    host = SimpleNamespace(model=object(), runtime=SimpleNamespace(animation=driver))
    page = AnimationsPage(service, host=host, animations=animations)
    qtbot.addWidget(page)
    page.preview("wave")
    qtbot.waitUntil(lambda: driver.mixer.playing_emote, timeout=WAIT_MS)
    assert driver.mixer.emote_clip.id == "wave"
