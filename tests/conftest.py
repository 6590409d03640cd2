"""pytest set-up shared by every test folder; the helpers themselves live in support.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT


@pytest.fixture
def root() -> Path:
    return ROOT
