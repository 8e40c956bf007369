"""What every loading step shares: the document, the accessor reader and the problem list."""

from __future__ import annotations

from dataclasses import dataclass, field

from .accessors import AccessorReader
from .errors import AvatarLoadError
from .gltf import Document
from .limits import Budget, Limits
from .model import Problem


@dataclass
class LoadContext:
    doc: Document
    accessors: AccessorReader
    problems: list[Problem] = field(default_factory=list)

    @classmethod
    def for_document(cls, doc: Document) -> LoadContext:
        return cls(doc, AccessorReader(doc))

    @property
    def source(self) -> str:
        return self.doc.source

    @property
    def limits(self) -> Limits:
        return self.doc.limits

    @property
    def budget(self) -> Budget:
        return self.doc.budget

    def warn(self, message: str, action: str) -> None:
        """Record a problem the app works around (``action`` says how)."""
        self.problems.append(Problem("warning", message, action))

    def fail(self, message: str) -> AvatarLoadError:
        """A load error for this file (raise it)."""
        return AvatarLoadError(f"{self.source}: {message}")
