"""Tailor codegen: manifests and programs in, kernel plan and generated C++ out.

Stages (each `python -m codegen.<stage>`): oplist -> resolve -> render. codegen never
imports torch.
"""
