"""The kernel libraries of the llm operators (kernels/llm/), for a model's `kernel_libraries:`.

An `llm:` model lists KERNEL_LIBRARIES ahead of the target's libraries: the optimized
kernel first, the portable one after it. A build whose own libraries leave out
`optimized` (profile=size, or libraries=portable,prim) drops the `_optimized` file and
runs the portable kernel (site_scons/stages.py, model_libraries_for_build).
"""

KERNEL_LIBRARIES = ("kernels/llm/llm_optimized.yaml", "kernels/llm/llm_portable.yaml")
