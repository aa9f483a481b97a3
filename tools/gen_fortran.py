#!/usr/bin/env python3
"""Generates ccmpi's Fortran bindings from the C API description.

Sources (the single description of the API):
  tools/mpi_prototypes.txt   every C function (also the source of include/mpi.h's prototypes)
  include/mpi.h              the integer constants and predefined handles (#define lines)

Outputs (committed; a CTest test runs this script with --check):
  include/mpif.h             constants, sentinels (COMMON blocks) and function types for
                             `include 'mpif.h'` and `use mpi`; fixed- and free-form source
  src/fortran/fortran_glue.cc  C glue: one `mpi_x_` and `pmpi_x_` symbol per function (gfortran's
                             names for MPI_X called without an interface), arguments by reference
                             and converted: handles and integers dereferenced, statuses copied
                             between Fortran INTEGER(MPI_STATUS_SIZE) and MPI_Status, strings
                             trimmed (input) or blank padded (output) with the hidden lengths,
                             MPI_BOTTOM/MPI_IN_PLACE/MPI_STATUS(ES)_IGNORE/... recognised by the
                             addresses of their COMMON blocks, LOGICAL results made 0 or 1
  src/fortran/mpi_f08.f90    module mpi_f08: TYPE(MPI_Comm) ... TYPE(MPI_Status), the constants,
                             and one module procedure per function with an optional ierror,
                             calling the same glue through explicit interfaces; subroutines
                             are generics over MPI_X_f08 and the large-count MPI_X_f08c

Functions whose Fortran form differs from the C one (MPI_Init, attribute caching, keyvals with
Fortran callbacks, MPI_Pcontrol) are written by hand in src/fortran/fortran_special.cc (C glue)
and described by special_f08() below (their mpi_f08 procedures). Functions in SKIP have no Fortran
binding (C-only conversions, large-count forms other than mpi_f08's overloads, callbacks with
C-only signatures).

Usage: tools/gen_fortran.py [--check]
"""
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOTYPES = ROOT / "tools" / "mpi_prototypes.txt"
HEADER = ROOT / "include" / "mpi.h"
MPIF_H = ROOT / "include" / "mpif.h"
GLUE = ROOT / "src" / "fortran" / "fortran_glue.cc"
F08 = ROOT / "src" / "fortran" / "mpi_f08.f90"

HANDLES = ["MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Request", "MPI_Op", "MPI_Errhandler",
           "MPI_Info", "MPI_Message", "MPI_Win", "MPI_File", "MPI_Session"]
WIDE = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND",
        "MPI_Count": "MPI_COUNT_KIND"}
# Integer arguments that are LOGICAL in Fortran.
LOGICALS = {"flag", "commute", "reorder", "periods", "remain_dims", "weighted"}
# Integer arrays with sentinel values (address of a COMMON block -> C constant).
SENTINEL_ARRAYS = {"sourceweights": "weightArray", "destweights": "weightArray",
                   "weights": "weightArray", "array_of_errcodes": "errcodeArray"}
# void * arguments that receive an address (TYPE(C_PTR) in mpi_f08).
ADDRESS_OUT = {"baseptr", "buffer_addr"}

# Written by hand (src/fortran/fortran_special.cc).
SPECIAL = {
    "MPI_Init", "MPI_Init_thread", "MPI_Pcontrol",
    "MPI_Comm_create_keyval", "MPI_Type_create_keyval", "MPI_Win_create_keyval",
    "MPI_Keyval_create",
    "MPI_Comm_set_attr", "MPI_Comm_get_attr", "MPI_Type_set_attr", "MPI_Type_get_attr",
    "MPI_Win_set_attr", "MPI_Win_get_attr", "MPI_Attr_put", "MPI_Attr_get",
    "MPI_Info_get_string", "MPI_Info_create_env", "MPI_Grequest_start",
    "MPI_Status_f082f", "MPI_Status_f2f08",
}
# No Fortran binding.
SKIP = {
    "MPI_Comm_spawn", "MPI_Comm_spawn_multiple", "MPI_Register_datarep", "MPI_Status_c2f", "MPI_Status_f2c", "MPI_Status_c2f08",
    "MPI_Status_f082c",
}


