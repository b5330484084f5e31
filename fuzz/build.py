"""Builds the libFuzzer target and its seed corpus into build/fuzz/.

    python -m fuzz.build                 build (cached), print the binary and corpus paths
    python -m fuzz.build --run 600       ... then fuzz for 600 s on one core

The target (fuzz/fuzz_program.cpp) links the runtime and the kernel table of a
select=all build of the portable and prim libraries (every kernel, every dtype), made
with clang++ -fsanitize=fuzzer,address,undefined. Seeds are the example programs,
exported from their manifests. Both are cached by a digest of their inputs.
"""

import argparse
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(REPO, "build", "fuzz")
REGRESSIONS = os.path.join(REPO, "fuzz", "regressions")
SEED_MODELS = ("mlp", "kws_cnn", "gpt_tiny")
LIBRARIES = "portable,prim"

# float-cast-overflow: clang's `undefined` has it, named for clarity (as in tests/runtime).
CXXFLAGS = [
    "-std=c++17", "-fno-exceptions", "-fno-rtti", "-g", "-O1", "-fno-omit-frame-pointer",
    "-fsanitize=fuzzer,address,undefined,float-cast-overflow", "-fno-sanitize-recover=all",
]
# Objects are instrumented for coverage but carry no main(); the link adds libFuzzer's.
OBJ_FLAGS = [f.replace("fuzzer,", "fuzzer-no-link,") for f in CXXFLAGS]

SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


class Unavailable(Exception):
    """No clang++ with libFuzzer on this machine."""


