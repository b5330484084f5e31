"""Operator rows + module times -> a PNG: time per operator type (top) and per module
(bottom), as horizontal bars in microseconds per run.

Drawn with matplotlib, which the build already uses for the size report's chart.
"""

from inspector.profile_tables import Row

MAX_BARS = 20  # the rest is summed into one "other" bar


def _top(items: list[tuple[str, float]]) -> list[tuple[str, float]]:
    if len(items) <= MAX_BARS:
        return items
    rest = sum(v for _, v in items[MAX_BARS - 1:])
    return items[:MAX_BARS - 1] + [(f"other ({len(items) - MAX_BARS + 1})", rest)]


def render_png(title: str, operators: list[Row], runs: int, modules: dict[str, float],
               path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_op = _top([(r.label, r.stats.total / runs) for r in operators])
    by_module = _top(list(modules.items()))
    height = 1.5 + 0.28 * (len(by_op) + len(by_module))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, height),
                                      gridspec_kw={"height_ratios": [max(len(by_op), 1),
                                                                     max(len(by_module), 1)]})
    for ax, items, what, color in ((top, by_op, "operator type", "#4878a8"),
                                   (bottom, by_module, "module", "#c47a3c")):
        names = [name for name, _ in items]
        values = [value for _, value in items]
        ax.barh(names, values, color=color)
        total = sum(values) or 1.0
        for y, value in enumerate(values):
            ax.text(value, y, f" {value:,.1f} us ({100 * value / total:.0f}%)", va="center",
                    fontsize=7)
        ax.invert_yaxis()
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("microseconds per run")
        ax.set_title(f"time per {what}", fontsize=9)
        ax.margins(x=0.25)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
