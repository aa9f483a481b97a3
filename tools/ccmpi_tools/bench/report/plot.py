"""Plots (SVG) with matplotlib's Agg backend (no display needed; Debian:
python3-matplotlib). A panel is a list of series, each (title, [(x, median, min, max)]),
drawn with error bars from min to max, and an optional bound drawn as a grey line."""
import os


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        # Text as text (small files that diff well), ids the same on every run.
        matplotlib.rcParams["svg.fonttype"] = "none"
        matplotlib.rcParams["svg.hashsalt"] = "ccmpi-bench"
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        return None, None
    return plt, FuncFormatter


def available():
    return _pyplot()[0] is not None


def size_label(x, _pos=None):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if x >= div:
            return "%g %s" % (x / div, unit)
    return "%g B" % x


class Panel:
    def __init__(self, title, xlabel, ylabel, xlog=False, ylog=False, xsizes=False):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.xlog, self.ylog, self.xsizes = xlog, ylog, xsizes
        self.series = []  # (title, points, style) with style "data" or "bound"

    def add(self, title, points, style="data"):
        if points:
            self.series.append((title, sorted(points), style))


def draw(panels, path, cols=3, width=4.2, height=3.4):
    """Draws the panels on a grid into `path` (SVG); False if nothing was drawn (no
    matplotlib, or no data), and then any earlier plot at `path` is removed."""
    panels = [p for p in panels if p.series]
    plt, FuncFormatter = _pyplot()
    if plt is None or not panels:
        if os.path.exists(path):
            os.remove(path)  # an earlier run's plot
        return False
    cols = min(cols, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        for title, pts, style in p.series:
            xs = [q[0] for q in pts]
            if style == "bound":
                ax.plot(xs, [q[1] for q in pts], color="0.5", linewidth=2, linestyle="--",
                        label=title)
                continue
            ys = [q[1] for q in pts]
            err = [[q[1] - q[2] for q in pts], [q[3] - q[1] for q in pts]]
            ax.errorbar(xs, ys, yerr=err, marker="o", markersize=3, capsize=2, label=title)
        if p.xlog:
            ax.set_xscale("log", base=2)
        if p.ylog:
            ax.set_yscale("log")
        if p.xsizes:
            ax.xaxis.set_major_formatter(FuncFormatter(size_label))
        ax.set_title(p.title, fontsize=10)
        ax.set_xlabel(p.xlabel)
        ax.set_ylabel(p.ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    for j in range(len(panels), rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return True


def draw_bars(categories, series, path, title, ylabel):
    """Grouped bars into `path` (SVG): one group per category, one bar per series (title,
    [(category index, median, min, max)]) with min-max error bars; False (and any earlier
    plot at `path` removed) without matplotlib or data."""
    plt, _ = _pyplot()
    series = [(t, pts) for t, pts in series if pts]
    if plt is None or not series or not categories:
        if os.path.exists(path):
            os.remove(path)
        return False
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(categories) + 2), 4.0))
    width = 0.8 / len(series)
    for k, (t, pts) in enumerate(series):
        xs = [q[0] - 0.4 + width * (k + 0.5) for q in pts]
        err = [[q[1] - q[2] for q in pts], [q[3] - q[1] for q in pts]]
        ax.bar(xs, [q[1] for q in pts], width, yerr=err, capsize=2, label=t)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, fontsize=8)
    ax.axhline(1.0, color="0.5", linewidth=1, linestyle="--")
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
    return True
