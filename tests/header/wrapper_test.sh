#!/bin/sh
# Tests of the mpicc/mpicxx wrappers (tools/mpicc.in), one CTest test per mode:
#
#   show    BINDIR INCDIR LIBDIR WORK          the printed commands and flags, the option
#                                              parsing and the quoting, with a fake compiler
#   compile BINDIR SRCDIR WORK                 compile-only (-c) builds of the header tests
#   link    BINDIR LIBDIR SRCDIR WORK          programs calling MPI_Init link against libccmpi
#                                              (as `CC=mpicc ./configure` would) and find it
#   findmpi BINDIR INCDIR LIBDIR SRCDIR WORK CMAKE GENERATOR CC CXX
#                                              CMake's FindMPI finds ccmpi through the wrappers,
#                                              and a project builds with them as its compilers
#   install BUILDDIR SRCDIR WORK CMAKE         `cmake --install --prefix` anywhere; the installed
#                                              wrappers find their prefix, through symbolic
#                                              links and after the tree is moved
#
# WORK is emptied first. Exits non-zero with a message on the first failed check.
set -u

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
  [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
}
# expect_contains HAYSTACK NEEDLE WHAT
expect_contains() {
  case $1 in
    *"$2"*) ;;
    *) fail "$3: '$1' does not contain '$2'" ;;
  esac
}
expect_not_contains() {
  case $1 in
    *"$2"*) fail "$3: '$1' contains '$2'" ;;
  esac
}
fresh_dir() {
  rm -rf "$1" && mkdir -p "$1" || fail "cannot create $1"
}

mode=$1
shift

