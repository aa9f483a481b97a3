# shellcheck shell=bash
# Shared shell parts of the side-by-side comparisons (bench/p2p/run.sh, bench/osu-coll/run.sh):
# which implementations are installed, how each one is launched, running one benchmark
# invocation in its own session under a time cap and reaping what is left of it, the
# machine facts for the README, and the python helpers in bench/common/report.py.
#
# Source it from a script that has set: build_dir (ccmpi build tree), IMPLS, and the name
# the messages should carry in $harness_name. Then call harness_init PREFIX, which makes
# the scratch directory $work and installs the EXIT/INT/TERM traps.

harness_common_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "${harness_name:-run.sh}: $*" >&2; exit 1; }

# Checks the ccmpi build tree and the tools every harness needs; makes build_dir absolute.
harness_check_tools() {
  local given=$build_dir
  build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || die "no build directory $given"
  [ -x "$build_dir/bin/mpicc" ] && [ -x "$build_dir/bin/mpirun" ] ||
    die "$build_dir has no bin/mpicc and bin/mpirun (build ccmpi first)"
  command -v python3 >/dev/null || die "python3 is needed"
  command -v setsid >/dev/null && command -v timeout >/dev/null || die "setsid and timeout needed"
}

# Sets impls=(...) to the implementations of $IMPLS whose tools are installed; the others
# are dropped with a note.
harness_pick_impls() {
  local avail="" impl
  for impl in $IMPLS; do
    case $impl in
      ccmpi) avail="$avail ccmpi" ;;
      openmpi) command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi >/dev/null &&
                 avail="$avail openmpi" || echo "$harness_name: Open MPI not found, skipped" >&2 ;;
      mpich) command -v mpiexec.mpich >/dev/null && command -v mpicc.mpich >/dev/null &&
               avail="$avail mpich" || echo "$harness_name: MPICH not found, skipped" >&2 ;;
      *) die "unknown implementation $impl" ;;
    esac
  done
  read -r -a impls <<<"$avail"
  [ ${#impls[@]} -gt 0 ] || die "no implementation to run"
}

current_sid=""
# Kills whatever is left of the session of the last invocation, by PID.
reap_session() {
  [ -n "$current_sid" ] || return 0
  local left
  left=$(ps -e -o pid=,sid= | awk -v s="$current_sid" '$2 == s { print $1 }')
  [ -n "$left" ] && kill -KILL $left 2>/dev/null
  current_sid=""
  return 0
}
harness_cleanup() {
  reap_session
  if [ "${KEEP_WORK:-0}" = 1 ]; then echo "$harness_name: raw outputs kept in $work" >&2
  else rm -rf "$work"; fi
}
# harness_init PREFIX: scratch directory $work (/tmp/PREFIX.XXXXXX) and the traps.
harness_init() {
  work=$(mktemp -d "/tmp/$1.XXXXXX")
  trap harness_cleanup EXIT
  trap 'echo "$harness_name: interrupted" >&2; exit 130' INT TERM
}

# launcher IMPL NRANKS OVERSUBSCRIBED -> the mpirun command line, in ${launch[@]}.
# Open MPI is forced onto TCP (its shared-memory BTL would not be a comparison with
# ccmpi's TCP transport) and, when ranks share cores, told to yield when idle.
launcher() {
  case $1 in
    ccmpi) launch=("$build_dir/bin/mpirun" -n "$2") ;;
    openmpi)
      launch=(mpirun.openmpi --allow-run-as-root --mca btl 'tcp,self')
      [ "$3" = 1 ] && launch+=(--mca mpi_yield_when_idle 1 --oversubscribe)
      launch+=(-n "$2") ;;
    mpich) launch=(mpiexec.mpich -n "$2") ;;
  esac
}

# run_capped SECONDS OUT ERR CMD... : runs CMD in a session of its own, killed after
# SECONDS; afterwards kills whatever of that session is left. Returns CMD's exit code
# (124 or 137 when the cap was hit).
run_capped() {
  local cap=$1 out=$2 err=$3
  shift 3
  setsid -w bash -c 'echo $$ >"$0"; exec timeout -k 10 "$@"' "$work/sid" "$cap" "$@" \
    </dev/null >"$out" 2>"$err" &
  local pid=$!
  wait "$pid"
  local rc=$?
  current_sid=$(cat "$work/sid" 2>/dev/null)
  reap_session
  return $rc
}

# first_error ERRFILE RC CAP: one line saying why an invocation failed.
first_error() {
  local why
  why=$( (grep -m1 -iE 'error|abort|fail' "$1" || tail -n1 "$1") | tr '\t' ' ' | cut -c1-200)
  { [ "$2" = 124 ] || [ "$2" = 137 ]; } && why="timeout after ${3}s; $why"
  printf '%s' "$why"
}

# harness_machine_facts: key=value lines describing the machine and the implementations,
# read back by report.py (read_facts, machine_section).
harness_machine_facts() {
  local repo=$1
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cores=$(nproc)"
  echo "mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "kernel=$(uname -srm)"
  echo "ccmpi=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null)$(
    [ -n "$(git -C "$repo" status --porcelain 2>/dev/null)" ] && echo ' (with uncommitted changes)')"
  echo "openmpi=$(mpirun.openmpi --version 2>/dev/null | head -n1)"
  echo "mpich=$(mpiexec.mpich --version 2>/dev/null | awk '/Version:/ { print $2; exit }')"
}