def skipped(name):
    return (name in SKIP or name.endswith("_c") or name.endswith("_c2f") or
            name.endswith("_f2c"))


def large_count_twins(funcs):
    """{MPI_X_c: MPI_X} for the large-count functions mpi_f08 overloads MPI_X with: same
    arguments except some INTEGER ones that are INTEGER(KIND=MPI_COUNT_KIND) or
    INTEGER(KIND=MPI_ADDRESS_KIND) (so a generic can tell them apart)."""
    by_name = {f.name: f for f in funcs}
    twins = {}
    for f in funcs:
        base = by_name.get(f.name[:-2]) if f.name.endswith("_c") else None
        if not base or skipped(base.name) or base.name in SPECIAL:
            continue
        if len(base.params) != len(f.params):
            continue
        differs = False
        for a, b in zip(base.params, f.params):
            if a.base == "int" and b.base in ("MPI_Count", "MPI_Aint") and a.array == b.array:
                differs = True
            elif (a.base, a.ptr, a.array) != (b.base, b.ptr, b.array):
                differs = None
                break
        if differs:
            twins[f.name] = base.name
    return twins


class Param:
    def __init__(self, text):
        m = re.match(r"^(.*?)(\w+)\s*((?:\[\d*\])*)$", text.strip())
        if not m:
            sys.exit(f"cannot parse parameter: {text}")
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        self.dims = m.group(3)
        self.const = self.ctype.startswith("const ")
        base = self.ctype.replace("const ", "").strip()
        self.ptr = base.count("*") + (1 if self.dims else 0)
        self.base = base.replace("*", "").strip()
        self.array = bool(self.dims)


class Func:
    def __init__(self, decl):
        m = re.match(r"^(.+?)\b(MPI_\w+)\((.*)\);$", decl)
        self.ret = m.group(1).strip()
        self.name = m.group(2)
        args = m.group(3).strip()
        self.params = [] if args == "void" else [Param(a) for a in args.split(",")
                                                 if a.strip() != "..."]

    def param(self, name):
        for p in self.params:
            if p.name == name:
                return p
        return None


def parse_functions():
    funcs = []
    for raw in PROTOTYPES.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("!"):
            continue
        funcs.append(Func(line))
    return funcs


def parse_constants():
    """[(name, value, handle type or None)] of the integer #defines of mpi.h."""
    text = HEADER.read_text()
    out, seen = [], {}
    for m in re.finditer(r"^#define (MPI_\w+)\s+(.+?)\s*$", text, re.M):
        name, value = m.group(1), m.group(2)
        if name.startswith("MPI_F_") or name.startswith("MPI_F08"):
            continue
        h = re.fullmatch(r"\(\((MPI_\w+)\)0x([0-9a-f]+)\)", value)
        if h:
            entry = (name, int(h.group(2), 16), h.group(1))
        elif re.fullmatch(r"\(?-?\d+\)?", value):
            entry = (name, int(value.strip("()")), None)
        elif value in seen:
            entry = (name, seen[value][1], seen[value][2])
        else:
            continue
        seen[name] = entry
        out.append(entry)
    return out


FIXED_CONSTANTS = [
    ("MPI_STATUS_SIZE", 6), ("MPI_SOURCE", 1), ("MPI_TAG", 2), ("MPI_ERROR", 3),
    ("MPI_ADDRESS_KIND", 8), ("MPI_OFFSET_KIND", 8), ("MPI_COUNT_KIND", 8),
    ("MPI_INTEGER_KIND", 4),
]
# (Fortran name, COMMON block, declaration suffix)
SENTINELS = [
    ("MPI_BOTTOM", "", ""), ("MPI_IN_PLACE", "", ""),
    ("MPI_STATUS_IGNORE", "status_ignore", "(MPI_STATUS_SIZE)"),
    ("MPI_STATUSES_IGNORE", "statuses_ignore", "(MPI_STATUS_SIZE,1)"),
    ("MPI_ERRCODES_IGNORE", "", "(1)"), ("MPI_UNWEIGHTED", "", "(1)"),
    ("MPI_WEIGHTS_EMPTY", "", "(1)"),
]
CALLBACKS = ["MPI_COMM_NULL_COPY_FN", "MPI_COMM_NULL_DELETE_FN", "MPI_COMM_DUP_FN",
             "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_NULL_DELETE_FN", "MPI_TYPE_DUP_FN",
             "MPI_WIN_NULL_COPY_FN", "MPI_WIN_NULL_DELETE_FN", "MPI_WIN_DUP_FN",
             "MPI_NULL_COPY_FN", "MPI_NULL_DELETE_FN", "MPI_DUP_FN"]