case $mode in
show)
  bindir=$1 incdir=$2 libdir=$3 work=$4
  # A sanitizer build's wrappers link the sanitizers' run-time (CCMPI_SANITIZE, may be "").
  san=${5:+-fsanitize=$5 }
  fresh_dir "$work"
  mpicc=$bindir/mpicc
  mpicxx=$bindir/mpicxx
  unset CCMPI_CC CCMPI_CXX

  # Full command: compiler, -I, arguments, link flags in this order.
  out=$("$mpicc" -show foo.c -o foo) || fail "mpicc -show exited non-zero"
  expect_eq "$out" "cc -I$incdir foo.c -o foo ${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" \
    "mpicc -show"
  expect_eq "$("$mpicc" --showme foo.c)" "$("$mpicc" -showme foo.c)" "--showme = -showme"
  out=$("$mpicxx" -show foo.cc) || fail "mpicxx -show exited non-zero"
  expect_eq "$out" "c++ -I$incdir foo.cc ${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" \
    "mpicxx -show"
  out=$("$bindir/mpic++" -show foo.cc) || fail "mpic++ -show"
  expect_contains "$out" "c++ -I$incdir foo.cc" "mpic++ is mpicxx"

  # Compile-only options drop the link flags.
  for opt in -c -E -S -M -MM; do
    out=$("$mpicc" -show $opt foo.c)
    expect_eq "$out" "cc -I$incdir $opt foo.c" "mpicc -show $opt"
  done
  out=$("$mpicc" -show -MD -MF foo.d foo.c -o foo)
  expect_contains "$out" "-lccmpi" "-MD still links"

  # MPICH-style queries.
  expect_eq "$("$mpicc" -compile_info)" "cc -I$incdir" "-compile_info"
  expect_eq "$("$mpicc" -compile-info -O2 foo.c)" "cc -I$incdir -O2 foo.c" "-compile-info args"
  expect_eq "$("$mpicc" -link_info)" "cc -I$incdir ${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" \
    "-link_info"
  expect_eq "$("$mpicc" -link-info -c foo.c)" \
    "cc -I$incdir -c foo.c ${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" "-link-info -c"
  expect_eq "$("$mpicc" -show)" "cc -I$incdir ${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" \
    "-show alone"

  # Open MPI-style queries print flags only.
  expect_eq "$("$mpicc" -showme:compile)" "-I$incdir" "-showme:compile"
  expect_eq "$("$mpicc" --showme:link)" "${san}-L$libdir -Wl,-rpath,$libdir -lccmpi -lpthread" \
    "--showme:link"
  expect_eq "$("$mpicc" -showme:incdirs)" "$incdir" "-showme:incdirs"
  expect_eq "$("$mpicc" -showme:libdirs)" "$libdir" "-showme:libdirs"
  expect_eq "$("$mpicc" -showme:libs)" "ccmpi pthread" "-showme:libs"
  expect_eq "$("$mpicc" -showme:command)" "cc" "-showme:command"
  expect_eq "$("$mpicxx" -showme:command)" "c++" "mpicxx -showme:command"
  expect_contains "$("$mpicc" -showme:version)" "ccmpi" "-showme:version"
  expect_contains "$("$mpicc" -showme:version)" "language: C)" "-showme:version"
  expect_contains "$("$mpicc" -showme:help)" "-showme:incdirs" "-showme:help"
  if "$mpicc" -showme:bogus >/dev/null 2>&1; then fail "-showme:bogus should fail"; fi

  # The compiler: environment, -cc=/-cxx= option (last one wins), several words.
  expect_eq "$(CCMPI_CC=gcc-12 "$mpicc" -showme:command)" "gcc-12" "CCMPI_CC"
  expect_eq "$(CCMPI_CXX=clang++ "$mpicxx" -showme:command)" "clang++" "CCMPI_CXX"
  expect_eq "$(CCMPI_CC=gcc "$mpicc" -cc=clang -showme:command)" "clang" "-cc="
  expect_eq "$("$mpicxx" -cxx=g++ -show -c x.cc)" "g++ -I$incdir -c x.cc" "-cxx="
  expect_eq "$(CCMPI_CC='ccache cc' "$mpicc" -show -c x.c)" "ccache cc -I$incdir -c x.c" \
    "a compiler of two words"

  # Version queries pass through without flags.
  expect_eq "$("$mpicc" -show --version)" "cc --version" "--version"
  expect_eq "$("$mpicc" -show -v)" "cc -v" "-v"
  expect_eq "$("$mpicc" -show -dumpversion)" "cc -dumpversion" "-dumpversion"
  expect_contains "$("$mpicc" -show -v foo.c)" "-lccmpi" "-v with a file still links"

  # Arguments reach the compiler unchanged: a fake compiler prints one per line.
  fake=$work/fakecc
  printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]\\n" "$a"; done\n' >"$fake"
  chmod +x "$fake"
  out=$(CCMPI_CC=$fake "$mpicc" -c 'a b.c' "-DX=\"q\"" "-DY='s'" '-DZ=$HOME' 'back\slash' '' -DW=1)
  expected=$(printf '%s\n' "[-I$incdir]" "[-c]" "[a b.c]" "[-DX=\"q\"]" "[-DY='s']" \
    '[-DZ=$HOME]' '[back\slash]' '[]' '[-DW=1]')
  expect_eq "$out" "$expected" "arguments passed through"
  out=$(CCMPI_CC=$fake "$mpicc" -o 'my prog' x.c)
  expected=$(printf '%s\n' "[-I$incdir]" "[-o]" "[my prog]" "[x.c]" ${san:+"[${san% }]"} \
    "[-L$libdir]" "[-Wl,-rpath,$libdir]" "[-lccmpi]" "[-lpthread]")
  expect_eq "$out" "$expected" "link arguments"
  # -show quotes what needs quoting, so the printed command runs the same way.
  shown=$(CCMPI_CC=$fake "$mpicc" -show -c 'a b.c' "-DY='s'" '-DZ=$HOME')
  expect_eq "$(eval "$shown")" "$(CCMPI_CC=$fake "$mpicc" -c 'a b.c' "-DY='s'" '-DZ=$HOME')" \
    "-show output is a shell command"
  # The exit status of the compiler is the wrapper's.
  printf '#!/bin/sh\nexit 7\n' >"$work/failcc"
  chmod +x "$work/failcc"
  CCMPI_CC=$work/failcc "$mpicc" -c x.c
  expect_eq "$?" 7 "exit status"
  ;;

