#!/usr/bin/env python3
"""Regenerates src/api/unsupported.cc and docs/STATUS.md.

Every function declared in include/mpi.h (the list is tools/mpi_prototypes.txt) must be
exported by libccmpi.so. This script finds which ones have a hand-written definition
(`PMPI_<Name>(...) {` in src/api/*.cc, or `MPI_<NAME>(...) {` for the predefined callbacks,
which have no PMPI twin) and writes:

  src/api/unsupported.cc  a stub for every other function: PMPI_X raises
                          MPI_ERR_UNSUPPORTED_OPERATION through the normal error path (on
                          the communicator argument's error handler if the function has
                          one), and CCMPI_MPI_ALIAS(MPI_X) exports MPI_X;
  docs/STATUS.md          what is implemented, family by family, and the full list of
                          functions that are not, grouped.

Re-run it whenever a function gets implemented (until then the link fails with a duplicate
definition of PMPI_X). The build never runs it: both files are committed.

Usage: tools/gen_unsupported.py           rewrite the files
       tools/gen_unsupported.py --check   exit 1 if a file is out of date (a CTest test)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOTYPES = ROOT / "tools" / "mpi_prototypes.txt"
API_DIR = ROOT / "src" / "api"
STUBS = API_DIR / "unsupported.cc"
STATUS = ROOT / "docs" / "STATUS.md"
WIDTH = 100

# Functions another contributor is implementing right now: never stubbed, even before their
# definition lands in src/api (blocking collectives, MPI_Reduce_local, user-defined ops).
ASSUMED_IMPLEMENTED = {
    "MPI_" + n for n in """
    Barrier Bcast Gather Gatherv Scatter Scatterv Allgather Allgatherv Alltoall Alltoallv
    Alltoallw Reduce Allreduce Reduce_scatter Reduce_scatter_block Scan Exscan Reduce_local
    Op_create Op_free Op_commutative""".split()
}

# Return value of a stub whose function does not return an error code.
NON_INT_RETURNS = {
    "double": "0.0",
    "MPI_Aint": "0",
    "MPI_Count": "0",
    "MPI_Offset": "0",
    "MPI_Fint": "0",
    "MPI_Comm": "MPI_COMM_NULL",
    "MPI_Group": "MPI_GROUP_NULL",
    "MPI_Datatype": "MPI_DATATYPE_NULL",
    "MPI_Request": "MPI_REQUEST_NULL",
    "MPI_Op": "MPI_OP_NULL",
    "MPI_Errhandler": "MPI_ERRHANDLER_NULL",
    "MPI_Info": "MPI_INFO_NULL",
    "MPI_Message": "MPI_MESSAGE_NULL",
    "MPI_Win": "MPI_WIN_NULL",
    "MPI_File": "MPI_FILE_NULL",
    "MPI_Session": "MPI_SESSION_NULL",
}

# Groups of docs/STATUS.md for the functions that are not implemented, in order:
# (title, note, predicate(section, name)).
GROUPS = [
    ("One-sided communication, RMA", "Implemented (docs/rma.md), with the MPI-4.0 `_c` forms.",
     lambda s, n: s.startswith("One-sided") or n.startswith("MPI_Win_") or n in {
         "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
         "MPI_Compare_and_swap", "MPI_Rput", "MPI_Rget", "MPI_Raccumulate",
         "MPI_Rget_accumulate"}),
    ("I/O", "Implemented, with user-defined data representations (`MPI_Register_datarep`,"
     " `MPI_Register_datarep_c`; see src/api/file_datarep.cc).",
     lambda s, n: s.startswith("I/O") or n.startswith("MPI_File_") or
     n == "MPI_Register_datarep"),
    ("Dynamic processes", "Implemented: ports, MPI_Comm_accept/MPI_Comm_connect, MPI_Comm_join, "
     "the name service, MPI_Comm_spawn and MPI_Comm_spawn_multiple (a second mpirun starts the "
     "processes; docs/dynamic.md).",
     lambda s, n: s.startswith("Process creation")),
    ("Intercommunicators", "Intercommunicators are implemented, with their blocking, nonblocking and "
     "persistent collectives.",
     lambda s, n: n.startswith("MPI_Intercomm_")),
    ("Neighbourhood collectives", "",
     lambda s, n: "eighbor_" in n),
    ("Nonblocking collectives", "",
     lambda s, n: s.startswith("Nonblocking collective")),
    ("Persistent collectives, MPI-4.0", "",
     lambda s, n: s.startswith("Persistent collective")),
    ("Sessions, MPI-4.0", "",
     lambda s, n: n.startswith("MPI_Session_")),
    ("MPI_T tool information interface", "",
     lambda s, n: n.startswith("MPI_T_")),
    ("Others", "",
     lambda s, n: True),
]


# MPI-4.0 functions (or families, by one representative) to report as missing in
# docs/STATUS.md while they are not declared or not implemented: (description, name).
MPI4_WATCH = [
    ("the datatype large-count functions (`MPI_Type_contiguous_c`, `MPI_Get_count_c`,"
     " `MPI_Pack_c`, ...)", "MPI_Type_contiguous_c"),
    ("`MPI_Comm_idup_with_info`", "MPI_Comm_idup_with_info"),
    ("the neighbourhood collectives and their `_c` forms", "MPI_Neighbor_allgather_c"),
    ("the RMA `_c` forms (`MPI_Put_c`, `MPI_Win_allocate_c`, ...)", "MPI_Put_c"),
    ("the I/O `_c` forms (`MPI_File_read_c`, ...)", "MPI_File_read_c"),
    ("the MPI_T events interface (`MPI_T_event_get_num`, ...)", "MPI_T_event_get_num"),
    ("`MPI_Comm_create_from_group`", "MPI_Comm_create_from_group"),
    ("`MPI_Intercomm_create_from_groups`", "MPI_Intercomm_create_from_groups"),
]


class Function:
    def __init__(self, section, ret, name, params, callback):
        self.section = section
        self.ret = ret
        self.name = name
        self.params = params  # list of parameter declarations as written
        self.callback = callback  # '!' line: a predefined callback without PMPI twin


def parse_prototypes():
    functions = []
    section = ""
    decl_re = re.compile(r"^(.+?)\b(MPI_\w+)\s*\((.*)\)\s*;$")
    callback_re = re.compile(r"^(\w+)\s+(MPI_\w+)\s*;$")
    for raw in PROTOTYPES.read_text().splitlines():
        line = raw.strip()
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith("!"):
            m = callback_re.match(line[1:].strip())
            if not m:
                sys.exit(f"{PROTOTYPES}: cannot parse '{raw}'")
            functions.append(Function(section, m.group(1), m.group(2), None, True))
            continue
        m = decl_re.match(line)
        if not m:
            sys.exit(f"{PROTOTYPES}: cannot parse '{raw}'")
        params = [p.strip() for p in m.group(3).split(",")]
        if params == ["void"]:
            params = []
        functions.append(Function(section, m.group(1).strip(), m.group(2), params, False))
    return functions


def strip_comments(text):
    """Blanks out comments (keeping string and character literals and line breaks)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def balanced_end(text, start, open_ch, close_ch):
    """Index just past the bracket that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def find_definitions():
    """{function name: (file name, body)} for every definition in src/api (but the stubs).

    A definition is PMPI_X or an all-capital MPI_X (a predefined callback) whose parameter
    list is followed by '{'; calls and declarations are not."""
    defs = {}
    name_re = re.compile(r"\b(PMPI_\w+|MPI_[A-Z0-9_]+)\s*\(")
    for path in sorted(API_DIR.glob("*.cc")):
        if path == STUBS:
            continue
        text = strip_comments(path.read_text())
        for m in name_re.finditer(text):
            end = balanced_end(text, m.end() - 1, "(", ")")
            rest = text[end:].lstrip()
            if not rest.startswith("{"):
                continue
            body_start = len(text) - len(rest)
            body = text[body_start:balanced_end(text, body_start, "{", "}")]
            name = m.group(1)
            name = name[1:] if name.startswith("PMPI_") else name
            defs.setdefault(name, (path.name, body))
    return defs


def split_param(param):
    """('const int*', 'name') from 'const int *name', ('int[][3]', 'r') from 'int r[][3]'."""
    if param == "...":
        return "...", None
    m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\])*)$", param)
    if not m or not m.group(1).strip():
        sys.exit(f"cannot split parameter '{param}'")
    ctype = re.sub(r"\s*\*\s*", "*", m.group(1).strip())
    ctype = re.sub(r"\*(?=\w)", "* ", ctype)  # 'char*const' stays readable
    return ctype + m.group(3), m.group(2)


def wrap_signature(head, params, tail):
    """head(p1, p2, ...)tail in WIDTH columns, as clang-format would: parameters packed,
    continuation lines aligned after the '(' (or indented by 4 after a break at the '(' when
    aligning does not fit)."""
    pieces = [p + "," for p in params[:-1]] + [params[-1] + ")" + tail] if params else []
    one = f"{head}({' '.join(pieces)}" if params else f"{head}(){tail}"
    if len(one) <= WIDTH:
        return [one]

    def pack(first, indent):
        lines, cur = [], first
        for piece in pieces:
            if cur.strip() and not cur.endswith("(") and len(cur) + 1 + len(piece) > WIDTH:
                lines.append(cur)
                cur = " " * indent
            sep = "" if cur.endswith("(") or not cur.strip() else " "
            cur += sep + piece
        return lines + [cur]

    lines = pack(head + "(", len(head) + 1)
    if all(len(line) <= WIDTH for line in lines):
        return lines
    return [head + "("] + pack(" " * 4, 4)


def stub(fn):
    params, comm = [], None
    for p in fn.params:
        ctype, name = split_param(p)
        if ctype == "MPI_Comm" and comm is None:
            comm = name
            params.append(f"MPI_Comm {name}")
        else:
            params.append(ctype)
    call = (f"ccmpi::api::unsupportedComm({comm}, \"{fn.name}\")" if comm else
            f"ccmpi::api::unsupported(\"{fn.name}\")")
    lines = wrap_signature(f'extern "C" {fn.ret} P{fn.name}', params, " {")
    if fn.ret == "int":
        lines.append(f"  return {call};")
    else:
        if fn.ret not in NON_INT_RETURNS:
            sys.exit(f"{fn.name}: no stub return value for type {fn.ret}")
        lines.append(f"  (void){call};")
        lines.append(f"  return {NON_INT_RETURNS[fn.ret]};")
    lines.append("}")
    lines.append(f"CCMPI_MPI_ALIAS({fn.name})")
    return lines


STUBS_HEAD = """\
// GENERATED by tools/gen_unsupported.py from tools/mpi_prototypes.txt -- do not edit.
// Re-run `python3 tools/gen_unsupported.py` after implementing any function listed here.
//
// The functions declared in include/mpi.h that ccmpi does not implement (docs/STATUS.md).
// Each PMPI_X raises MPI_ERR_UNSUPPORTED_OPERATION through the normal error path, with a
// message naming the function: on the error handler of its communicator argument if it
// has one, else on MPI_COMM_WORLD's (so MPI_ERRORS_ARE_FATAL aborts the job with the
// message, MPI_ERRORS_RETURN returns the code). CCMPI_MPI_ALIAS exports MPI_X as usual.
#include "api/api.h"

