"""The inspector: where a program's time goes and where its numbers go wrong.

    python -m inspector build/host-trace/nanogpt/nanogpt.pte --trace trace.json --png time.png
    python -m inspector build/host-trace/mlp/mlp.pte --dump-dir dump/ --manifest manifests/models/mlp.yaml

Reads the runner's trace (runner --trace FILE, trace_file.py) and the program's debug
record (<stem>.debug.json, program/debug_record.py); prints a table per instruction
and one per operator type (profile_tables.py) and draws them (chart.py). With the
runner's intermediate outputs (runner --dump-intermediates DIR) it runs the exported
graph in eager torch on the same inputs and reports each instruction's error
(numerics.py). Only numerics.py imports torch.
"""
