"""The kernel libraries of llm::cache_attention, which an `llm:` model lists under
kernel_libraries (placeholder until kernels/llm/ lands: nanoGPT's kernel library)."""

KERNEL_LIBRARIES = ()
