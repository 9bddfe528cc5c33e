"""docs/api-errors.md lists every problem type the code can raise, and nothing else."""

import re
from pathlib import Path

from django.urls import get_resolver

from gin_platform.http.problems import REGISTRY

DOC = Path(__file__).resolve().parents[2] / "docs" / "api-errors.md"


def test_every_problem_type_is_documented():
    assert get_resolver().url_patterns  # imports every view, and with it every problem
    documented = set(re.findall(r"`/problems/([a-z0-9-]+)`", DOC.read_text()))
    declared = set(REGISTRY) - {"about-blank"}
    assert declared - documented == set(), "add these to docs/api-errors.md"
    assert documented - declared == set(), "these are documented but no longer exist"
