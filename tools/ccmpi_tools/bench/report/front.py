"""The front page: each collective scenario's section of docs/results/README.md, between
the markers <!-- ccmpi-bench:SCENARIO --> and <!-- /ccmpi-bench:SCENARIO -->. A run
replaces its own section (or appends it) and leaves the rest of the page alone; only runs
whose output folder is a folder of <source>/docs/results write it."""
import os

NEW_PAGE = ("# Results\n\nMeasured figures of ccmpi against Open MPI and MPICH. Each folder holds "
            "the full data (results.csv), a README with every variant and the exact commands, "
            "and a plot.\n\n")


def markers(scenario):
    return "<!-- ccmpi-bench:%s -->" % scenario, "<!-- /ccmpi-bench:%s -->" % scenario


def section(scenario, desc, tables, method, bound_doc, facts, mpich_note, folder):
    begin, end = markers(scenario)
    return (begin + "\n## %s (`ccmpi-bench %s`)\n\n%s\n\n%s\n%s Link bound: %s\n\n"
            "Run %s on %s, %s hosts at %s, %s repetition(s), load %s. Command: `%s`. "
            "Details: [%s/README.md](%s/README.md).\n" % (
                scenario, scenario, desc, tables, method, bound_doc, facts["started"],
                facts["cpu"], facts["hosts"], facts["rate"], facts["reps"], facts["load"],
                facts["invocation"], folder, folder)
            + ("Link rate: %s.\n" % facts["rate_choice"] if facts.get("rate_choice") else "")
            + mpich_note + end)


def replace(text, scenario, new_section):
    """`text` with the scenario's section replaced by (or, if absent, followed by)
    `new_section`."""
    begin, end = markers(scenario)
    if begin in text and end in text:
        return text[:text.index(begin)] + new_section + text[text.index(end) + len(end):]
    return text.rstrip("\n") + "\n\n" + new_section + "\n"


def update(source, out, scenario, new_section):
    """Writes the section when `out` is a folder of <source>/docs/results; True if it did."""
    results_dir = os.path.realpath(os.path.join(source, "docs", "results"))
    if os.path.realpath(os.path.dirname(os.path.abspath(out))) != results_dir:
        return False
    page = os.path.join(results_dir, "README.md")
    text = NEW_PAGE
    if os.path.exists(page):
        with open(page) as f:
            text = f.read()
    with open(page, "w") as f:
        f.write(replace(text, scenario, new_section))
    return True