def clang() -> str:
    """clang++ if it links a libFuzzer target, else raises Unavailable with the reason."""
    cxx = shutil.which("clang++") or shutil.which("clang++-14")
    if cxx is None:
        raise Unavailable("clang++ is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.cpp")
        with open(src, "w") as f:
            f.write('#include <stddef.h>\n#include <stdint.h>\nextern "C" int '
                    "LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
        proc = subprocess.run([cxx, *CXXFLAGS, src, "-o", os.path.join(tmp, "t")],
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable("%s cannot link a libFuzzer target (libclang-rt-dev missing?): %s"
                          % (cxx, proc.stderr.strip().splitlines()[-1:]))
    return cxx


def _digest(tops, extra: str) -> str:
    h = hashlib.sha256(extra.encode())
    for top in tops:
        path = os.path.join(REPO, top)
        walk = [(os.path.dirname(path), [], [os.path.basename(path)])] if os.path.isfile(
            path) else os.walk(path)
        for root, dirs, files in sorted(walk):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(root, name)
                h.update(os.path.relpath(path, REPO).encode())
                h.update(open(path, "rb").read())
    return h.hexdigest()[:16]


def _py(*args, cwd=REPO):
    subprocess.run([sys.executable, *args], cwd=cwd, check=True, capture_output=True)


def _publish(work: str, final: str):
    """Moves a finished build into place, replacing older ones (other digests)."""
    parent = os.path.dirname(final)
    os.makedirs(parent, exist_ok=True)
    for old in os.listdir(parent):
        if old != os.path.basename(final) and not old.startswith("."):
            shutil.rmtree(os.path.join(parent, old), ignore_errors=True)
    try:
        os.rename(work, final)
    except OSError:  # a concurrent build got there first: it is the same content
        shutil.rmtree(work, ignore_errors=True)


def build_fuzzer(jobs: int = 2) -> str:
    """Path of the fuzz target binary, compiled when its sources changed."""
    cxx = clang()
    final = os.path.join(BUILD, "bin", _digest(
        ("runtime", "kernels", "schema", "codegen", "templates", "manifests/kernels",
         "fuzz/fuzz_program.cpp"),
        " ".join([cxx, LIBRARIES] + CXXFLAGS)))
    binary = os.path.join(final, "fuzz_program")
    if os.path.exists(binary):
        return binary
    os.makedirs(os.path.join(BUILD, "bin"), exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=os.path.join(BUILD, "bin"))
    gen = os.path.join(work, "gen")
    target = os.path.join(REPO, "manifests", "targets", "host.yaml")
    kernels = [os.path.join(REPO, "manifests", "kernels", lib + ".yaml")
               for lib in LIBRARIES.split(",")]
    # The glue of a select=all build: the same codegen stages SCons runs.
    _py("-m", "codegen.oplist", "--all", "--libraries", *kernels, "--target", target,
        "--out", os.path.join(work, "ops.yaml"))
    _py("-m", "codegen.resolve", "--oplist", os.path.join(work, "ops.yaml"), "--target", target,
        "--out", os.path.join(work, "plan.yaml"), "--select", "all", "--libraries", LIBRARIES,
        "--sources-out", os.path.join(work, "kernel_sources.txt"))
    _py("-m", "codegen.render", "--plan", os.path.join(work, "plan.yaml"), "--out-dir", gen)
    from program.flatc import flatc
    subprocess.run([flatc(), "--cpp", "-o", gen, os.path.join(REPO, "schema", "program.fbs")],
                   check=True, capture_output=True)

    with open(os.path.join(work, "kernel_sources.txt")) as f:
        kernel_sources = [os.path.join(REPO, line.strip()) for line in f if line.strip()]
    sources = []
    for root, _, files in os.walk(os.path.join(REPO, "runtime")):
        sources += [os.path.join(root, n) for n in files if n.endswith(".cpp")]
    sources = sorted(sources) + kernel_sources + [
        os.path.join(gen, "register_kernels.cpp"), os.path.join(REPO, "fuzz", "fuzz_program.cpp")]
    includes = ["-I" + REPO, "-I" + gen,
                "-I" + os.path.join(sysconfig.get_paths()["data"], "include")]

    def compile_one(index_src):
        index, src = index_src
        obj = os.path.join(work, "obj", "%03d_%s.o" % (index, os.path.basename(src)))
        proc = subprocess.run([cxx, *OBJ_FLAGS, *includes, "-c", src, "-o", obj],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("compiling %s failed:\n%s" % (os.path.relpath(src, REPO),
                                                            proc.stderr))
        return obj

    os.makedirs(os.path.join(work, "obj"))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        objects = list(pool.map(compile_one, enumerate(sources)))
    subprocess.run([cxx, *CXXFLAGS, *objects, "-o", os.path.join(work, "fuzz_program")],
                   check=True, capture_output=True)
    shutil.rmtree(os.path.join(work, "obj"))
    _publish(work, final)
    return binary


def build_seeds() -> str:
    """Directory of the seed corpus: the example programs, exported from their manifests."""
    final = os.path.join(BUILD, "seeds", _digest(
        ("exporter", "program", "examples", "schema"),
        " ".join(open(os.path.join(REPO, "manifests", "models", m + ".yaml")).read()
                 for m in SEED_MODELS)))
    if os.path.isdir(final):
        return final
    os.makedirs(os.path.join(BUILD, "seeds"), exist_ok=True)
    work = tempfile.mkdtemp(prefix=".build-", dir=os.path.join(BUILD, "seeds"))
    export = os.path.join(work, "export")
    for model in SEED_MODELS:
        out = os.path.join(export, model + ".pte")
        _py("-m", "exporter", "--manifest",
            os.path.join(REPO, "manifests", "models", model + ".yaml"), "--out", out)
        shutil.copy2(out, os.path.join(work, model + ".pte"))
    shutil.rmtree(export)  # the corpus holds programs only, not their check files
    _publish(work, final)
    return final


def fuzz(binary: str, corpora, *flags: str, timeout: float) -> subprocess.CompletedProcess:
    """Runs the fuzzer on copies of `corpora` (new inputs never land in the tree)."""
    work = tempfile.mkdtemp(prefix="fuzz-")
    try:
        corpus = os.path.join(work, "corpus")
        os.makedirs(corpus)
        for src in corpora:
            for name in sorted(os.listdir(src)):
                path = os.path.join(src, name)
                if os.path.isfile(path) and not name.startswith(("README", ".")):
                    shutil.copy2(path, os.path.join(corpus, name))
        return subprocess.run([binary, *flags, "-artifact_prefix=%s/" % work, corpus],
                              capture_output=True, text=True, errors="replace", timeout=timeout,
                              env=dict(os.environ, **SANITIZER_ENV), cwd=work)
    finally:
        artifacts = [n for n in os.listdir(work) if n.startswith(("crash-", "leak-", "timeout-",
                                                                  "oom-"))]
        if artifacts:  # kept for the report: copy them to fuzz/regressions/ once fixed
            os.makedirs(os.path.join(BUILD, "artifacts"), exist_ok=True)
            for name in artifacts:
                shutil.copy2(os.path.join(work, name), os.path.join(BUILD, "artifacts", name))
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--run", type=int, metavar="SECONDS", help="then fuzz this long")
    args = p.parse_args()
    sys.path.insert(0, REPO)
    try:
        binary = build_fuzzer()
    except Unavailable as e:
        print("fuzz: %s" % e, file=sys.stderr)
        return 1
    seeds = build_seeds()
    print("fuzzer: %s\nseeds: %s\nregressions: %s" % (binary, seeds, REGRESSIONS))
    if args.run:
        proc = fuzz(binary, [seeds, REGRESSIONS], "-max_total_time=%d" % args.run,
                    "-timeout=20", "-print_final_stats=1", timeout=args.run + 300)
        sys.stderr.write(proc.stderr[-6000:])
        return proc.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
