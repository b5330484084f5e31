"""python -m tests.ops.conformance: see report.main."""

import sys

from tests.ops.conformance.report import main

sys.exit(main())
