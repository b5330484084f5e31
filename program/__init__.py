"""What the exporter and codegen share, without torch: the typed program model
(model.py, mirroring schema/program.fbs), its one reader and writer (pte.py, over
flatc.py), the debug record beside a program (debug_record.py) and atomic file writes
(atomic.py). docs/internals.md says who reads what through it."""
