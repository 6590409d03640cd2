"""Energy/provenance tests: make the workflow package importable when run on their own."""

import sys
from pathlib import Path

_WORKFLOW = Path(__file__).resolve().parents[2] / "workflow"
if str(_WORKFLOW) not in sys.path:
    sys.path.insert(0, str(_WORKFLOW))
