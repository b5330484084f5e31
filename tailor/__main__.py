"""python -m tailor: the same as the `tailor` console command (tailor/cli.py)."""

import sys

from tailor.cli import main

sys.exit(main())
