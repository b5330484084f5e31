"""The size report of a build: site_scons/size_attribution.py's bytes per component,
summarized and written as markdown, JSON and a chart.

CLI:
  python site_scons/size_report.py BINARY [MAP]       prints the components of BINARY
  python site_scons/size_report.py BINARY --plan kernel_plan.yaml [--core BIN]
      [--runner BIN] [--contrast BIN --contrast-plan kernel_plan.yaml] --out PREFIX
                                                      writes PREFIX.md, .json and .png
MAP defaults to BINARY.map (the build links every program with -Wl,-Map).
"""

import argparse
import collections
import json
import os
import sys

from size_attribution import (APP, BACKEND_API, BACKEND_PREFIX, CORE, EXECUTOR, GLUE,
                              KERNEL_PREFIX, KERNEL_SUPPORT, KERNEL_UTILS, LIBC, LIBGCC,
                              LIBSTDCXX, LOADER, MODULE, PLATFORM, REGISTRY, VERIFIER,
                              Attribution, attribute_files, ordered, read_plan)


def summarize(main: Attribution, plan: list, core: Attribution | None,
              contrast: Attribution | None, contrast_plan: list) -> dict:
    """The report's numbers: largest items and what selecting less would save."""
    largest = ordered(main.components)[:3]
    ops = []
    for k in plan:
        bytes_ = main.components.get(KERNEL_PREFIX + k.op, 0)
        ops.append({"op": k.op, "kernel_bytes": bytes_,
                    "dtypes": main.dtypes.get(KERNEL_PREFIX + k.op, {})})
    ops.sort(key=lambda o: -o["kernel_bytes"])
    summary = {"largest": largest, "ops": ops}
    if core is not None:
        summary["kernels_and_glue_bytes"] = main.stripped_bytes - core.stripped_bytes
    if contrast is not None:
        selected = {k.op for k in plan}
        summary["select_all_extra_bytes"] = contrast.stripped_bytes - main.stripped_bytes
        summary["select_all_kernels"] = [
            {"op": k.op, "bytes_all": contrast.components.get(KERNEL_PREFIX + k.op, 0),
             "bytes_here": main.components.get(KERNEL_PREFIX + k.op, 0),
             "selected_here": k.op in selected}
            for k in contrast_plan]
    return summary


def _fmt(n: int) -> str:
    return "{:,}".format(n)


def render_markdown(title: str, binaries: dict, summary: dict) -> str:
    main = binaries["size_app"]
    lines = ["# Size report: %s" % title, "",
             "Stripped bytes of each binary (`strip`); every byte is attributed to one "
             "component (%s). size_app is the runtime as an application ships it: "
             "tests/size/app/size_app.cpp (load a program, run `forward`) linked with this "
             "build's kernels; core is the same app with an empty kernel table; runner is "
             "the test runner (npy I/O, checks)." % main.method, ""]
    names = list(binaries)
    lines.append("| binary | stripped bytes | .bss |")
    lines.append("|---|---:|---:|")
    for name in names:
        lines.append("| %s | %s | %s |" % (name, _fmt(binaries[name].stripped_bytes),
                                           _fmt(binaries[name].bss_bytes)))
    lines += ["", "## Components", ""]
    all_components = [c for c, _ in ordered(main.components)]
    for name in names:
        for c, _ in ordered(binaries[name].components):
            if c not in all_components:
                all_components.append(c)
    lines.append("| component | " + " | ".join(names) + " |")
    lines.append("|---|" + "---:|" * len(names))
    for c in all_components:
        lines.append("| %s | %s |" % (c, " | ".join(
            _fmt(binaries[n].components.get(c, 0)) for n in names)))
    lines.append("| **total** | %s |" % " | ".join(
        "**%s**" % _fmt(binaries[n].stripped_bytes) for n in names))
    lines += ["", "## Largest items (size_app)", ""]
    for i, (c, n) in enumerate(summary["largest"], 1):
        lines.append("%d. %s: %s bytes (%.0f%%)" % (i, c, _fmt(n),
                                                   100.0 * n / main.stripped_bytes))
    lines += ["", "## What selecting less would save", ""]
    if "kernels_and_glue_bytes" in summary:
        lines.append("- Every kernel and the table together cost %s bytes over the core "
                     "(size_app - core)." % _fmt(summary["kernels_and_glue_bytes"]))
    for o in summary["ops"]:
        per_dtype = ", ".join("%s %s" % (d, _fmt(n)) for d, n in sorted(o["dtypes"].items()))
        lines.append("- Dropping %s saves about %s bytes of kernel code%s." % (
            o["op"], _fmt(o["kernel_bytes"]),
            " (template instances per dtype: %s; dtype cases inlined into the kernel "
            "are not separable)" % per_dtype if per_dtype else ""))
    if "select_all_extra_bytes" in summary:
        lines.append("- select=all (every kernel and dtype) costs %s bytes more; per "
                     "kernel, all dtypes against this selection:"
                     % _fmt(summary["select_all_extra_bytes"]))
        lines += ["", "| kernel | select=all | this build |", "|---|---:|---:|"]
        for k in sorted(summary["select_all_kernels"], key=lambda k: -k["bytes_all"]):
            lines.append("| %s | %s | %s |" % (k["op"], _fmt(k["bytes_all"]),
                                               _fmt(k["bytes_here"]) if k["selected_here"]
                                               else "not selected"))
    return "\n".join(lines) + "\n"