compile)
  bindir=$1 srcdir=$2 work=$3
  fresh_dir "$work"
  unset CCMPI_CC CCMPI_CXX
  "$bindir/mpicc" -std=c11 -Wall -Wextra -Werror -pedantic -c "$srcdir/header_test.c" \
    -o "$work/header_test_c.o" || fail "mpicc -c header_test.c"
  "$bindir/mpicc" -std=c11 -Wall -Wextra -Werror -pedantic -c \
    "$srcdir/handles_static_test.c" -o "$work/handles.o" || fail "mpicc -c handles_static_test.c"
  "$bindir/mpicxx" -std=c++17 -Wall -Wextra -Werror -pedantic -I"$work" -c \
    "$srcdir/findmpi/hello.cc" -o "$work/hello_cc.o" || fail "mpicxx -c hello.cc"
  # Declarations are extern "C": the C++ object refers to the unmangled names.
  nm -u "$work/hello_cc.o" | grep -q ' U MPI_Init$' || fail "MPI_Init is not an unmangled symbol"
  "$bindir/mpicc" -E "$srcdir/findmpi/hello.c" >"$work/hello.i" || fail "mpicc -E"
  grep -q 'MPI_Finalize' "$work/hello.i" || fail "mpicc -E output lacks the declarations"
  if command -v clang >/dev/null 2>&1; then
    CCMPI_CC=clang "$bindir/mpicc" -std=c11 -Wall -Wextra -Werror -pedantic -c \
      "$srcdir/header_test.c" -o "$work/header_test_clang.o" || fail "clang: header_test.c"
    CCMPI_CXX=clang++ "$bindir/mpicxx" -std=c++17 -Wall -Wextra -Werror -pedantic -c \
      "$srcdir/findmpi/hello.cc" -o "$work/hello_clang.o" || fail "clang++: hello.cc"
  fi
  ;;

link)
  bindir=$1 libdir=$2 srcdir=$3 work=$4
  fresh_dir "$work"
  unset CCMPI_CC CCMPI_CXX
  [ -f "$libdir/libccmpi.so" ] || fail "$libdir/libccmpi.so is not built"
  # What a configure script does: compile and link a test program in one step.
  cp "$srcdir/findmpi/hello.c" "$work/conftest.c"
  (cd "$work" && "$bindir/mpicc" conftest.c -o conftest) || fail "mpicc conftest.c -o conftest"
  (cd "$work" && "$bindir/mpicc" -c conftest.c && "$bindir/mpicc" conftest.o -o conftest2) ||
    fail "mpicc -c, then link the object"
  "$bindir/mpicxx" "$srcdir/findmpi/hello.cc" -o "$work/hello_cxx" || fail "mpicxx hello.cc"
  for prog in conftest conftest2 hello_cxx; do
    # The run-time path finds the library without LD_LIBRARY_PATH.
    resolved=$(env -u LD_LIBRARY_PATH ldd "$work/$prog" |
      sed -n 's/^[[:space:]]*libccmpi\.so[^ ]* => \([^ ]*\) .*/\1/p')
    [ -n "$resolved" ] || fail "$prog: ldd does not resolve libccmpi: $(ldd "$work/$prog")"
    expect_eq "$(cd "$(dirname "$resolved")" && pwd -P)" "$(cd "$libdir" && pwd -P)" \
      "$prog finds libccmpi in"
  done
  ;;

