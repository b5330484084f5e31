"""The one exception type for user errors in the exporter.

An ExportError means the input is wrong (a manifest with a typo, a factory that does not
import, a model that uses an operator Tailor cannot express), never that the exporter has
a bug. Its message names the file or node, the entry, and what would fix it. The CLI prints
it without a traceback and exits with status 1; every other exception is a bug and keeps
its traceback.
"""


class ExportError(Exception):
    """A user error: the message says what is wrong and how to fix it."""
