"""The package list, which pyproject.toml cannot state: everything in companion_desktop/,
and companion_desktop.resources, whose files are the top-level resources/ folder."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["companion_desktop*"]), "companion_desktop.resources"])
