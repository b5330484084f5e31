// Defaults a build gives its binaries (the runner, the apps): defined by the generated
// gen/build_defaults.cpp (site_scons/stage_compile.py) from the manifests.
#pragma once

namespace tailor {

/// Kernel threads when no --threads is given: the `threads:` of the build's models (they
/// must agree), else of its target, else 1; 0 means every core
/// (ThreadPool::resolve_threads).
int build_default_threads();

}  // namespace tailor
