#!/usr/bin/env python3
"""Regenerates the generated blocks of include/mpi.h and docs/dev/mpi_functions.txt.

include/mpi.h is committed and is the source of truth for the build (which never runs
this script). Two blocks inside it are produced here, between marker comments:

  handles     the predefined handle constants, (kind << 26) | index, from the tables
              below, plus the CCMPI_HANDLE_KIND_* numbers;
  prototypes  every function from tools/mpi_prototypes.txt, each MPI_X followed by its
              PMPI_X twin (lines marked '!' there get no twin).

docs/dev/mpi_functions.txt lists every function name declared (no PMPI_ names), sorted.

Usage: tools/gen_mpi_h.py           rewrite the files
       tools/gen_mpi_h.py --check   exit 1 if a file is out of date (used by a CTest test)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "mpi.h"
PROTOTYPES = ROOT / "tools" / "mpi_prototypes.txt"
FUNCTION_LIST = ROOT / "docs" / "dev" / "mpi_functions.txt"

KIND_SHIFT = 26
WIDTH = 100

# (kind number, CCMPI name, C type, [(index, name)] of predefined handles)
KINDS = [
    (1, "COMM", "MPI_Comm", [(0, "MPI_COMM_NULL"), (1, "MPI_COMM_WORLD"), (2, "MPI_COMM_SELF")]),
    (2, "GROUP", "MPI_Group", [(0, "MPI_GROUP_NULL"), (1, "MPI_GROUP_EMPTY")]),
    (3, "DATATYPE", "MPI_Datatype", [(0, "MPI_DATATYPE_NULL")] + [
        (i + 1, n) for i, n in enumerate("""
        MPI_CHAR MPI_SIGNED_CHAR MPI_UNSIGNED_CHAR MPI_BYTE MPI_WCHAR
        MPI_SHORT MPI_UNSIGNED_SHORT MPI_INT MPI_UNSIGNED MPI_LONG MPI_UNSIGNED_LONG
        MPI_LONG_LONG_INT MPI_UNSIGNED_LONG_LONG MPI_FLOAT MPI_DOUBLE MPI_LONG_DOUBLE
        MPI_C_BOOL MPI_INT8_T MPI_INT16_T MPI_INT32_T MPI_INT64_T
        MPI_UINT8_T MPI_UINT16_T MPI_UINT32_T MPI_UINT64_T
        MPI_AINT MPI_OFFSET MPI_COUNT
        MPI_C_FLOAT_COMPLEX MPI_C_DOUBLE_COMPLEX MPI_C_LONG_DOUBLE_COMPLEX MPI_PACKED
        MPI_FLOAT_INT MPI_DOUBLE_INT MPI_LONG_INT MPI_2INT MPI_SHORT_INT MPI_LONG_DOUBLE_INT
        MPI_CHARACTER MPI_LOGICAL MPI_INTEGER MPI_REAL MPI_DOUBLE_PRECISION MPI_COMPLEX
        MPI_DOUBLE_COMPLEX MPI_2REAL MPI_2DOUBLE_PRECISION MPI_2INTEGER
        MPI_INTEGER1 MPI_INTEGER2 MPI_INTEGER4 MPI_INTEGER8 MPI_REAL4 MPI_REAL8 MPI_REAL16
        MPI_COMPLEX8 MPI_COMPLEX16 MPI_CXX_BOOL MPI_CXX_FLOAT_COMPLEX MPI_CXX_DOUBLE_COMPLEX
        MPI_CXX_LONG_DOUBLE_COMPLEX MPI_LB MPI_UB MPI_COMPLEX32
        """.split())]),
    (4, "REQUEST", "MPI_Request", [(0, "MPI_REQUEST_NULL")]),
    (5, "OP", "MPI_Op", [(0, "MPI_OP_NULL")] + [
        (i + 1, n) for i, n in enumerate("""
        MPI_MAX MPI_MIN MPI_SUM MPI_PROD MPI_LAND MPI_BAND MPI_LOR MPI_BOR MPI_LXOR MPI_BXOR
        MPI_MINLOC MPI_MAXLOC MPI_REPLACE MPI_NO_OP""".split())]),
    (6, "ERRHANDLER", "MPI_Errhandler", [(0, "MPI_ERRHANDLER_NULL"), (1, "MPI_ERRORS_ARE_FATAL"),
                                         (2, "MPI_ERRORS_RETURN"), (3, "MPI_ERRORS_ABORT")]),
    (7, "INFO", "MPI_Info", [(0, "MPI_INFO_NULL"), (1, "MPI_INFO_ENV")]),
    (8, "MESSAGE", "MPI_Message", [(0, "MPI_MESSAGE_NULL"), (1, "MPI_MESSAGE_NO_PROC")]),
    (9, "WIN", "MPI_Win", [(0, "MPI_WIN_NULL")]),
    (10, "FILE", "MPI_File", [(0, "MPI_FILE_NULL")]),
    (11, "SESSION", "MPI_Session", [(0, "MPI_SESSION_NULL")]),
]

# Second names for the same predefined handle.
ALIASES = [("MPI_LONG_LONG", "MPI_LONG_LONG_INT"), ("MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX")]


def handles_block():
    out = [f"#define CCMPI_HANDLE_KIND_SHIFT {KIND_SHIFT}"]
    for kind, cname, _, _ in KINDS:
        out.append(f"#define CCMPI_HANDLE_KIND_{cname} {kind}")
    for kind, cname, ctype, handles in KINDS:
        out.append("")
        out.append(f"/* {ctype} (kind {kind}) */")
        for index, name in handles:
            value = (kind << KIND_SHIFT) | index
            out.append(f"#define {name:<28} (({ctype})0x{value:08x})")
        if cname == "DATATYPE":
            out.append(f"#define CCMPI_DATATYPE_PREDEFINED_MAX {max(i for i, _ in handles)}")
        if cname == "OP":
            out.append(f"#define CCMPI_OP_PREDEFINED_MAX {max(i for i, _ in handles)}")
    out.append("")
    for alias, name in ALIASES:
        out.append(f"#define {alias:<28} {name}")
    return out


def parse_prototypes():
    """Returns [(kind, payload)] with kind 'section', 'comment', 'decl' or 'decl-nopmpi'."""
    items = []
    for lineno, raw in enumerate(PROTOTYPES.read_text().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("##"):
            items.append(("section", line[2:].strip()))
        elif line.startswith("#"):
            if items:  # comments before the first section describe the file itself
                items.append(("comment", line[1:].strip()))
        elif line.startswith("!"):
            items.append(("decl-nopmpi", line[1:].strip()))
        else:
            items.append(("decl", line))
        if items and items[-1][0].startswith("decl") and not items[-1][1].endswith(";"):
            sys.exit(f"{PROTOTYPES}:{lineno}: declaration does not end in ';'")
    return items


def function_name(decl, nopmpi):
    if nopmpi:
        m = re.search(r"(\w+)\s*;$", decl)
    else:
        m = re.search(r"\b(MPI_\w+)\s*\(", decl)
    if not m:
        sys.exit(f"cannot find the function name in: {decl}")
    return m.group(1)


def wrap(decl):
    """Breaks a declaration after commas so no line exceeds WIDTH columns."""
    if len(decl) <= WIDTH:
        return [decl]
    open_paren = decl.index("(")
    head = decl[: open_paren + 1]
    indent = " " * len(head) if len(head) <= 40 else "    "
    params = [p.strip() for p in decl[open_paren + 1:].split(",")]
    lines, cur = [], head
    for i, piece in enumerate(params):
        if i < len(params) - 1:
            piece += ","
        candidate = cur + piece if cur == head else cur + " " + piece
        if cur == head or len(candidate) <= WIDTH:
            cur = candidate
        else:
            lines.append(cur)
            cur = indent + piece
    lines.append(cur)
    return lines


def prototypes_block(items):
    out, names = [], []
    for kind, payload in items:
        if kind == "section":
            if out:
                out.append("")
            out.append(f"/* {payload} */")
        elif kind == "comment":
            out.append(f"/* {payload} */")
        else:
            nopmpi = kind == "decl-nopmpi"
            name = function_name(payload, nopmpi)
            names.append(name)
            out.extend(wrap(payload))
            if not nopmpi:
                pdecl = re.sub(r"\b" + name + r"\s*\(", "P" + name + "(", payload, count=1)
                out.extend(wrap(pdecl))
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        sys.exit(f"declared twice: {sorted(dups)}")
    return out, names


def replace_block(text, tag, lines):
    begin = f"/* BEGIN GENERATED {tag} (tools/gen_mpi_h.py) */"
    end = f"/* END GENERATED {tag} */"
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        sys.exit(f"{HEADER}: markers for the {tag} block not found")
    body = begin + "\n" + "\n".join(lines) + "\n" + end
    return pattern.sub(lambda _: body, text, count=1)


def main():
    check = "--check" in sys.argv[1:]
    items = parse_prototypes()
    proto_lines, names = prototypes_block(items)
    header = HEADER.read_text()
    new_header = replace_block(header, "HANDLES", handles_block())
    new_header = replace_block(new_header, "PROTOTYPES", proto_lines)
    new_list = "\n".join(sorted(names)) + "\n"
    old_list = FUNCTION_LIST.read_text() if FUNCTION_LIST.exists() else ""
    outputs = [(HEADER, header, new_header), (FUNCTION_LIST, old_list, new_list)]
    stale = [path for path, old, new in outputs if old != new]
    if check:
        for p in stale:
            print(f"{p} is out of date: run tools/gen_mpi_h.py", file=sys.stderr)
        return 1 if stale else 0
    HEADER.write_text(new_header)
    FUNCTION_LIST.write_text(new_list)
    print(f"{len(names)} functions; wrote {HEADER} and {FUNCTION_LIST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
