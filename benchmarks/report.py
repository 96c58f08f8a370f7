"""Summaries of the benchmark's measurements: rows, ratios, the CSV, the plot, the printed table."""

from __future__ import annotations

import csv
import math
import statistics
from pathlib import Path

# subtle: new columns go at the end, so a reader of an older results.csv finds the old ones in place.
# case: which corpus, tokenizer or cache state; peak_pss_mb: summed PSS of the process and its workers.
COLUMNS = ["section", "tool", "size_mb", "input_bytes", "runs", "median_s", "min_s", "max_s",
           "mb_per_s", "peak_rss_mb", "worker_rss_mb", "ratio", "ratio_meaning", "note",
           "case", "vocab_size", "distinct_pretokens", "peak_pss_mb"]


def summarize(section: str, tool: str, size_mb: float, input_bytes: int, results: list[dict], note: str = "",
              **extra) -> dict:
    """One row from the results of repeated runs (medians; min-max of the times); ``extra`` fills other columns."""
    row = dict.fromkeys(COLUMNS, "")
    row.update(section=section, tool=tool, size_mb=size_mb, input_bytes=input_bytes, runs=len(results), note=note)
    row.update(extra)
    if results:
        times = [r["seconds"] for r in results]
        median = statistics.median(times)
        row.update(median_s=round(median, 6), min_s=round(min(times), 6), max_s=round(max(times), 6),
                   peak_rss_mb=round(statistics.median(r["rss_mb"] for r in results), 1),
                   worker_rss_mb=round(statistics.median(r["worker_rss_mb"] for r in results), 1))
        if all("pss_mb" in r for r in results):
            row["peak_pss_mb"] = round(statistics.median(r["pss_mb"] for r in results), 1)
        if input_bytes and median > 0:
            row["mb_per_s"] = round(input_bytes / 1e6 / median, 3)
    return row


def set_ratio(row: dict, numerator: float, denominator: float, meaning: str) -> None:
    """Store ``numerator / denominator`` in the row, with what it means (skipped if either is missing)."""
    if numerator and denominator:
        row["ratio"] = round(numerator / denominator, 3)
        row["ratio_meaning"] = meaning


def loglog_slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log(time) against log(size)."""
    points = [(x, y) for x, y in points if x > 0 and y and y > 0]
    if len(points) < 2:
        return None
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def training_points(rows: list[dict], tool: str, section: str = "train", case: str | None = None,
                    vocab_size: int | None = None) -> list[tuple[float, float, float, float]]:
    """(size in MB, median, min, max) of one trainer, by size (only ``case`` and ``vocab_size`` if given)."""
    return [(r["input_bytes"] / 1e6, r["median_s"], r["min_s"], r["max_s"]) for r in rows
            if r["section"] == section and r["tool"] == tool and r["median_s"] != ""
            and case in (None, r["case"]) and vocab_size in (None, r["vocab_size"])]


def _minor_label(value: float, _position=None) -> str:
    """A log axis's minor tick labelled at 2, 3 and 5 times a power of ten, else blank."""
    if value <= 0:
        return ""
    mantissa = round(value / 10 ** math.floor(math.log10(value)), 6)
    return f"{value:g}" if mantissa in (2, 3, 5) else ""


def plot_training(rows: list[dict], path: Path, title: str, case: str | None = None):
    """Training time against corpus size (one corpus: ``case``), log-log, with fitted slopes; returns the figure."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    vocab_sizes = sorted({r["vocab_size"] for r in rows if r["section"] == "train" and case in (None, r["case"])})
    for tool, label, marker, color in (("ours", "bpe_course (fast)", "o", "C0"), ("hf", "HF tokenizers", "s", "C1"),
                                       ("hf1", "HF tokenizers, one thread", "v", "C3"),
                                       ("naive", "bpe_course (naive)", "^", "C2")):
        for vocab_size in vocab_sizes:
            points = training_points(rows, tool, case=case, vocab_size=vocab_size)
            if not points:
                continue
            xs, med, lo, hi = zip(*points)
            slope = loglog_slope(list(zip(xs, med)))
            name = f"{label}{f', vocab {vocab_size:,}' if len(vocab_sizes) > 1 else ''}"
            name += f", slope {slope:.2f}" if slope is not None else ""
            ax.errorbar(xs, med, yerr=[[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]],
                        marker=marker, capsize=3, label=name, color=color,
                        linestyle="-" if vocab_size == vocab_sizes[0] else "--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter
    for axis in (ax.xaxis, ax.yaxis):  # subtle: a range within one decade is labelled only by minor ticks
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axis.set_minor_formatter(FuncFormatter(_minor_label))
    ax.set_xlabel("corpus size (MB)")
    ax.set_ylabel("training time (s), median with min-max")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return fig


def _number(value) -> str:
    """An int with thousands separators, a float as short as it reads, anything else as it is."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def print_table(rows: list[dict]) -> None:
    head = f"{'section':<15}{'case':<21}{'tool':<13}{'size MB':>8}{'bytes':>15}{'vocab':>7}{'pre-tokens':>11}" \
           f"{'median s':>10}{'min-max s':>17}{'MB/s':>8}{'RSS MB':>8}{'worker':>8}{'PSS MB':>8}{'ratio':>8}  " \
           f"meaning / note"
    print(head)
    print("-" * len(head))
    for r in rows:
        span = f"{r['min_s']:.3f}-{r['max_s']:.3f}" if r["median_s"] != "" else ""
        median = f"{r['median_s']:.3f}" if r["median_s"] != "" else ""
        print(f"{r['section']:<15}{r['case']:<21}{r['tool']:<13}{_number(r['size_mb']):>8}"
              f"{_number(r['input_bytes']):>15}{r['vocab_size']!s:>7}{_number(r['distinct_pretokens']):>11}"
              f"{median:>10}{span:>17}{r['mb_per_s']!s:>8}{r['peak_rss_mb']!s:>8}{r['worker_rss_mb']!s:>8}{r['peak_pss_mb']!s:>8}"
              f"{r['ratio']!s:>8}  "
              f"{r['ratio_meaning']}{'; ' if r['ratio_meaning'] and r['note'] else ''}{r['note']}")