namespace ccmpi::api {

int unsupported(const char* func);
int unsupportedComm(MPI_Comm comm, const char* func);

int unsupported(const char* func) {
  return raisef(func, MPI_ERR_UNSUPPORTED_OPERATION,
                "%s is not implemented by ccmpi (see docs/STATUS.md)", func);
}

int unsupportedComm(MPI_Comm comm, const char* func) {
  return raiseCommf(comm, func, MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s is not implemented by ccmpi (see docs/STATUS.md)", func);
}

}  // namespace ccmpi::api
"""


def render_stubs(functions, defs):
    out = STUBS_HEAD.splitlines()
    section = None
    for fn in functions:
        if fn.callback or fn.name in defs or fn.name in ASSUMED_IMPLEMENTED:
            continue
        if fn.section != section:
            section = fn.section
            out += ["", f"// ---------- {section} ----------"]
        out.append("")
        out += stub(fn)
    return "\n".join(out) + "\n"


def group_of(fn):
    for title, _, pred in GROUPS:
        if pred(fn.section, fn.name):
            return title
    raise AssertionError


def render_status(functions, defs):
    declared = [f for f in functions if not f.callback]
    callbacks = [f for f in functions if f.callback]
    # Hand-written definitions that only ever fail with MPI_ERR_UNSUPPORTED_OPERATION.
    hand_unsupported = {f.name for f in declared
                        if f.name in defs and "MPI_ERR_UNSUPPORTED_OPERATION" in defs[f.name][1]}
    stubbed = [f for f in declared if f.name not in defs and f.name not in ASSUMED_IMPLEMENTED]
    missing_assumed = sorted(f.name for f in declared
                             if f.name in ASSUMED_IMPLEMENTED and f.name not in defs)
    not_impl = {f.name for f in stubbed} | hand_unsupported
    n_impl = len(declared) - len(not_impl)
    declared_names = {f.name for f in declared}
    missing_mpi4 = "; ".join(desc for desc, name in MPI4_WATCH
                             if name not in declared_names or name in not_impl) or "nothing"

    out = [
        "# ccmpi: what is implemented",
        "",
        "<!-- GENERATED by tools/gen_unsupported.py from tools/mpi_prototypes.txt and src/api/;"
        " do not edit. -->",
        "",
        f"include/mpi.h declares {len(declared)} MPI functions (MPI-3.1 and MPI-4.0, see"
        f" below) and {len(callbacks)} predefined callback functions. libccmpi.so"
        " exports all of them: each function as `PMPI_X` and, through a weak alias, `MPI_X`"
        " (so a profiling library can intercept `MPI_X`); the callbacks have no `PMPI_`"
        " twin.",
        "",
        f"**{n_impl} functions are implemented. {len(not_impl)} are not**: they fail with"
        " `MPI_ERR_UNSUPPORTED_OPERATION` through the normal error path. The"
        f" {len(stubbed)} generated stubs (src/api/unsupported.cc) give the message"
        " \"MPI_X is not implemented by ccmpi (see docs/STATUS.md)\". The error goes to the"
        " error handler of the function's communicator argument if it has one, otherwise to"
        " `MPI_COMM_WORLD`'s: with `MPI_ERRORS_ARE_FATAL` (the default) the job aborts with"
        " that message, with `MPI_ERRORS_RETURN` the call returns the code and"
        " `MPI_Error_string` gives the message. The generated stubs leave output arguments"
        " untouched.",
        "",
        "## MPI version",
        "",
        "include/mpi.h sets `MPI_VERSION` 4 and `MPI_SUBVERSION` 0 (`MPI_Get_version` and"
        " `MPI_Get_library_version` agree): the MPI-4.0 functions of the chapters ccmpi"
        " implements are declared and implemented: the large-count `MPI_X_c` forms of"
        " point-to-point, collective and one-sided communication and of file access"
        " (generated by tools/gen_large_count.py), `MPI_Register_datarep_c`,"
        " `MPI_Isendrecv(_replace)`, partitioned communication, persistent collectives,"
        " sessions, `MPI_Info_create_env`, `MPI_Info_get_string`, `MPI_Op_create_c`, the"
        " MPI-4.0 error classes; and some MPI-4.1 additions: buffered-send buffers of"
        " communicators and sessions, `MPI_BUFFER_AUTOMATIC`, `MPI_Buffer_flush`/`_iflush`,"
        " `MPI_Request_get_status_any/_all/_some`, `MPI_Status_set_source/_tag/_error`,"
        " `MPI_Type_get_value_index`. Test suites (MPICH's among them) compile their MPI-4"
        " parts only when `MPI_VERSION` >= 4.",
        "",
        "Still missing from MPI-4.0, besides the chapters listed under \"Not implemented\""
        " below: " + missing_mpi4 + ". Limits of what is there: a nonblocking or persistent"
        " large-count reduction (`MPI_Iallreduce_c`, `MPI_Reduce_init_c`, ...) whose count"
        " exceeds INT_MAX runs to completion inside the call (or inside `MPI_Start`); a"
        " session's buffered-send buffer serves every communicator without one of its own"
        " while the process has none (a communicator does not record its session).",
        "",
        "## Implemented, by family",
        "",
        "| Family (chapter of the standard) | implemented | not implemented |",
        "|---|---:|---:|",
    ]
    sections = []
    for f in declared:
        if f.section not in sections:
            sections.append(f.section)
    for s in sections:
        fs = [f for f in declared if f.section == s]
        bad = sum(1 for f in fs if f.name in not_impl)
        out.append(f"| {s} | {len(fs) - bad} | {bad} |")
    out.append(f"| **Total** | **{n_impl}** | **{len(not_impl)}** |")
    out += ["", "Predefined callbacks, all defined: " +
            ", ".join(f"`{f.name}`" for f in callbacks) + "."]
    if missing_assumed:
        out += ["", "Counted as implemented although their definitions have not landed in"
                " src/api yet (another contributor is writing them; the generator never stubs"
                " them): " + ", ".join(f"`{n}`" for n in missing_assumed) + "."]

    out += ["", "## Not implemented", ""]
    for title, note, _ in GROUPS:
        names = [f for f in declared if f.name in not_impl and group_of(f) == title]
        out.append(f"### {title} ({len(names)})")
        out.append("")
        if note:
            out += [note, ""]
        if not names:
            out += ["None declared in include/mpi.h." if title.startswith(("Sessions", "MPI_T"))
                    else "None.", ""]
            continue
        for f in names:
            where = (f" (hand-written in src/api/{defs[f.name][0]}: fails with"
                     " `MPI_ERR_UNSUPPORTED_OPERATION`)"
                     if f.name in hand_unsupported else "")
            out.append(f"- `{f.name}`{where}")
        out.append("")

    out += [
        "## Keeping this file up to date",
        "",
        "This file and src/api/unsupported.cc are generated by tools/gen_unsupported.py from"
        " tools/mpi_prototypes.txt and the definitions (`PMPI_X(...) {`) found in"
        " src/api/*.cc. Whenever a function gets implemented, define `PMPI_X` with"
        " `CCMPI_MPI_ALIAS(MPI_X)` in the right src/api file and re-run",
        "",
        "    python3 tools/gen_unsupported.py",
        "",
        "which drops its stub and rewrites this file (until then the link fails with a"
        " duplicate definition of `PMPI_X`). The build does not need Python: the generated"
        " files are committed. The CTest test `stubs_generated_up_to_date`"
        " (`tools/gen_unsupported.py --check`) fails when they are stale, and"
        " `exports_complete` checks that libccmpi.so exports every declared name.",
    ]
    return "\n".join(out) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    functions = parse_prototypes()
    defs = find_definitions()
    status = 0
    undefined_callbacks = [f.name for f in functions if f.callback and f.name not in defs]
    if undefined_callbacks:
        print("error: predefined callbacks without a definition in src/api: " +
              ", ".join(undefined_callbacks), file=sys.stderr)
        status = 1
    for path, text in ((STUBS, render_stubs(functions, defs)),
                       (STATUS, render_status(functions, defs))):
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        if check:
            print(f"{path.relative_to(ROOT)} is out of date: run tools/gen_unsupported.py",
                  file=sys.stderr)
            status = 1
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    return status


if __name__ == "__main__":
    sys.exit(main())