def render_json(title: str, binaries: dict, summary: dict) -> str:
    data = {"title": title,
            "binaries": {n: {"path": a.path, "stripped_bytes": a.stripped_bytes,
                             "bss_bytes": a.bss_bytes, "method": a.method,
                             "components": dict(ordered(a.components)), "dtypes": a.dtypes}
                         for n, a in binaries.items()},
            "summary": summary}
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


_RUNTIME = {PLATFORM, LOADER, EXECUTOR, VERIFIER, REGISTRY, CORE, KERNEL_SUPPORT, MODULE,
            BACKEND_API}
_LIBRARIES = {LIBSTDCXX, LIBGCC, LIBC}


def category(component: str) -> str:
    """The five groups the chart compares binaries by."""
    if component in _RUNTIME:
        return "runtime core"
    if component.startswith((KERNEL_PREFIX, BACKEND_PREFIX)) or component in (GLUE,
                                                                              KERNEL_UTILS):
        return "kernels, backends, glue"
    if component == APP:
        return "application"
    if component in _LIBRARIES:
        return "libstdc++, libgcc, libc"
    return "ELF, data, other"


def render_png(title: str, binaries: dict, path: str) -> None:
    """Top: size_app and core by component. Bottom: every binary by category."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = plt.get_cmap("tab20").colors
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 8.5),
                                      gridspec_kw={"height_ratios": [1.3, 1]})

    def stacked(ax, rows, order, palette):
        for i, part in enumerate(order):
            left = [sum(row.get(p, 0) for p in order[:i]) / 1024.0 for _, row in rows]
            width = [row.get(part, 0) / 1024.0 for _, row in rows]
            ax.barh([name for name, _ in rows], width, left=left, label=part,
                    color=palette[i % len(palette)], edgecolor="white", linewidth=0.5)
        for y, (name, row) in enumerate(rows):
            total = sum(row.values())
            ax.text(total / 1024.0, y, " {:,} B".format(total), va="center", fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("stripped KiB")
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)

    small = [(n, binaries[n].components) for n in ("size_app", "core") if n in binaries]
    order = [c for c, _ in ordered(binaries["size_app"].components)]
    stacked(top, small, order, colors)
    top.set_title("%s: size_app and core by component" % title)
    grouped = []
    for name, a in binaries.items():
        row = collections.Counter()
        for c, n in a.components.items():
            row[category(c)] += n
        grouped.append((name, dict(row)))
    groups = ["runtime core", "kernels, backends, glue", "application",
              "libstdc++, libgcc, libc", "ELF, data, other"]
    stacked(bottom, grouped, groups, colors[::2])
    bottom.set_title("every binary by category")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("map", nargs="?", help="link map (default: BINARY.map)")
    parser.add_argument("--plan", help="kernel_plan.yaml of the build")
    parser.add_argument("--core", help="the same app linked with an empty kernel table")
    parser.add_argument("--runner", help="the build's runner")
    parser.add_argument("--contrast", help="size_app of the select=all build")
    parser.add_argument("--contrast-plan", help="kernel_plan.yaml of the select=all build")
    parser.add_argument("--title", default="")
    parser.add_argument("--out", help="write OUT.md, OUT.json and OUT.png")
    args = parser.parse_args(argv)

    plan = read_plan(args.plan) if args.plan else []
    main_attr = attribute_files(args.binary, args.map, args.plan)
    if not args.out:
        print("%s: %s stripped bytes (%s)" % (args.binary, _fmt(main_attr.stripped_bytes),
                                             main_attr.method))
        for c, n in ordered(main_attr.components):
            print("%10s  %s" % (_fmt(n), c))
        return 0
    binaries = {"size_app": main_attr}
    contrast_plan = read_plan(args.contrast_plan) if args.contrast_plan else []
    if args.contrast:
        binaries["size_app select=all"] = attribute_files(args.contrast, None,
                                                          args.contrast_plan)
    if args.core:
        binaries["core"] = attribute_files(args.core, None, None)
    if args.runner:
        binaries["runner"] = attribute_files(args.runner, None, args.plan)
    summary = summarize(main_attr, plan, binaries.get("core"),
                        binaries.get("size_app select=all"), contrast_plan)
    title = args.title or os.path.basename(args.binary)
    with open(args.out + ".md", "w") as f:
        f.write(render_markdown(title, binaries, summary))
    with open(args.out + ".json", "w") as f:
        f.write(render_json(title, binaries, summary))
    render_png(title, binaries, args.out + ".png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
