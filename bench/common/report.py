"""Shared python parts of the side-by-side comparisons (bench/p2p/run.sh,
bench/osu-coll/run.sh): reading the facts file written with harness_machine_facts, the
failures table and the machine section of the README, and number formatting."""
import os


def read_facts(work):
    with open(os.path.join(work, "facts")) as f:
        return dict(l.rstrip("\n").split("=", 1) for l in f if "=" in l)


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]


def fmt(x):
    return "n/a" if x is None else ("%.2f" % x if x < 100 else "%.0f" % x)


def failures_section(fails, columns):
    """fails: rows of the failures file; columns: their headings (the last one is the
    error line, whose '|' are escaped)."""
    if not fails:
        return []
    lines = ["## Failed invocations", "", "| " + " | ".join(columns) + " |",
             "|" + " --- |" * len(columns)]
    for row in fails:
        row = row[:len(columns)] + [""] * (len(columns) - len(row))
        row[-1] = row[-1].replace("|", "\\|")
        lines.append("| " + " | ".join(row) + " |")
    return lines + [""]


def machine_section(facts):
    return ["## Machine", "",
            "- CPU: %s, %s cores, %s RAM" % (facts["cpu"], facts["cores"], facts["mem"]),
            "- Kernel: %s" % facts["kernel"],
            "- ccmpi: %s; %s; MPICH %s" % (facts["ccmpi"], facts["openmpi"], facts["mpich"]),
            "- Load average (1/5/15 min) before: %s, after: %s"
            % (facts["load_before"], facts["load_after"]),
            "- Date: %s" % facts["started"], ""]