findmpi)
  bindir=$1 incdir=$2 libdir=$3 srcdir=$4 work=$5 cmake=$6 generator=$7 cc=$8 cxx=$9
  fresh_dir "$work"
  unset CCMPI_CC CCMPI_CXX
  "$cmake" -S "$srcdir/findmpi" -B "$work" -G "$generator" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DMPI_C_COMPILER="$bindir/mpicc" -DMPI_CXX_COMPILER="$bindir/mpicxx" \
    -DEXPECTED_INCDIR="$incdir" -DEXPECTED_LIBDIR="$libdir" || fail "configuring with FindMPI"
  "$cmake" --build "$work" || fail "building with MPI::MPI_C and MPI::MPI_CXX"
  [ -x "$work/hello_c" ] && [ -x "$work/hello_cxx" ] || fail "programs not built"
  # The wrappers as the project's compilers (CC=mpicc cmake ...).
  "$cmake" -S "$srcdir/findmpi" -B "$work/as-compilers" -G "$generator" \
    -DCMAKE_C_COMPILER="$bindir/mpicc" -DCMAKE_CXX_COMPILER="$bindir/mpicxx" \
    -DWRAPPERS_ARE_COMPILERS=ON || fail "configuring with the wrappers as compilers"
  "$cmake" --build "$work/as-compilers" || fail "building with the wrappers as compilers"
  [ -x "$work/as-compilers/hello_c" ] && [ -x "$work/as-compilers/hello_cxx" ] ||
    fail "programs not built by the wrappers"
  # MPI_HOME: FindMPI finds the wrappers and our mpiexec there (given only the wrappers, it
  # takes the first mpiexec in PATH, as README says).
  "$cmake" -S "$srcdir/findmpi" -B "$work/mpi-home" -G "$generator" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DMPI_HOME="$bindir/.." \
    -DEXPECTED_INCDIR="$incdir" -DEXPECTED_LIBDIR="$libdir" -DEXPECTED_MPIEXEC="$bindir/mpiexec" ||
    fail "configuring with MPI_HOME"
  ;;

install)
  builddir=$1 srcdir=$2 work=$3 cmake=$4
  fresh_dir "$work"
  unset CCMPI_CC CCMPI_CXX
  prefix=$work/prefix
  "$cmake" --install "$builddir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install: $(tail -5 "$work/install.log")"
  [ -f "$prefix/include/mpi.h" ] || fail "mpi.h not installed"
  [ -f "$prefix/include/mpix_ccmpi.h" ] || fail "mpix_ccmpi.h not installed"
  [ -h "$prefix/bin/mpic++" ] || fail "mpic++ is not a symbolic link"
  check_prefix() { # WRAPPER PREFIX WHAT
    incdirs=$("$1" -showme:incdirs) || fail "$3: -showme:incdirs"
    libdirs=$("$1" -showme:libdirs) || fail "$3: -showme:libdirs"
    [ -f "$incdirs/mpi.h" ] || fail "$3: no mpi.h in $incdirs"
    [ -f "$libdirs/libccmpi.so" ] || fail "$3: no libccmpi.so in $libdirs"
    expect_eq "$(cd "$incdirs/.." && pwd -P)" "$(cd "$2" && pwd -P)" "$3: prefix of incdir"
  }
  check_prefix "$prefix/bin/mpicc" "$prefix" "installed mpicc"
  check_prefix "$prefix/bin/mpicxx" "$prefix" "installed mpicxx"
  check_prefix "$prefix/bin/mpic++" "$prefix" "installed mpic++ (a link)"
  # Through symbolic links elsewhere (absolute and relative), and found on PATH.
  mkdir -p "$work/links/sub"
  ln -s "$prefix/bin/mpicc" "$work/links/mpicc"
  ln -s ../mpicc "$work/links/sub/mpicc"
  check_prefix "$work/links/mpicc" "$prefix" "absolute link"
  check_prefix "$work/links/sub/mpicc" "$prefix" "chain of links"
  expect_eq "$(PATH="$work/links:$PATH" mpicc -showme:incdirs)" \
    "$(cd "$prefix/include" && pwd -P)" "mpicc found on PATH"
  # A program built with the installed wrapper uses the installed library.
  "$prefix/bin/mpicc" "$srcdir/findmpi/hello.c" -o "$work/hello" || fail "installed mpicc link"
  ldd "$work/hello" | grep -q "$(cd "$prefix" && pwd -P)/.*libccmpi" ||
    fail "hello does not use the installed libccmpi: $(ldd "$work/hello")"
  # The installation can be moved.
  mv "$prefix" "$work/moved"
  check_prefix "$work/moved/bin/mpicxx" "$work/moved" "moved installation"
  if (check_prefix "$work/links/sub/mpicc" "$work/moved" "dangling link") 2>/dev/null; then
    fail "a link into the old location should no longer work"
  fi
  ;;

*)
  fail "unknown mode '$mode'"
  ;;
esac
echo "PASS wrapper_test $mode"
