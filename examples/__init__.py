"""Example models; each `<name>/model.py` has the factory its manifest names."""
