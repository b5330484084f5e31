"""The exporter's user errors: ExportError, the ManifestError of export.

An ExportError means the input is wrong (a factory that does not import, a model that
uses an operator Tailor cannot express), never that the exporter has a bug; a mistake in
a manifest itself is a ManifestError (exporter/manifest.py). Both messages name the file
or node, the entry, and what would fix it. The CLI prints them without a traceback and
exits with status 1; every other exception is a bug and keeps its traceback.
"""

from codegen.errors import ManifestError


class ExportError(ManifestError):
    """A user error: the message says what is wrong and how to fix it."""
