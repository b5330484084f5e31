"""Quantization at export: `quantize:` in a model manifest, `export(..., quantize=)`.

scheme.py parses the setting, apply.py swaps the model's Linear and Embedding layers for
the quantized modules of modules.py (weights packed by weights.py, activations quantized
per token as activations.py says), and ops.py registers the operators those modules
call, so torch.export keeps each as one call that kernels/quantized/ serves.
The package imports nothing itself: scheme.py is read without torch (manifest checks).
"""
