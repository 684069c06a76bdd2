"""Fixtures: real redis-server processes from the repository's test harness."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests"))

from fixtures import r, server, start_server  # noqa: E402,F401