def common_name(fname):
    return "mpi_fortran_" + fname[4:].lower()


# ---------------------------------------------------------------------------------------------
# mpif.h
# ---------------------------------------------------------------------------------------------
def gen_mpif_h(funcs, constants):
    out = ["! mpif.h: the Fortran interface of ccmpi (include 'mpif.h';",
           "! module mpi includes it too). Generated by tools/gen_fortran.py",
           "! from include/mpi.h; do not edit.",
           "! Valid as fixed-form and as free-form source: no continuation lines,",
           "! statements in columns 7-72, comments start with '!' in column 1."]

    def decl(name, value, ftype="INTEGER"):
        out.append(f"      {ftype} {name}")
        out.append(f"      PARAMETER ({name}={value})")

    for name, value in FIXED_CONSTANTS:
        decl(name, value)
    out.append("      LOGICAL MPI_SUBARRAYS_SUPPORTED")
    out.append("      PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)")
    out.append("      LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING")
    out.append("      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)")
    for name, value, _ in constants:
        decl(name, value)
    out.append("! Sentinels: the C glue recognises the addresses of these COMMON blocks.")
    for name, _, dims in SENTINELS:
        out.append(f"      INTEGER {name}{dims}")
        out.append(f"      COMMON /{common_name(name).upper()}/ {name}")
    out.append("! Functions (everything else is a subroutine).")
    for f in funcs:
        if f.ret != "int" and not skipped(f.name) and f.name not in SPECIAL:
            ftype = "DOUBLE PRECISION" if f.ret == "double" else \
                f"INTEGER(KIND={WIDE[f.ret]})"
            out.append(f"      {ftype} {f.name.upper()}")
            out.append(f"      EXTERNAL {f.name.upper()}")
            out.append(f"      {ftype} P{f.name.upper()}")
            out.append(f"      EXTERNAL P{f.name.upper()}")
    out.append("! Predefined attribute callbacks.")
    for cb in CALLBACKS:
        out.append(f"      EXTERNAL {cb}")
    for line in out:
        if len(line) > 72:
            sys.exit(f"mpif.h line longer than 72 columns: {line}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# C glue
# ---------------------------------------------------------------------------------------------
def glue_param(f, p):
    """Returns (glue parameter, call argument, pre lines, post lines, hidden length or None)."""
    n, b = p.name, p.base
    if b == "char" and p.ptr == 1:
        if p.const:
            # Info keys and values lose leading blanks too (MPI-3.1 section 9).
            conv = "fromFortranInfo" if f.name.startswith("MPI_Info_") else "fromFortran"
            return (f"const char *{n}", f"{n}_s.c_str()",
                    [f"std::string {n}_s = {conv}({n}, {n}_len);"], [], f"{n}_len")
        guard = "*ierr == MPI_SUCCESS" + (" && *flag" if f.param("flag") else "")
        return (f"char *{n}", f"{n}_b.data()",
                [f"std::vector<char> {n}_b(outLength({n}_len), '\\0');"],
                [f"if ({guard}) toFortran({n}_b.data(), {n}, {n}_len);"], f"{n}_len")
    if b in ("MPI_Status",):
        count = None
        if n == "array_of_statuses":
            count = "*incount" if f.param("incount") else "*count"
        cls = "StatusArray" if count else "Status"
        mode = "kIn" if p.const else ("kInOut" if f.name.startswith("MPI_Status_set") else "kOut")
        cnt = f", {count}" if count else ""
        return (f"MPI_Fint *{n}", f"{n}_c.get()",
                [f"{cls} {n}_c({n}, Dir::{mode}{cnt});"], [f"{n}_c.store(*ierr);"], None)
    if b == "void" and p.ptr == 1:
        c = "const " if p.const else ""
        return (f"{c}void *{n}", f"choiceBuffer({n})", [], [], None)
    if p.ptr == 0 and (b == "int" or b in HANDLES):
        return (f"const MPI_Fint *{n}", f"*{n}", [], [], None)
    if p.ptr == 0 and b in WIDE:
        return (f"const {b} *{n}", f"*{n}", [], [], None)
    if b == "int" or b in HANDLES or b in WIDE:
        ctype = "MPI_Fint" if b == "int" or b in HANDLES else b
        c = "const " if p.const else ""
        if p.dims.endswith("[3]"):
            return (f"{c}{ctype} (*{n})[3]", n, [], [], None)
        pre, post = [], []
        if n == "index" and not p.const and not p.array:
            # Fortran indices count from 1 (MPI_WAITANY and friends).
            pre = [f"*{n} = MPI_UNDEFINED;"]
            post = [f"if (*{n} >= 0) ++*{n};"]
        if n == "array_of_indices":
            pre = ["*outcount = MPI_UNDEFINED;"]
            post = [f"for (MPI_Fint i = 0; i < *outcount; ++i) ++{n}[i];"]
        if n in LOGICALS and not p.const and not p.array:
            post = [f"if (*ierr == MPI_SUCCESS) *{n} = *{n} != 0;"]
        if n == "periods" and not p.const:
            post = [f"if (*ierr == MPI_SUCCESS) normalizeLogicals({n}, *maxdims);"]
        arg = n
        if n in SENTINEL_ARRAYS:
            arg = f"{SENTINEL_ARRAYS[n]}({n})"
        return (f"{c}{ctype} *{n}", arg, pre, post, None)
    if b.endswith("_function") and b in ("MPI_User_function", "MPI_Comm_errhandler_function",
                                         "MPI_Win_errhandler_function",
                                         "MPI_File_errhandler_function",
                                         "MPI_Session_errhandler_function"):
        # Fortran passes the procedure's address; its arguments are all by reference, as in C.
        return (f"{b} *{n}", n, [], [], None)
    return None


def glue_function(f):
    params, args, pre, post, hidden = [], [], [], [], []
    for p in f.params:
        r = glue_param(f, p)
        if r is None:
            sys.exit(f"{f.name}: no Fortran mapping for parameter '{p.ctype} {p.name}{p.dims}'")
        params.append(r[0])
        args.append(r[1])
        pre += r[2]
        post += r[3]
        if r[4]:
            hidden.append(f"size_t {r[4]}")
    lower = f.name.lower()
    lines = []
    for prefix in ("", "P"):
        cname = prefix + f.name
        fname = prefix.lower() + lower + "_"
        if f.ret == "int":
            sig = ", ".join(params + ["MPI_Fint *ierr"] + hidden)
            lines.append(f"void {fname}({sig}) {{")
            lines += ["  " + x for x in pre]
            lines.append(f"  *ierr = {cname}({', '.join(args)});")
            lines += ["  " + x for x in post]
        else:
            sig = ", ".join(params + hidden) or "void"
            lines.append(f"{f.ret} {fname}({sig}) {{")
            lines.append(f"  return {cname}({', '.join(args)});")
        lines.append("}")
    return lines


def gen_glue(funcs):
    out = ["// Generated by tools/gen_fortran.py from tools/mpi_prototypes.txt; do not edit.",
           "//",
           "// The C side of the Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`): for each",
           "// function MPI_X the symbols mpi_x_ and pmpi_x_ that gfortran calls, with every",
           "// argument by reference and the hidden lengths of CHARACTER arguments last.",
           "// The helpers (choiceBuffer, Status, fromFortran, ...) are in fortran_glue.h.",
           "#include <string>",
           "#include <vector>",
           "",
           "#include \"fortran/fortran_glue.h\"",
           "",
           "using namespace ccmpi::fortran;  // NOLINT: generated code",
           "",
           "extern \"C\" {"]
    count = 0
    twins = large_count_twins(funcs)
    for f in funcs:
        if (skipped(f.name) or f.name in SPECIAL) and f.name not in twins:
            continue
        out += glue_function(f)
        count += 1
    out.append("}  // extern \"C\"")
    return clang_format("\n".join(out) + "\n"), count


def clang_format(text):
    """The glue is C++ of this project, so it follows .clang-format (tests/format_check.sh)."""
    cf = shutil.which("clang-format") or shutil.which("clang-format-14")
    if not cf:
        sys.exit("clang-format not found (scripts/deps.sh installs it)")
    return subprocess.run([cf, f"--assume-filename={GLUE}"], input=text, text=True,
                          check=True, capture_output=True, cwd=ROOT).stdout


# ---------------------------------------------------------------------------------------------
# mpi_f08
# ---------------------------------------------------------------------------------------------
def f08_type(f, p):
    """Fortran declaration (without the name) of a parameter, plus attributes lines."""
    n, b = p.name, p.base
    if b == "char":
        return "character(len=*)"
    if b == "MPI_Status":
        return "type(MPI_Status)" + ("" if n != "array_of_statuses" else ", dimension(*)")
    if b == "void" and p.ptr == 1:
        if n in ADDRESS_OUT:
            return "type(c_ptr)"
        return "type(*), dimension(*)"
    if p.dims.endswith("[3]"):
        return "integer, dimension(3,*)"
    if b == "int":
        t = "logical" if n in LOGICALS else "integer"
    elif b in HANDLES:
        t = f"type({b})"
    elif b in WIDE:
        t = f"integer(kind={WIDE[b]})"
    elif b.endswith("_function"):
        return "external"
    else:
        sys.exit(f"{f.name}: no mpi_f08 mapping for {p.ctype} {p.name}")
    if p.array:
        return t + ", dimension(*)"
    if p.ptr == 0 or p.const:
        return t + ", intent(in)"
    return t


def f08_decls(f, p):
    t = f08_type(f, p)
    lines = [f"{t} :: {p.name}"] if t != "external" else [f"external :: {p.name}"]
    if t == "type(*), dimension(*)":
        lines.append(f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {p.name}")
    return lines


def wrap_f(line, indent):
    """Free-form continuation for long lines."""
    limit = 100
    if len(line) <= limit:
        return [line]
    out, cur = [], line
    while len(cur) > limit:
        cut = cur.rfind(", ", 0, limit - 2)
        out.append(cur[:cut + 1] + " &")
        cur = " " * (indent + 4) + cur[cut + 2:]
    out.append(cur)
    return out


def f08_signature(f):
    """(name, [(parameter, declaration lines)], C return type) of a generated function."""
    return f.name, [(p.name, f08_decls(f, p)) for p in f.params], f.ret


def specific_name(name, twins):
    """The name of the module procedure behind the generic name (MPI-3.1 17.1.5: MPI_Send_f08,
    and MPI_Send_f08c for the large-count form); functions keep their own name."""
    if name in twins:
        return twins[name] + "_f08c"
    return name + "_f08"


def f08_header(name, names, ret, indent):
    if ret in ("int", "void"):
        args = names + (["ierror"] if ret == "int" else [])
        return wrap_f(f"subroutine {name}({', '.join(args)})", indent)
    rt = "double precision" if ret == "double" else f"integer(kind={WIDE[ret]})"
    return wrap_f(f"{rt} function {name}({', '.join(names)})", indent)


def f08_end(ret):
    return "end subroutine" if ret in ("int", "void") else "end function"


def f08_glue_interface(sig):
    name, params, ret = sig
    lines = f08_header(name, [n for n, _ in params], ret, 4)
    body = ["import"]
    for _, decls in params:
        body += decls
    if ret == "int":
        body.append("integer :: ierror")
    lines += ["  " + x for x in body]
    lines.append(f08_end(ret))
    return ["    " + x for x in lines]


def f08_procedure(sig, pname=None):
    name, params, ret = sig
    pname = pname or name
    names = [n for n, _ in params]
    lines = f08_header(pname, names, ret, 2)
    body = [f"use ccmpi_f08_glue, only: glue => {name}"]
    for _, decls in params:
        body += decls
    if ret == "int":
        body.append("integer, optional, intent(out) :: ierror")
        body.append("integer :: ierror_")
        body += wrap_f(f"call glue({', '.join(names + ['ierror_'])})", 2)
        body.append("if (present(ierror)) ierror = ierror_")
    elif ret == "void":
        body += wrap_f(f"call glue({', '.join(names)})", 2)
    else:
        body += wrap_f(f"{pname} = glue({', '.join(names)})", 2)
    lines += ["  " + x for x in body]
    lines.append(f08_end(ret))
    return ["  " + x for x in lines]


def special_f08():
    """Signatures of the hand-written glue functions (fortran_special.cc) in mpi_f08."""
    sigs = [("MPI_Init", [], "int"),
            ("MPI_Init_thread", [("required", ["integer, intent(in) :: required"]),
                                 ("provided", ["integer, intent(out) :: provided"])], "int"),
            ("MPI_Pcontrol", [("level", ["integer, intent(in) :: level"])], "void"),
            ("MPI_F_sync_reg", [("buf", ["type(*), dimension(*) :: buf",
                                         "!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf"])], "void"),
            ("MPI_Info_create_env", [("info", ["type(MPI_Info), intent(out) :: info"])], "int"),
            ("MPI_Info_get_string", [
                ("info", ["type(MPI_Info), intent(in) :: info"]),
                ("key", ["character(len=*), intent(in) :: key"]),
                ("buflen", ["integer, intent(inout) :: buflen"]),
                ("value", ["character(len=*), intent(out) :: value"]),
                ("flag", ["logical, intent(out) :: flag"])], "int"),
            ("MPI_Grequest_start", [
                ("query_fn", ["external :: query_fn"]), ("free_fn", ["external :: free_fn"]),
                ("cancel_fn", ["external :: cancel_fn"]),
                ("extra_state", ["integer(kind=MPI_ADDRESS_KIND) :: extra_state"]),
                ("request", ["type(MPI_Request), intent(out) :: request"])], "int"),
            ("MPI_Status_f082f", [
                ("f08_status", ["type(MPI_Status), intent(in) :: f08_status"]),
                ("f_status", ["integer, intent(out) :: f_status(MPI_STATUS_SIZE)"])], "int"),
            ("MPI_Status_f2f08", [
                ("f_status", ["integer, intent(in) :: f_status(MPI_STATUS_SIZE)"]),
                ("f08_status", ["type(MPI_Status), intent(out) :: f08_status"])], "int")]
    for obj, htype in (("Comm", "MPI_Comm"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win")):
        o = ("obj", [f"type({htype}), intent(in) :: obj"])
        k = ("keyval", ["integer, intent(in) :: keyval"])
        sigs.append((f"MPI_{obj}_set_attr", [o, k, (
            "attribute_val", ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val"])],
            "int"))
        sigs.append((f"MPI_{obj}_get_attr", [o, k, (
            "attribute_val", ["integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val"]),
            ("flag", ["logical, intent(out) :: flag"])], "int"))
        sigs.append((f"MPI_{obj}_create_keyval", [
            ("copy_fn", ["external :: copy_fn"]), ("delete_fn", ["external :: delete_fn"]),
            ("keyval", ["integer, intent(out) :: keyval"]),
            ("extra_state", ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state"])],
            "int"))
    return sigs


def gen_f08(funcs, constants):
    handle_values = {}
    out = ["! mpi_f08: the Fortran 2008 interface of ccmpi (`use mpi_f08`).",
           "! Generated by tools/gen_fortran.py from tools/mpi_prototypes.txt and include/mpi.h;",
           "! do not edit. The procedures call the C glue (mpi_x_ symbols, fortran_glue.cc)",
           "! through the explicit interfaces of module ccmpi_f08_glue; handles are BIND(C)",
           "! types holding the C integer handle, so they are passed to the glue unchanged.",
           "module ccmpi_f08_types",
           "  use, intrinsic :: iso_c_binding, only: c_ptr, c_int",
           "  implicit none",
           "  public"]
    for name, value in FIXED_CONSTANTS:
        out.append(f"  integer, parameter :: {name} = {value}")
    out.append("  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.")
    out.append("  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.")
    for h in HANDLES:
        out += [f"  type, bind(C) :: {h}", "    integer(c_int) :: MPI_VAL", "  end type"]
    out += ["  type, bind(C) :: MPI_Status",
            "    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "    integer(c_int) :: ccmpi_internal(MPI_STATUS_SIZE - 3)",
            "  end type",
            "end module ccmpi_f08_types",
            "",
            "module ccmpi_f08_glue",
            "  use ccmpi_f08_types",
            "  implicit none",
            "  interface"]
    twins = large_count_twins(funcs)
    bound = [f for f in funcs if not skipped(f.name) and f.name not in SPECIAL]
    sigs = [f08_signature(f) for f in bound] + special_f08()
    sigs += [f08_signature(f) for f in funcs if f.name in twins]
    # The profiling names of the functions (PMPI_WTIME ...); subroutines have none here.
    sigs += [("P" + n, params, ret) for n, params, ret in sigs if ret not in ("int", "void")]
    for sig in sigs:
        out += f08_glue_interface(sig)
    out += ["  end interface",
            "end module ccmpi_f08_glue",
            "",
            "module mpi_f08",
            "  use, intrinsic :: iso_c_binding, only: c_ptr",
            "  use ccmpi_f08_types",
            "  implicit none",
            "  public"]
    for name, value, htype in constants:
        if htype:
            out.append(f"  type({htype}), parameter :: {name} = {htype}({value})")
            handle_values[name] = value
        else:
            out.append(f"  integer, parameter :: {name} = {value}")
    for name, _, dims in SENTINELS:
        if "STATUS" in name:
            d = "" if name == "MPI_STATUS_IGNORE" else "(1)"
            out.append(f"  type(MPI_Status) :: {name}{d}")
        else:
            out.append(f"  integer :: {name}{dims}")
        out.append(f"  common /{common_name(name)}/ {name}")
    out += wrap_f(f"  external :: {', '.join(CALLBACKS)}", 2)
    # Subroutines are generic names over their specific procedures (MPI_Send: MPI_Send_f08
    # and, with INTEGER(KIND=MPI_COUNT_KIND) counts, MPI_Send_f08c).
    generics = {}
    for name, _, ret in sigs:
        if ret in ("int", "void"):
            generics.setdefault(twins.get(name, name), []).append(specific_name(name, twins))
    for gname, specifics in generics.items():
        out.append(f"  interface {gname}")
        out.append(f"    module procedure {', '.join(specifics)}")
        out.append("  end interface")
    for op, fn in (("==", "eq"), ("/=", "ne")):
        out.append(f"  interface operator({op})")
        out += wrap_f("    module procedure " + ", ".join(f"ccmpi_{fn}_{h[4:].lower()}"
                                                         for h in HANDLES), 4)
        out.append("  end interface")
    out.append("contains")
    for h in HANDLES:
        s = h[4:].lower()
        for fn, op in (("eq", "=="), ("ne", "/=")):
            out += [f"  elemental logical function ccmpi_{fn}_{s}(a, b)",
                    f"    type({h}), intent(in) :: a, b",
                    f"    ccmpi_{fn}_{s} = a%MPI_VAL {op} b%MPI_VAL",
                    "  end function"]
    for sig in sigs:
        name, _, ret = sig
        out += f08_procedure(sig, specific_name(name, twins) if ret in ("int", "void") else None)
    out += ["  ! MPI_SIZEOF: the size in bytes of one element of any intrinsic type.",
            "  subroutine MPI_Sizeof(x, size, ierror)",
            "    class(*), intent(in) :: x(..)",
            "    integer, intent(out) :: size",
            "    integer, optional, intent(out) :: ierror",
            "    size = storage_size(x) / 8",
            "    if (present(ierror)) ierror = MPI_SUCCESS",
            "  end subroutine"]
    out.append("end module mpi_f08")
    return "\n".join(out) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    funcs = parse_functions()
    constants = parse_constants()
    glue, count = gen_glue(funcs)
    outputs = [(MPIF_H, gen_mpif_h(funcs, constants)), (GLUE, glue),
               (F08, gen_f08(funcs, constants))]
    stale = [p for p, text in outputs if not p.exists() or p.read_text() != text]
    if check:
        for p in stale:
            print(f"{p} is out of date: run tools/gen_fortran.py", file=sys.stderr)
        return 1 if stale else 0
    for p, text in outputs:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    print(f"{count} functions bound; wrote {', '.join(str(p) for p, _ in outputs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
