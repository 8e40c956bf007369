"""Settings > LLM Model with her own mind chosen: no address or key, its installed models,
what the model is (size, licence, speed measured here) and the idle time, saved."""

from __future__ import annotations

import pytest

from companion_desktop.llm.mind.models import installed_models, record_speed
from companion_desktop.storage.settings import LlmSettings, load_settings
from companion_desktop.ui.settings.llm_page import LlmPage

pytestmark = pytest.mark.qt


@pytest.fixture
def page(qtbot, service):
    if not installed_models():
        pytest.skip("her mind's small test model is not installed")
    page = LlmPage(service)
    qtbot.addWidget(page)
    page.provider.setCurrentIndex(page.provider.findData("builtin"))
    return page


def test_her_own_mind_needs_no_address_or_key_and_says_what_it_is(page):
    assert page.form.isRowVisible(page.mind)
    assert not page.base_url.isEnabled() and not page.key.isEnabled()
    assert page.base_url.text() == ""
    assert "Not needed" in page.key_state.text()
    ids = [page.model.itemText(i) for i in range(page.model.count())]
    assert ids == [m.id for m in installed_models()]
    assert page.model.currentText() == ids[0]
    info = page.mind.info.text()
    assert "Licence: Apache-2.0" in info and "measured on her first reply" in info


def test_the_speed_measured_here_is_shown(qtbot, service):
    model = installed_models()[0] if installed_models() else None
    if model is None:
        pytest.skip("her mind's small test model is not installed")
    record_speed(service.db.path.parent / "cache", model, 12.34)
    record_speed(service.db.path.parent / "cache", model, 99.0)  # the first one stays
    page = LlmPage(service)
    qtbot.addWidget(page)
    page.provider.setCurrentIndex(page.provider.findData("builtin"))
    assert "about 12 tokens a second on this computer" in page.mind.info.text()


def test_the_idle_time_is_saved_and_other_providers_hide_the_section(page, service):
    page.mind.idle.setValue(45)
    page.apply()
    with service.db.read_session() as session:
        saved = load_settings(session, LlmSettings)
    assert (saved.provider, saved.mind_idle_minutes, saved.base_url) == ("builtin", 45, None)
    page.provider.setCurrentIndex(page.provider.findData("ollama"))
    assert not page.form.isRowVisible(page.mind) and page.base_url.isEnabled()
    page.mind.idle.setValue(500)  # bounded by the field as by the settings
    assert page.mind.idle_minutes == 240
