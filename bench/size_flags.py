"""Measures each size flag's effect: builds the runtime flag by flag, prints stripped sizes.

    .venv/bin/python bench/size_flags.py [--model mlp] [--jobs 2]

Starts from the host target's flags (manifests/targets/host.yaml) and adds one step at a
time until it reaches manifests/profiles/size.yaml (then log=0, and one step the profile
does not take), so every row is the row above plus one change. Each
row links three programs with g++ directly (no SCons, so nothing else changes between
rows): core = tests/size/app/size_app.cpp with an empty kernel table; app = size_app
with the model's kernels; runner = runner/ with the model's kernels. The model's
generated glue and kernel units come from one SCons build (build/bench-size). Sizes are
bytes after `strip`, so they are deterministic for a given toolchain.
"""

import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import sysconfig
import tempfile

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "site_scons"))
import kernel_units  # noqa: E402
from codegen.build_layout import kernel_plan, kernel_unit_source, output_dir, tree  # noqa: E402
BUILD_DIR = tree("bench-size")
TERMINATE = "runtime/platform/default/terminate.cpp"  # linked as an object when a step asks

# (label, extra cxxflags, extra linkflags, extra link sources), cumulative.
STEPS = [
    ("host target flags (-O2, sections + gc-sections)", [], [], []),
    ("-Os", ["-Os"], ["-Os"], []),
    ("no unwind tables", ["-fno-asynchronous-unwind-tables", "-fno-unwind-tables"],
     ["-fno-asynchronous-unwind-tables", "-fno-unwind-tables"], []),
    ("LTO", ["-flto"], ["-flto", "-flto-partition=one"], []),
    ("static libstdc++/libgcc", [], ["-static-libstdc++", "-static-libgcc"], []),
    ("no verbose terminate handler", [], [], [TERMINATE]),
    ("non-PIE", ["-fno-pie"], ["-fno-pie", "-no-pie"], []),
    ("-z norelro -z noseparate-code", [], ["-Wl,-z,norelro", "-Wl,-z,noseparate-code"], []),
    ("log=0", ["-DTL_LOG_ENABLED=0"], [], []),
    ("(not taken) no build-id, no .comment", ["-fno-ident"], ["-Wl,--build-id=none"], []),
]


def host_flags():
    with open(os.path.join(REPO, "manifests", "targets", "host.yaml")) as f:
        target = yaml.safe_load(f)
    return target["cxx"], list(target["cxxflags"]), list(target["linkflags"])


def build_glue(model: str) -> tuple[str, list]:
    """(the model's gen/ directory, the sources of its glue and kernel units), via SCons."""
    out = output_dir([model], build_dir=BUILD_DIR)
    targets = [os.path.join(out, "gen"), os.path.join(out, "obj", kernel_units.ARCHIVE),
               os.path.join(BUILD_DIR, "schema", "program_generated.h")]
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "scons"), "-Q",
                    "model=" + model, "build_dir=" + BUILD_DIR] + targets,
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    gen = os.path.join(REPO, out, "gen")
    units = kernel_units.read_units(os.path.join(REPO, kernel_plan(out)))
    config = os.path.join(REPO, os.path.dirname(out))  # the target configuration's directory
    return gen, sorted(glob.glob(os.path.join(gen, "*.cpp"))) + [
        kernel_unit_source(config, name) for name, _ in units]


def compile_one(cxx, flags, source, obj):
    subprocess.run([cxx] + flags + ["-c", source, "-o", obj], check=True)
    return obj


def stripped_size(cxx, objects, linkflags, out):
    """(stripped file bytes, loaded bytes: text + data as `size` counts them)."""
    subprocess.run([cxx] + objects + linkflags + ["-o", out], check=True)
    subprocess.run(["strip", out, "-o", out + ".stripped"], check=True)
    text, data = subprocess.run(["size", out + ".stripped"], capture_output=True, text=True,
                                check=True).stdout.splitlines()[1].split()[:2]
    return os.path.getsize(out + ".stripped"), int(text) + int(data)


def measure(step_index, gen, glue, jobs, workdir):
    """(core, app, runner) stripped sizes after the first `step_index` + 1 steps."""
    cxx, cxxflags, linkflags = host_flags()
    extra_sources = []
    for _, more_cxx, more_link, more_sources in STEPS[:step_index + 1]:
        cxxflags += more_cxx
        linkflags += more_link
        extra_sources += more_sources
    includes = ["-I" + REPO, "-I" + gen, "-I" + os.path.join(REPO, BUILD_DIR, "schema"),
                "-I" + os.path.join(sysconfig.get_paths()["data"], "include")]
    runtime = [s for s in glob.glob(os.path.join(REPO, "runtime/**/*.cpp"), recursive=True)
               if os.path.relpath(s, REPO) != TERMINATE]
    groups = {
        "runtime": runtime,
        "extra": [os.path.join(REPO, s) for s in extra_sources],
        "app": [os.path.join(REPO, "tests/size/app/size_app.cpp")],
        "empty": [os.path.join(REPO, "tests/size/app/empty_kernel_table.cpp")],
        "glue": glue,
        "runner": sorted(glob.glob(os.path.join(REPO, "runner/*.cpp"))),
    }
    objects = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {}
        for group, sources in groups.items():
            for source in sources:
                obj = os.path.join(workdir, group + "_" + os.path.basename(source) + ".o")
                futures[pool.submit(compile_one, cxx, cxxflags + includes, source, obj)] = group
        for future, group in futures.items():
            objects.setdefault(group, []).append(future.result())
    lib = os.path.join(workdir, "libruntime.a")
    subprocess.run(["ar", "rcs", lib] + objects["runtime"], check=True)
    extra = objects.get("extra", [])
    link = lambda objs, name: stripped_size(cxx, objs + extra + [lib], linkflags,
                                            os.path.join(workdir, name))
    return (link(objects["app"] + objects["empty"], "core"),
            link(objects["app"] + objects["glue"], "app"),
            link(objects["runner"] + objects["glue"], "runner"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    gen, glue = build_glue(args.model)
    rows = []
    for index, (label, *_rest) in enumerate(STEPS):
        with tempfile.TemporaryDirectory() as workdir:
            rows.append((label, measure(index, gen, glue, args.jobs, workdir)))
    print("Stripped file bytes (loaded text+data bytes in parentheses), x86-64, %s; each "
          "row adds one change to the row above, Δ on the stripped file."
          % subprocess.run(["g++", "--version"], capture_output=True, text=True)
          .stdout.splitlines()[0])
    print()
    print("| step | core | Δ | %s app | Δ | %s runner | Δ |" % (args.model, args.model))
    print("|---|---:|---:|---:|---:|---:|---:|")
    previous = None
    for label, sizes in rows:
        cells = []
        for i, (size, loaded) in enumerate(sizes):
            delta = "" if previous is None else "%+d" % (size - previous[i][0])
            cells += ["{:,} ({:,})".format(size, loaded), delta]
        print("| %s | %s |" % (label, " | ".join(cells)))
        previous = sizes
    return 0


if __name__ == "__main__":
    sys.exit(main())
