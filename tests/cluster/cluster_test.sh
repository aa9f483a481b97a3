#!/bin/bash
# Tests of ccmpi-cluster (tools/ccmpi_tools), one case per run:   cluster_test.sh CASE
#   updown    up (3 hosts x 2 rails) builds the topology; down leaves nothing behind
#   leftover  clusters left by a killed owner, a killed `up` and a stray namespace are
#             removed by the next up/down
#   exec      exec runs in the right namespace with the right host name and exit status
#   loss      --loss without netem drops about that share of the packets
#   mpi       mpirun --launcher 'ccmpi-cluster exec' runs MPI programs across 4 hosts; the
#             ranks agree on the link rate: declared (CCMPI_LINK_MBITS), or found (unset or 0)
#             in the hosts' tbf shaper and, on a --no-gso cluster, their htb class, or
#             measured by packet trains (CCMPI_LINK_FIND=probe)
#   rma       one-sided communication across 4 hosts (tests/mpi/rma.c), and passive-target
#             progress while the target computes with the progress thread (rma_async.c)
#   dupreorder  --dup and --reorder (without netem: a copy through the port's side pair,
#             the delay line) duplicate and reorder about that share of the packets, lose
#             none, and down leaves no delay line behind
#   mcast     multicast Bcast and Scatterv on 4 hosts under loss, duplication and
#             reordering deliver exactly (tests/mpi/mcast_*.c), also on communicators
#             freed and created again (the same context id and group) 150 times
#   ackloss   a connection whose handshake's last ACK is lost opens within 500 ms, not
#             after the acceptor's SYN-ACK retransmission (1 s)
#   synloss   a connection whose first SYN is lost opens within 800 ms, not after the
#             kernel's 1 s SYN retransmission (tests/cluster/cluster_first_contact.c)
#   faults    bench/reliability/run.py's fault injections on 2 hosts: a rank, a proxy and
#             mpirun killed, a cable down for 2 s and for good, each ending as it should
#   hostile   the reliability campaign's hostile peers (600 idle connections held to the
#             listeners of a job on 2 hosts) and soak, small: every byte checked, stderr
#             bounded
#   lossdetect  ranks count a network with 10% loss as lossy (CCMPI_LOSSY_RETRANS), a
#             lossless one not
#   check     `check` on 2 hosts at 20mbit reports every figure within 10%; with 2 rails
#             and --all-rails, both rails' cables in the same rounds
#   rails     3 hosts x 2 rails: every rank finds both NICs (ccmpi_info --rails), large
#             messages are striped over both (each NIC's tx_bytes), every byte and the order
#             of mixed small/large messages are right (tests/mpi/rails_stripe.c), with no
#             option, --iface r0,r1 and CCMPI_STRIPE=0 (r1 idle); a rail taken down mid-run
#             (ip link set r1 down) is dropped and the job still completes with correct data;
#             the two-tree broadcast and the phased_rails Alltoall send on both rails
#             (rail-directed messages), and
#             completes with correct data when a rail goes down under it; so do multicast
#             broadcasts (a lane per rail), whose agreement probes a later lane again when
#             its first probe is missed (CCMPI_MCAST_TEST_LANE_MISS)
#   bench     a --quick ccmpi-bench p2p run writes results for ccmpi (and Open MPI when
#             installed) and leaves no cluster behind
#   bench_coll  a --quick ccmpi-bench scatter run (MPI_Scatter and MPI_Scatterv on 4
#             hosts): a CSV row with positive times and link bounds for every
#             implementation, test and size, the compiler-assisted Scatterv
#             (scatterv5-mpix) for ccmpi alone, the README's Figure 10 table, the Open
#             MPI sweep stored and used, no cluster left
# Environment: CLUSTER (ccmpi-cluster of the build tree), MPIRUN, P2P_ORDER and
# CLUSTER_HOSTS (MPI programs) for the mpi case, RMA and RMA_ASYNC for the rma case, BENCH (ccmpi-bench) for the bench case. Needs root: exits 77 (skipped) otherwise.
# Every cluster is named uniquely, owned by this script (--owner $$) and taken down by a
# trap, so nothing is left even when a case fails or the script is killed.
# `A && B || fail` is meant.
# shellcheck disable=SC2015
set -u
CASE="$1"
CLUSTER="${CLUSTER:?CLUSTER must name ccmpi-cluster}"
WORK="$(mktemp -d /tmp/ccmpi-cluster-test.XXXXXX)"
NAMES=()
BG_PIDS=()
cleanup() {
  local p n
  for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for n in "${NAMES[@]}"; do "$CLUSTER" down --name "$n" >/dev/null 2>&1; done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL [$CASE]: $*" >&2
  for f in out err; do
    if [ -s "$WORK/$f" ]; then
      echo "---- $f:" >&2
      head -c 6000 "$WORK/$f" >&2
    fi
  done
  exit 1
}
# run ARGS...: runs a command with output in $WORK/out and $WORK/err; sets RC.
run() {
  "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
}
# new_name TAG: sets NAME to a cluster name unique to this run, taken down on exit.
new_name() {
  NAME="t$1$$"
  NAMES+=("$NAME")
}
# nothing_left NAME: no namespace, state, /etc/netns entry or root-namespace link of NAME.
nothing_left() {
  local n=$1
  ip netns list | grep -q "^ccmpi-$n-" && fail "namespaces of $n left: $(ip netns list | grep "ccmpi-$n-")"
  [ -e "/run/ccmpi-cluster/$n" ] && fail "state directory of $n left"
  ls -d /etc/netns/ccmpi-"$n"-* >/dev/null 2>&1 && fail "/etc/netns entries of $n left"
  return 0
}
# port_stat NS DEV RX|TX FIELD: a counter of DEV (field 1 bytes, 2 packets).
port_stat() {
  ip -n "$1" -s -o link show "$2" | awk '{gsub(/\\/, "\n"); print}' |
    awk -v w="$3:" -v f="$4" 'hit {print $f; exit} $1 == w {hit = 1}'
}
root_links() { ip -o link show | awk '{print $2}' | sort; }

# first_contact_dropping PREFIX WHAT MAX_MS WHY BYTECODE: 2 hosts; the switch port to h2
# sends the packets the classic-BPF BYTECODE matches to a class whose queue holds nothing
# until 50 ms after rank 0 on h1 prints "connecting" (tests/cluster/cluster_first_contact.c);
# then its first round trip to rank 1 must take less than MAX_MS. WHAT names the packets,
# WHY the time it took without ccmpi's remedy. Leaves mpirun's stderr in $WORK/err.
first_contact_dropping() {
  local prefix=$1 what=$2 max_ms=$3 why=$4 bytecode=$5
  : "${MPIRUN:?}" "${FIRST_CONTACT:?}"
  new_name "$prefix"
  local n=$NAME
  run "$CLUSTER" up --hosts 2 --rate 100mbit --name "$n" --owner $$
  [ "$RC" -eq 0 ] || fail "up failed"
  local hostfile sw="ccmpi-$n-sw"
  hostfile=$(cat "$WORK/out")
  tc -n "$sw" class add dev h2r0 parent 1: classid 1:2 htb rate 8bit ceil 8bit quantum 1538 &&
    tc -n "$sw" qdisc add dev h2r0 parent 1:2 handle 20: pfifo limit 0 &&
    tc -n "$sw" filter add dev h2r0 parent 1: protocol all prio 1 bpf bytecode "$bytecode" ||
    fail "cannot add the $what filter"
  CCMPI_VERBOSE=2 timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" \
    --iface r0 -n 2 "$FIRST_CONTACT" >"$WORK/out" 2>"$WORK/err" &
  local job=$!
  BG_PIDS+=("$job")
  for _ in $(seq 1 500); do grep -q '^connecting$' "$WORK/out" && break; sleep 0.01; done
  grep -q '^connecting$' "$WORK/out" || fail "rank 0 did not start within 5 s"
  sleep 0.05
  tc -n "$sw" filter del dev h2r0 parent 1: prio 1 || fail "cannot remove the $what filter"
  wait "$job"
  RC=$?
  [ "$RC" -eq 0 ] && grep -q "^PASS cluster_first_contact" "$WORK/out" || fail "rc $RC"
  local drops ms
  drops=$(tc -n "$sw" -s qdisc show dev h2r0 |
    awk '$1 == "qdisc" && $3 == "20:" {q = 1} q && $1 == "Sent" {print $7 + 0; exit}')
  [ "${drops:-0}" -ge 1 ] || fail "no $what was dropped (the filter did not act)"
  ms=$(sed -n 's/^first_contact_ms=\([0-9]*\)$/\1/p' "$WORK/out")
  [ -n "$ms" ] && [ "$ms" -lt "$max_ms" ] || fail "first contact took ${ms:-?} ms ($why)"
}

[ "$(id -u)" = 0 ] || {
  echo "SKIP: needs root"
  exit 77
}
command -v ip >/dev/null && command -v tc >/dev/null || {
  echo "SKIP: needs ip and tc"
  exit 77
}

case "$CASE" in
  updown)
    # Not root: a clear message and a non-zero status.
    run setpriv --reuid=65534 --regid=65534 --clear-groups "$CLUSTER" up --hosts 2 --name tnoroot
    [ "$RC" -ne 0 ] && grep -q "needs root" "$WORK/err" || fail "non-root up: rc $RC"
    links_before=$(root_links)
    new_name ud; n=$NAME
    run "$CLUSTER" up --hosts 3 --rails 2 --rate 50mbit --slots 2 --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed (rc $RC)"
    hostfile=$(cat "$WORK/out")
    [ "$hostfile" = "/run/ccmpi-cluster/$n/hostfile" ] || fail "up printed '$hostfile'"
    [ "$(cat "$hostfile")" = "$(printf '%s slots=2\n' "$n-h1" "$n-h2" "$n-h3")" ] ||
      fail "hostfile: $(cat "$hostfile")"
    [ "$("$CLUSTER" hostfile --name "$n")" = "$hostfile" ] || fail "hostfile command"
    for ns in "ccmpi-$n-sw" "ccmpi-$n-h1" "ccmpi-$n-h2" "ccmpi-$n-h3"; do
      ip netns list | grep -q "^$ns\b" || fail "namespace $ns missing"
    done
    [ "$(root_links)" = "$links_before" ] || fail "links appeared in the root namespace"
    # Every host: lo up, r0 and r1 with addresses on two different /24s, shaped.
    for k in 1 2 3; do
      ns="ccmpi-$n-h$k"
      ip -n "$ns" -o link show lo | grep -q "UP" || fail "lo down in $ns"
      a0=$(ip -n "$ns" -4 -o addr show dev r0 | awk '{print $4}')
      a1=$(ip -n "$ns" -4 -o addr show dev r1 | awk '{print $4}')
      [[ $a0 =~ ^198\.1[89]\.[0-9]+\.$k/24$ ]] && [[ $a1 =~ ^198\.1[89]\.[0-9]+\.$k/24$ ]] ||
        fail "addresses of $ns: '$a0' '$a1'"
      [ "${a0%.*}" != "${a1%.*}" ] || fail "rails of $ns share a subnet"
      tc -n "$ns" qdisc show dev r0 | grep -q "tbf .*rate 50Mbit" || fail "r0 of $ns not shaped"
      tc -n "ccmpi-$n-sw" class show dev "h${k}r1" | grep -q "rate 50Mbit" ||
        fail "switch port h${k}r1 not shaped"
      ip -n "ccmpi-$n-sw" -o link show "h${k}r1" | grep -q "master sw1" ||
        fail "h${k}r1 not on switch sw1"
    done
    # Rail 1 of h1 reaches rail 1 of h3 through switch 1 (bash's /dev/tcp, port closed:
    # "connection refused" proves the packet got there and back).
    a3=$(ip -n "ccmpi-$n-h3" -4 -o addr show dev r1 | awk '{print $4}')
    run "$CLUSTER" exec "$n-h1" "timeout 5 bash -c 'echo >/dev/tcp/${a3%/*}/9'"
    grep -q "refused" "$WORK/err" || fail "h1 cannot reach h3 over rail 1"
    "$CLUSTER" list | grep -Eq "^$n +up " || fail "list does not show $n"
    run "$CLUSTER" down --name "$n"
    [ "$RC" -eq 0 ] || fail "down failed (rc $RC)"
    nothing_left "$n"
    [ "$(root_links)" = "$links_before" ] || fail "root namespace links changed"
    run "$CLUSTER" down --name "$n"
    [ "$RC" -eq 0 ] && grep -q "no cluster" "$WORK/err" || fail "second down: rc $RC"
    ;;

  leftover)
    # 1. A cluster whose owner process was killed.
    sleep 60 &
    owner=$!
    BG_PIDS+=("$owner")
    new_name loa; a=$NAME
    run "$CLUSTER" up --hosts 2 --name "$a" --owner "$owner"
    [ "$RC" -eq 0 ] || fail "up $a failed"
    # 2. An `up` killed half way (SIGKILL: no trap runs).
    new_name lob; b=$NAME
    "$CLUSTER" up --hosts 40 --name "$b" >/dev/null 2>&1 &
    upid=$!
    BG_PIDS+=("$upid")
    for _ in $(seq 1 100); do
      [ "$(ip netns list | grep -c "^ccmpi-$b-h")" -ge 3 ] && break
      sleep 0.05
    done
    kill -KILL "$upid"
    wait "$upid" 2>/dev/null
    # (Tests running in parallel may reap the leftovers before our own next up does; what
    # counts is that nothing is left after it.)
    grep -qs "status=up" "/run/ccmpi-cluster/$b/config" && fail "the killed up of $b says it is up"
    ip netns list | grep -q "^ccmpi-$b-h40" && fail "up of $b finished before it was killed"
    kill -KILL "$owner"
    wait "$owner" 2>/dev/null
    # One listing for both questions: a test running in parallel may reap $a between two.
    listing=$("$CLUSTER" list)
    if grep -Eq "^$a " <<<"$listing"; then
      grep -Eq "^$a +orphan " <<<"$listing" || fail "list does not call $a an orphan: $listing"
    fi
    # 3. A namespace named like ours that no state claims.
    new_name loc; c=$NAME
    # A parallel test's up reaps strays too, and may remove this one while `ip netns add`
    # is still binding it (it failed CI once so): try again, a bounded number of times.
    made=0
    for _ in 1 2 3 4 5; do
      ip netns add "ccmpi-$c-h1" 2>/dev/null && { made=1; break; }
      ip netns delete "ccmpi-$c-h1" 2>/dev/null
      sleep 0.2
    done
    [ "$made" -eq 1 ] || fail "cannot create a stray namespace"
    # The next up (of another cluster) removes all three.
    new_name lod; d=$NAME
    run "$CLUSTER" up --hosts 1 --name "$d" --owner $$
    [ "$RC" -eq 0 ] || fail "up $d failed"
    for n in "$a" "$b" "$c"; do nothing_left "$n"; done
    # A cluster left up is replaced by the next up of the same name.
    run "$CLUSTER" up --hosts 2 --name "$d" --owner $$
    [ "$RC" -eq 0 ] && grep -q "replacing" "$WORK/err" || fail "re-up of $d"
    [ "$(ip netns list | grep -c "^ccmpi-$d-")" -eq 3 ] || fail "re-up of $d: $(ip netns list)"
    run "$CLUSTER" down --name "$d"
    nothing_left "$d"
    ;;

  exec)
    new_name ex; n=$NAME
    run "$CLUSTER" up --hosts 3 --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    for k in 1 2 3; do
      # shellcheck disable=SC2016 # $$ is the remote shell's
      run "$CLUSTER" exec "$n-h$k" 'hostname; ip netns identify $$; ip -4 -o addr show dev r0'
      [ "$RC" -eq 0 ] || fail "exec on h$k: rc $RC"
      [ "$(sed -n 1p "$WORK/out")" = "$n-h$k" ] || fail "host name on h$k"
      [ "$(sed -n 2p "$WORK/out")" = "ccmpi-$n-h$k" ] || fail "namespace of h$k"
      grep -q "inet 198\.1[89]\.[0-9]*\.$k/24" "$WORK/out" || fail "address of h$k"
      # The names of the cluster resolve inside it.
      run "$CLUSTER" exec "$n-h$k" getent hosts "$n-h3"
      grep -q "^198\.1[89]\.[0-9]*\.3 " "$WORK/out" || fail "$n-h3 does not resolve on h$k"
    done
    [ "$(hostname)" != "$n-h1" ] || fail "exec changed the host name of the machine"
    run "$CLUSTER" exec --name "$n" h2 hostname
    [ "$(cat "$WORK/out")" = "$n-h2" ] || fail "exec --name NAME hK"
    # The hosts' programs are told nothing about the link (ccmpi finds it, as on a real
    # cluster); the caller's environment passes through.
    # shellcheck disable=SC2016 # the remote shell expands it
    run env -u CCMPI_LINK_MBITS "$CLUSTER" exec --name "$n" h1 'echo "[${CCMPI_LINK_MBITS-unset}]"'
    [ "$(cat "$WORK/out")" = "[unset]" ] || fail "exec declared CCMPI_LINK_MBITS: $(cat "$WORK/out")"
    # shellcheck disable=SC2016
    CCMPI_LINK_MBITS=7 run "$CLUSTER" exec --name "$n" h1 'echo "$CCMPI_LINK_MBITS"'
    [ "$(cat "$WORK/out")" = 7 ] || fail "exec did not pass CCMPI_LINK_MBITS=7 on"
    run "$CLUSTER" exec "$n-h1" 'exit 7'
    [ "$RC" -eq 7 ] || fail "exit status not passed on: $RC"
    run "$CLUSTER" exec "$n-h9" true
    [ "$RC" -ne 0 ] && grep -q "no host" "$WORK/err" || fail "unknown host accepted"
    # ssh semantics: words joined, shell syntax allowed; the command replaces the agent.
    run "$CLUSTER" exec "$n-h2" echo a '&&' echo b
    [ "$(cat "$WORK/out")" = "$(printf 'a\nb')" ] || fail "exec does not join words as ssh does"
    "$CLUSTER" exec "$n-h2" 'true; sleep 30' &
    agent=$!
    BG_PIDS+=("$agent")
    for _ in $(seq 1 50); do [ "$(cat "/proc/$agent/comm" 2>/dev/null)" = sleep ] && break; sleep 0.1; done
    [ "$(cat "/proc/$agent/comm" 2>/dev/null)" = sleep ] || fail "the command did not replace the agent"
    ;;

  loss)
    # 20% loss on each direction of each cable; 2000 UDP datagrams leave h1: its uplink
    # must drop 20% +- 5% of them (netem where the kernel has it, else the BPF filter at
    # the switch port's ingress), and the sender must not see the drops (a drop in its own
    # qdisc fails the send: UDP counts it in SndbufErrors, TCP retries 200 ms later).
    new_name ls; n=$NAME
    run "$CLUSTER" up --hosts 2 --rate 100mbit --delay 0 --loss 20% --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    a2=$(ip -n "ccmpi-$n-h2" -4 -o addr show dev r0 | awk '{print $4}')
    # A permanent neighbour entry: no ARP exchange (itself subject to loss) in the way.
    mac2=$(ip -n "ccmpi-$n-h2" -o link show r0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    ip -n "ccmpi-$n-h1" neigh replace "${a2%/*}" lladdr "$mac2" dev r0 nud permanent ||
      fail "cannot set the neighbour entry"
    # Packets dropped where they enter the switch (0 with netem: it drops on h1's side).
    sunk() {
      tc -n "ccmpi-$n-sw" -s qdisc show dev lossdrop 2>/dev/null |
        sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1
    }
    sndbuf() { ip netns exec "ccmpi-$n-h1" nstat -az UdpSndbufErrors | awk '$1 == "UdpSndbufErrors" {print $2}'; }
    rx0=$(port_stat "ccmpi-$n-sw" h1r0 RX 2)
    sunk0=$(sunk) err0=$(sndbuf)
    run "$CLUSTER" exec "$n-h1" "for i in \$(seq 1 2000); do echo x >/dev/udp/${a2%/*}/9; done"
    rx1=$(port_stat "ccmpi-$n-sw" h1r0 RX 2)
    sunk1=$(sunk) err1=$(sndbuf)
    got=$((rx1 - rx0 - ${sunk1:-0} + ${sunk0:-0}))
    [ "$got" -ge 1500 ] && [ "$got" -le 1700 ] || fail "$got of 2000 packets passed, expected ~1600"
    [ "$((err1 - err0))" -eq 0 ] || fail "the sender saw $((err1 - err0)) of its packets dropped"
    ;;

  dupreorder)
    # 5% duplication and 5% reordering on each direction of each cable (a packet crosses
    # two: 9.75%). 2000 numbered datagrams from h1 to h2, back to back: none lost; each
    # duplicated with p = 9.75%, and every copy again (p/(1-p) copies: ~216); ~195 held
    # back 1 ms, of which those not in the burst's last ms arrive after later ones
    # (measured: 159-190 of them). Bounds: about 4 standard deviations. Then down: no
    # delay line left.
    new_name dr; n=$NAME
    run "$CLUSTER" up --hosts 2 --rate 100mbit --dup 5% --reorder 5% --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    dl=$(sed -n 's/^cfg_delayline_pid=//p' "/run/ccmpi-cluster/$n/config")
    if ! grep -q '^cfg_netem=yes' "/run/ccmpi-cluster/$n/config"; then
      [ -n "$dl" ] && [ -d "/proc/$dl" ] || fail "no delay line running"
    fi
    a2=$(ip -n "ccmpi-$n-h2" -4 -o addr show dev r0 | awk '{print $4}')
    mac2=$(ip -n "ccmpi-$n-h2" -o link show r0 | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
    ip -n "ccmpi-$n-h1" neigh replace "${a2%/*}" lladdr "$mac2" dev r0 nud permanent ||
      fail "cannot set the neighbour entry"
    seq_py="$(dirname "${BASH_SOURCE[0]}")/udp_seq.py"
    "$CLUSTER" exec "$n-h2" python3 "$seq_py" recv 9400 "$WORK/ready" 2 >"$WORK/seq" 2>&1 &
    BG_PIDS+=("$!")
    for _ in $(seq 1 100); do [ -e "$WORK/ready" ] && break; sleep 0.1; done
    [ -e "$WORK/ready" ] || fail "the receiver did not start"
    run "$CLUSTER" exec "$n-h1" python3 "$seq_py" send "${a2%/*}" 9400 2000
    [ "$RC" -eq 0 ] || fail "the sender failed"
    wait "${BG_PIDS[-1]}"
    read -r _ received _ unique _ dups _ reordered <"$WORK/seq" || fail "no result: $(cat "$WORK/seq")"
    echo "received $received unique $unique duplicates $dups reordered $reordered" >&2
    [ "$unique" -eq 2000 ] || fail "$unique of 2000 datagrams arrived"
    [ "$dups" -ge 150 ] && [ "$dups" -le 290 ] || fail "$dups duplicates, expected ~216"
    [ "$reordered" -ge 110 ] && [ "$reordered" -le 260 ] || fail "$reordered reordered, expected ~170"
    "$CLUSTER" down --name "$n" >/dev/null 2>&1
    # Gone, or a zombie its new parent (init) has not reaped yet.
    [ -z "$dl" ] || [ "$(awk '{print $3}' "/proc/$dl/stat" 2>/dev/null)" = Z ] ||
      [ ! -e "/proc/$dl" ] || fail "the delay line $dl outlived down"
    nothing_left "$n"
    ;;

  mpi)
    : "${MPIRUN:?}" "${P2P_ORDER:?}" "${P2P_EXCHANGE:?}" "${P2P_EAGER_PARTS:?}" "${CLUSTER_HOSTS:?}"
    new_name mp; n=$NAME
    run "$CLUSTER" up --hosts 4 --rate 100mbit --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    hostfile=$(cat "$WORK/out")
    # Bytes the switch port of host K received from it.
    sent_by() { port_stat "ccmpi-$n-sw" "h${1}r0" RX 1; }
    for k in 1 2 3 4; do before[k]=$(sent_by "$k"); done
    CCMPI_LINK_MBITS=100 run timeout 60 "$MPIRUN" --hostfile "$hostfile" \
      --launcher "$CLUSTER exec" --iface r0 -n 4 "$CLUSTER_HOSTS" 4 "$n-h"
    [ "$RC" -eq 0 ] && grep -q "^PASS cluster_hosts" "$WORK/out" || fail "cluster_hosts: rc $RC"
    grep -q "^hosts: 0=$n-h1 1=$n-h2 2=$n-h3 3=$n-h4$" "$WORK/out" || fail "placement"
    grep -q "^link: 100 declared CCMPI_LINK_MBITS$" "$WORK/out" || fail "link rate (declared)"
    # Not declared (nothing set, as exec sets nothing; and 0): every rank finds the 100mbit
    # tbf shaper on its cable.
    for declared in "-u CCMPI_LINK_MBITS" CCMPI_LINK_MBITS=0; do
      # shellcheck disable=SC2086 # two words or one
      run env $declared timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" \
        --iface r0 -n 4 "$CLUSTER_HOSTS" 4 "$n-h"
      [ "$RC" -eq 0 ] && grep -q "^PASS cluster_hosts" "$WORK/out" ||
        fail "cluster_hosts (found, $declared): rc $RC"
      grep -q "^link: 100 found tbf qdisc on r0 (its NIC reports 10000 Mbit/s) (slowest of 4 ranks)$" \
        "$WORK/out" || fail "link rate (found, $declared): $(grep '^link:' "$WORK/out")"
    done
    # Neither shaper nor NIC speed looked at: the hosts' packet trains measure it (within 5%).
    # A train is timed by the receiving kernel; a machine busy with other work can stretch
    # one (92 Mbit/s measured once while a sanitizer build ran beside the suite), so a
    # figure off by more than 5% is measured once more before the case fails.
    for attempt in 1 2; do
      CCMPI_LINK_MBITS=0 CCMPI_LINK_FIND=probe run timeout 60 "$MPIRUN" --hostfile "$hostfile" \
        --launcher "$CLUSTER exec" --iface r0 -n 4 "$CLUSTER_HOSTS" 4 "$n-h"
      [ "$RC" -eq 0 ] && grep -q "^PASS cluster_hosts" "$WORK/out" ||
        fail "cluster_hosts (probe): rc $RC"
      awk '$1 == "link:" && $3 == "found" && / packet train from rank / && $2 >= 95 && $2 <= 105 {ok = 1}
        END {exit !ok}' "$WORK/out" && break
      if [ "$attempt" -eq 2 ]; then
        fail "link rate (probe): $(grep '^link:' "$WORK/out")"
      fi
      echo "link rate (probe) off, measuring again: $(grep '^link:' "$WORK/out")"
    done
    # Every host sent its 1 MiB ring message through its switch port.
    for k in 1 2 3 4; do
      sent=$(($(sent_by "$k") - before[k]))
      [ "$sent" -ge 1048576 ] || fail "host $k sent only $sent bytes through the switch"
    done
    run timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      "$P2P_ORDER"
    [ "$RC" -eq 0 ] && grep -q "^PASS p2p_order" "$WORK/out" || fail "p2p_order: rc $RC"
    # Exchanges of 300 KiB between hosts: the earlier side's stream waits for the later
    # side's request (p2p.cc, "exchanges"), and some stream was started by it.
    run timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      --env CCMPI_P2P_STATS=1 "$P2P_EXCHANGE"
    [ "$RC" -eq 0 ] && grep -q "^PASS p2p_exchange" "$WORK/out" || fail "p2p_exchange: rc $RC"
    sed -n 's/^ccmpi-p2p: rank=.* exchange_held=\([0-9]*\) exchange_freed=\([0-9]*\).*/\1 \2/p' \
      "$WORK/err" | awk '{ held += $1; freed += $2 } END { exit !(held > 0 && freed > 0) }' ||
      fail "p2p_exchange: no stream held and freed: $(grep '^ccmpi-p2p' "$WORK/err")"
    # Eager messages above a DATA frame (16 KiB on the paced 100mbit links) go in parts,
    # the default between hosts (p2p.cc, EagerParts).
    run timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      --env CCMPI_P2P_STATS=1 "$P2P_EAGER_PARTS"
    [ "$RC" -eq 0 ] && grep -q "^PASS p2p_eager_parts" "$WORK/out" || fail "p2p_eager_parts: rc $RC"
    sed -n 's/^ccmpi-p2p: rank=0 .* eager_parted=\([0-9]*\).*/\1/p' "$WORK/err" |
      awk '$1 > 0 { ok = 1 } END { exit !ok }' ||
      fail "p2p_eager_parts: rank 0 sent nothing in parts: $(grep '^ccmpi-p2p' "$WORK/err")"
    # TCP pacing (CCMPI_TCP_PACING=auto): every connection to another host is paced at the
    # TCP payload rate of the 100mbit link the cluster announces; with off, none is.
    want=$(awk 'BEGIN { printf "%d", 100e6 / 8 * 1448 / 1538 }')
    for mode in auto off found; do
      declared=100 pacing=$mode
      [ "$mode" = found ] && declared=0 pacing=auto
      CCMPI_LINK_MBITS=$declared run timeout 60 "$MPIRUN" --hostfile "$hostfile" \
        --launcher "$CLUSTER exec" --iface r0 -n 4 --env CCMPI_P2P_STATS=1 \
        --env CCMPI_TCP_PACING=$pacing "$P2P_ORDER"
      [ "$RC" -eq 0 ] && grep -q "^PASS p2p_order" "$WORK/out" || fail "p2p_order ($mode): rc $RC"
      [ "$(grep -c '^ccmpi-p2p: rank=' "$WORK/err")" -eq 4 ] || fail "no p2p stats ($mode)"
      bad=$(sed -n 's/^ccmpi-p2p: rank=\([0-9]*\) .*tcp_remote=\([0-9]*\) tcp_paced=\([0-9]*\) pacing_Bps=\([0-9]*\).*/\1 \2 \3 \4/p' \
        "$WORK/err" | awk -v m=$mode -v w="$want" \
        '$2 < 1 || (m != "off" && ($3 != $2 || $4 != w)) || (m == "off" && ($3 != 0 || $4 != 0))')
      [ -z "$bad" ] || fail "pacing ($mode, rank remote paced rate; want rate $want): $bad"
    done
    # Two ranks per host (8 ranks on 4 hosts).
    run timeout 60 "$MPIRUN" --launcher "$CLUSTER exec" --iface r0 -n 8 \
      -H "$n-h1:2,$n-h2:2,$n-h3:2,$n-h4:2" "$CLUSTER_HOSTS" 4 "$n-h"
    [ "$RC" -eq 0 ] && grep -q "^PASS cluster_hosts" "$WORK/out" || fail "8 ranks: rc $RC"
    # Hosts that send frames (--no-gso) are shaped by an htb class: found there too.
    new_name mq; m=$NAME
    run "$CLUSTER" up --hosts 2 --rate 25mbit --no-gso --name "$m" --owner $$
    [ "$RC" -eq 0 ] || fail "up (--no-gso) failed"
    CCMPI_LINK_MBITS=0 run timeout 60 "$MPIRUN" --hostfile "$(cat "$WORK/out")" \
      --launcher "$CLUSTER exec" --iface r0 -n 2 "$CLUSTER_HOSTS" 2 "$m-h"
    [ "$RC" -eq 0 ] && grep -q "^PASS cluster_hosts" "$WORK/out" || fail "cluster_hosts (htb): rc $RC"
    grep -q "^link: 25 found htb qdisc on r0 (its NIC reports 10000 Mbit/s) (slowest of 2 ranks)$" \
      "$WORK/out" || fail "link rate (htb): $(grep '^link:' "$WORK/out")"
    ;;

  rma)
    : "${MPIRUN:?}" "${RMA:?}" "${RMA_ASYNC:?}"
    new_name rm; n=$NAME
    run "$CLUSTER" up --hosts 4 --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    hostfile=$(cat "$WORK/out")
    run timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      "$RMA"
    [ "$RC" -eq 0 ] && grep -q "^PASS rma" "$WORK/out" || fail "rma: rc $RC"
    run timeout 60 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      --env CCMPI_ASYNC_PROGRESS=1 "$RMA_ASYNC"
    [ "$RC" -eq 0 ] && grep -q "^PASS rma_async" "$WORK/out" || fail "rma_async: rc $RC"
    ;;
  mcast)
    # Reliable multicast across 4 hosts with 1% loss, 1% duplication and 1% reordering on
    # every cable, then 5% loss: every Bcast and Scatterv (static, dynamic and the MPIX
    # compiler-assisted calls) delivers exactly the root's bytes (the programs check), and
    # repairs happened; bounded by timeouts, so a hang fails.
    : "${MPIRUN:?}" "${MCAST_BCAST:?}" "${MCAST_SCATTERV:?}"
    for spec in "1% 1% 1% 2000 200" "5% 0% 0% 500 50"; do
      read -r loss dup reorder nb ns <<<"$spec"
      new_name mc; n=$NAME
      run "$CLUSTER" up --hosts 4 --rate 100mbit --loss "$loss" --dup "$dup" --reorder "$reorder" \
        --name "$n" --owner $$
      [ "$RC" -eq 0 ] || fail "up failed"
      hostfile=$(cat "$WORK/out")
      run timeout 240 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
        -x CCMPI_BCAST_ALGORITHM=mcast "$MCAST_BCAST" loss "$nb"
      [ "$RC" -eq 0 ] && grep -q "^PASS mcast_bcast" "$WORK/out" ||
        fail "mcast_bcast with $loss loss: rc $RC"
      naks=$(sed -n 's/.*naks \([0-9]*\),.*/\1/p' "$WORK/out")
      [ "${naks:-0}" -gt 0 ] || fail "no repair with $loss loss"
      run timeout 240 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
        "$MCAST_SCATTERV" "$ns" lossy
      [ "$RC" -eq 0 ] && grep -q "^PASS mcast_scatterv" "$WORK/out" ||
        fail "mcast_scatterv with $loss loss: rc $RC"
      "$CLUSTER" down --name "$n" >/dev/null 2>&1
    done
    # Communicators freed and created again reuse their context id and multicast group:
    # with 5% duplication and reordering, late datagrams of a freed one reach the next
    # (26 to 38 of 600 broadcasts were wrong before the epoch in every key).
    new_name mc; n=$NAME
    run "$CLUSTER" up --hosts 4 --rate 100mbit --dup 5% --reorder 5% --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    hostfile=$(cat "$WORK/out")
    run timeout 240 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 4 \
      -x CCMPI_BCAST_ALGORITHM=mcast "$MCAST_BCAST" churn 150
    [ "$RC" -eq 0 ] && grep -q "^PASS mcast_bcast" "$WORK/out" ||
      fail "mcast_bcast churn under duplication and reordering: rc $RC: $(tail -3 "$WORK/err")"
    "$CLUSTER" down --name "$n" >/dev/null 2>&1
    ;;

  synloss)
    # A lost SYN costs a connection's first message 1 s (the kernel's first SYN
    # retransmission); ccmpi replaces an attempt unanswered after CCMPI_TCP_SYN_RETRY_MS
    # (100 ms) by a new one. The switch drops every SYN to h2 (IPv4 TCP segments with SYN
    # set and ACK clear) until rank 0 on h1 has said it is about to send its first message
    # to rank 1 on h2.
    first_contact_dropping sy SYN 800 "the kernel's SYN retransmission: 1000" \
      "11,40 0 0 12,21 0 8 2048,48 0 0 14,21 0 6 69,48 0 0 23,21 0 4 6,48 0 0 47,84 0 0 18,21 0 1 2,6 0 0 65538,6 0 0 0"
    grep -q "connection to rank 1: no answer to its SYN within 100 ms; trying again" "$WORK/err" ||
      fail "the attempt was not replaced"
    ;;

  ackloss)
    # A lost last ACK of the TCP handshake: the acceptor's socket is not open until its
    # SYN-ACK is retransmitted (1 s) unless data from the connector carries the ACK
    # (ccmpi's preamble frame). The switch drops every pure ACK to h2 (IPv4 TCP, ACK alone,
    # 52 bytes: the handshake's, with timestamps) until 50 ms after rank 0 on h1 has said
    # it is about to send its first message to rank 1 on h2.
    first_contact_dropping ak ACK 500 "the SYN-ACK retransmission: 1000" \
      "10,40 0 0 12,21 0 7 2048,48 0 0 23,21 0 5 6,40 0 0 16,21 0 3 52,48 0 0 47,21 0 1 16,6 0 0 65538,6 0 0 0"
    ;;

  faults)
    # The reliability campaign's fault injections (bench/reliability/run.py --faults) on
    # 2 hosts: a rank, a launch proxy or mpirun killed ends the job with a non-zero status
    # (and a message naming the rank or proxy) leaving no process and nothing in /dev/shm;
    # a cable down for 2 s is survived with every byte checked; a cable down for good ends
    # the job within the fault timeout, naming the host (CCMPI_TCP_USER_TIMEOUT_MS 8 s here).
    : "${RELIABILITY:?}"
    run timeout 280 python3 "$RELIABILITY" --build "$(dirname "$CLUSTER")/.." --settings "" \
      --hostile "" --soak "" --impls ccmpi --fault-hosts 2 --fault-iters 600 --fault-timeout 40 --out "$WORK/rel" \
      --env CCMPI_TCP_USER_TIMEOUT_MS=8000
    [ "$RC" -eq 0 ] || fail "a fault did not end as expected (rc $RC)"
    for f in rank proxy mpirun cable2s cable; do
      grep -q "^fault $f .*as expected True" "$WORK/out" || fail "fault $f"
    done
    grep -q "^fault rank .*rank [0-9]* (host .*) was killed by signal 9" "$WORK/out" ||
      fail "the killed rank was not named"
    grep -q "^fault proxy .*lost connection to the proxy on host" "$WORK/out" ||
      fail "the killed proxy was not named"
    grep -q "^fault cable .*the network path to its host 198\.18\.[0-9.]* is down" "$WORK/out" ||
      fail "the host behind the cable was not named"
    grep -q "^## Fault injection" "$WORK/rel/README.md" || fail "no fault table"
    ;;

  hostile)
    # The campaign's hostile peers and soak (bench/reliability/run.py --hostile, --soak),
    # small: 2 ranks on 3 hosts while hostile.py holds 600 idle connections to their
    # listeners from the third; the soak on this machine. Every byte checked, at most
    # 6 lines per rank about the intruders (5 reported, then a total).
    : "${RELIABILITY:?}"
    run timeout 250 python3 "$RELIABILITY" --build "$(dirname "$CLUSTER")/.." --settings "" \
      --faults "" --hostile none,halfopen --soak host --soak-p2p 20000 --soak-each 100 \
      --hosts 2 --iters 100 --reps 1 --impls ccmpi --out "$WORK/rel"
    [ "$RC" -eq 0 ] || fail "the campaign failed (rc $RC)"
    grep -q "^hostile halfopen rep 0: [0-9.]* s, errors 0, rc 0, " "$WORK/out" || fail "halfopen run"
    conns=$(sed -n 's/^hostile halfopen .*attacker \([0-9]*\) connections.*/\1/p' "$WORK/out")
    [ "${conns:-0}" -ge 600 ] || fail "the attacker opened ${conns:-0} connections, expected 600"
    lines=$(sed -n 's/^hostile halfopen .*stderr \([0-9]*\) lines.*/\1/p' "$WORK/out")
    [ "${lines:-99}" -le 12 ] || fail "$lines lines on stderr about 600 intruders"
    grep -q "^soak host: .*errors 0" "$WORK/out" || fail "soak"
    grep -q "^## Hostile peers" "$WORK/rel/README.md" && grep -q "^## Soak" "$WORK/rel/README.md" ||
      fail "no hostile or soak table"
    ;;

  lossdetect)
    # A rank whose connections retransmit more than CCMPI_LOSSY_RETRANS (1%) of their
    # segments counts the network as lossy (its Alltoall then posts every exchange at
    # once): 3 hosts at 10% loss per cable, tests/mpi/coll_lossy.c (Alltoall and Alltoallv,
    # every byte checked); without loss no rank says so.
    : "${MPIRUN:?}" "${COLL_LOSSY:?}"
    for loss in 10% 0%; do
      new_name ld; n=$NAME
      run "$CLUSTER" up --hosts 3 --rate 100mbit --loss "$loss" --name "$n" --owner $$
      [ "$RC" -eq 0 ] || fail "up failed"
      hostfile=$(cat "$WORK/out")
      # At 10% per cable (about 19% per path) a segment lost 6-7 times in a row stalls a
      # connection past the default 20 s CCMPI_TCP_USER_TIMEOUT_MS (one CI run, 2026-11-27,
      # ended so); this test is about detection, so it allows 50 s, and the run 100 s
      # (3-12 s as a rule; one ASan run beside another cluster test took over 60 s).
      CCMPI_VERBOSE=2 CCMPI_ALLTOALL_ALGORITHM=pairwise CCMPI_TCP_USER_TIMEOUT_MS=50000 \
        run timeout 100 "$MPIRUN" \
        --hostfile "$hostfile" --launcher "$CLUSTER exec" --iface r0 -n 3 "$COLL_LOSSY"
      [ "$RC" -eq 0 ] && grep -q "^PASS coll_lossy" "$WORK/out" || fail "coll_lossy ($loss): rc $RC"
      lossy=$(grep -c "segments retransmitted on this rank's connections; the network counts as lossy" "$WORK/err")
      if [ "$loss" = 0% ]; then
        [ "$lossy" -eq 0 ] || fail "a rank counted a lossless network as lossy"
      else
        [ "$lossy" -ge 1 ] || fail "no rank counted the network as lossy at $loss"
      fi
      "$CLUSTER" down --name "$n" >/dev/null 2>&1
    done
    ;;

  check)
    new_name ck; n=$NAME
    run "$CLUSTER" up --hosts 2 --rate 20mbit --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed"
    # Up to 3 tries: on a loaded machine a round can lack CPU and fall short of the rate
    # (a figure above the rate, or a broken shaper, fails every try).
    for try in 1 2 3; do
      run timeout 60 "$CLUSTER" check --name "$n" --seconds 1.5 --tolerance 10
      [ "$RC" -eq 0 ] && break
      grep -q "^result: .* off by more than" "$WORK/out" || break
      awk '/<-- off/ { i = $2 == "*"; if ($(3+i) > 110 || $(5+i) > 110) exit 1 }' "$WORK/out" || break
      echo "try $try: some figures below the rate, again" >&2
      cat "$WORK/out" >&2
    done
    # A machine too loaded to reach the rate in 3 tries is not a failure of the cluster
    # (timing goals live in benchmarks): then every figure must still show the shaper at
    # work, between 25% and 110% of the rate; above it, or far below, is a failure.
    if ! { [ "$RC" -eq 0 ] && grep -q "^result: all 4 figures within 10%" "$WORK/out"; }; then
      grep -q "^result: .* off by more than" "$WORK/out" || fail "check: rc $RC"
      awk '/^  '"$n"'-h[12] / { n++; i = $2 == "*"; if ($(3+i) < 25 || $(3+i) > 110 || $(5+i) < 25 || $(5+i) > 110) bad = 1 }
        END { exit !(n == 2 && !bad) }' "$WORK/out" || fail "check: rc $RC, figures out of 25-110%"
      echo "note: the machine was too loaded to reach the rate; figures within 25-110%" >&2
    fi
    [ "$(grep -c "^  $n-h[12] " "$WORK/out")" -eq 2 ] || fail "check did not report both hosts"
    cat "$WORK/out"
    # Two rails measured at once (--all-rails): both rails' cables in the same rounds,
    # every figure the shaper's (25-110% of the rate, as above).
    run "$CLUSTER" down --name "$n"
    new_name ck2; n=$NAME
    run "$CLUSTER" up --hosts 2 --rails 2 --rate 20mbit --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up (2 rails) failed"
    run timeout 90 "$CLUSTER" check --name "$n" --seconds 1 --tolerance 10 --all-rails --no-incast
    [ "$RC" -le 1 ] || fail "check --all-rails: rc $RC"
    cat "$WORK/out"
    grep -q "^check of cluster $n: 2 hosts, 2 rail(s) checked at once" "$WORK/out" ||
      fail "check --all-rails: no header"
    [ "$(grep -c "^rail [01], cables (.*, on 2 rails at once;" "$WORK/out")" -eq 2 ] ||
      fail "check --all-rails: not both rails at once"
    # (a row of a cable measured again alone has a "*" after the host)
    awk '/^  '"$n"'-h[12]/ { n++; i = $2 == "*"; if ($(3+i) < 25 || $(3+i) > 110 || $(5+i) < 25 || $(5+i) > 110) bad = 1 }
      END { exit !(n == 4 && !bad) }' "$WORK/out" || fail "check --all-rails: figures"
    run "$CLUSTER" check --name "$n" --rail 0 --all-rails
    [ "$RC" -ne 0 ] && grep -q "exclude each other" "$WORK/err" ||
      fail "--rail with --all-rails: rc $RC"
    ;;

  bench)
    : "${BENCH:?}"
    bname=t$$p  # our own cluster: other tests' clusters may coexist
    run timeout 120 "$BENCH" --quick --reps 1 --rate 100mbit --cluster-name "$bname" --out "$WORK/results" p2p
    [ "$RC" -eq 0 ] || fail "ccmpi-bench: rc $RC"
    csv="$WORK/results/results.csv"
    [ "$(head -1 "$csv")" = "impl,test,size,median,min,max,reps,bound,of_bound" ] || fail "csv header"
    impls=(ccmpi)
    command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi >/dev/null && impls+=(openmpi)
    for impl in "${impls[@]}"; do
      for test in latency bw bibw; do
        grep -q "^$impl,$test,[0-9]*,[0-9.]*," "$csv" || fail "no $impl $test rows"
      done
      # 64 KiB messages cannot beat the link: bw at most the bound (+2% for timing).
      awk -F, -v i="$impl" '$1 == i && $2 == "bw" && $3 == 65536 { found = 1; if ($9 > 1.02) bad = 1 }
        END { exit !(found && !bad) }' "$csv" || fail "$impl bw 64 KiB above the link bound"
    done
    grep -q "^| bw (MB/s) | 65536 B |" "$WORK/results/README.md" || fail "README table"
    ip netns list | grep -q "^ccmpi-$bname-" && fail "ccmpi-bench left its cluster $bname"
    ;;

  bench_coll)
    : "${BENCH:?}"
    bname=t$$s  # our own cluster: other tests' clusters may coexist
    run timeout 280 "$BENCH" --quick --reps 1 --rate 100mbit --cluster-name "$bname" --out "$WORK/results" scatter
    [ "$RC" -eq 0 ] || fail "ccmpi-bench: rc $RC"
    csv="$WORK/results/results.csv"
    [ "$(head -1 "$csv")" = "impl,test,hosts,size,median_us,min_us,max_us,reps,bound_us,of_bound" ] ||
      fail "csv header"
    impls=(ccmpi)
    if command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi >/dev/null; then
      impls+=(openmpi)
      # The sweep covers every scatter algorithm ompi_info lists, and the best one ran.
      n_algs=$(ompi_info --param coll tuned --level 9 | grep -A4 '"coll_tuned_scatter_algorithm"' |
        grep -m1 'Valid values' | grep -o '[0-9]*:"' | grep -vc '^0:')
      sweep="$WORK/results/openmpi-sweep.csv"
      [ "$n_algs" -ge 2 ] && [ "$(grep -c '^scatter,4,4096,1,' "$sweep")" -eq "$n_algs" ] ||
        fail "sweep: $(cat "$sweep" 2>&1)"
      for size in 50 4096; do
        awk -F, -v s="$size" '$1 == "openmpi-best" && $2 == "scatter" && $3 == 4 && $4 == s && $5 > 0 { f = 1 }
          END { exit !f }' "$csv" || fail "no openmpi-best scatter $size row"
      done
    fi
    command -v mpiexec.mpich >/dev/null && command -v mpicc.mpich >/dev/null && impls+=(mpich)
    for impl in "${impls[@]}"; do
      for test in scatter scatterv5; do
        for size in 50 4096; do
          # bound_us: scatter (N-1)s/B, scatterv5 to the 3 non-root ranks of 4: also 3s/B.
          awk -F, -v i="$impl" -v t="$test" -v s="$size" '
            $1 == i && $2 == t && $3 == 4 && $4 == s && $5 > 0 && $6 > 0 && $6 <= $5 && $7 >= $5 &&
            $9 > 0.9 * 3 * s / 11.769 && $9 < 1.1 * 3 * s / 11.769 { f = 1 } END { exit !f }' "$csv" ||
            fail "no valid $impl $test $size row"
        done
      done
    done
    grep -q "^| scatter | 4 | 4 KiB | 1.04 |" "$WORK/results/README.md" || fail "README table"
    # scatterv5-mpix (MPIX_Scatterv_data_movement): ccmpi only, bound as scatterv5.
    for size in 50 4096; do
      awk -F, -v s="$size" '
        $1 == "ccmpi" && $2 == "scatterv5-mpix" && $3 == 4 && $4 == s && $5 > 0 &&
        $9 > 0.9 * 3 * s / 11.769 && $9 < 1.1 * 3 * s / 11.769 { f = 1 } END { exit !f }' "$csv" ||
        fail "no valid ccmpi scatterv5-mpix $size row"
    done
    awk -F, '$2 == "scatterv5-mpix" && $1 != "ccmpi" { exit 1 }' "$csv" ||
      fail "scatterv5-mpix ran for another implementation or variant"
    grep -q "^| 4 | 4 KiB | 1.04 | [0-9.]*, [0-9]*% |" "$WORK/results/README.md" ||
      fail "README: no Figure 10 row with the compiler-assisted figure"
    [ -s "$WORK/results/scatter.svg" ] || fail "no plot"
    ip netns list | grep -q "^ccmpi-$bname-" && fail "ccmpi-bench left its cluster $bname"
    ;;

  rails)
    : "${MPIRUN:?}" "${RAILS:?}" "${CCMPI_INFO:?}" "${COLL_BCAST:?}" "${COLL_REDUCE:?}" "${COLL_ALLTOALL:?}"
    new_name rl; n=$NAME
    run "$CLUSTER" up --hosts 3 --rails 2 --rate 200mbit --name "$n" --owner $$
    [ "$RC" -eq 0 ] || fail "up failed (rc $RC)"
    hostfile=$(cat "$WORK/out")
    # Bytes NIC $2 of host $1 sent, read in the host's namespace.
    nic_tx() { ip netns exec "ccmpi-$n-h$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }
    # Each host finds both NICs as rails, with the rate of their shapers.
    run "$CLUSTER" exec "$n-h2" "$CCMPI_INFO" --rails
    [ "$RC" -eq 0 ] || fail "ccmpi_info --rails: rc $RC"
    grep -q "^0 r0 198\.1[89]\.[0-9]*\.2/24 200$" "$WORK/out" &&
      grep -q "^1 r1 198\.1[89]\.[0-9]*\.2/24 200$" "$WORK/out" || fail "rails of h2"
    [ "$(wc -l <"$WORK/out")" -eq 2 ] || fail "rails of h2: not two lines"
    # run_rails LABEL MIN_R1 MAX_R1 ARGS...: the program on the 3 hosts passes, every host's
    # NICs both sent at least 6 MiB (r1 between MIN_R1 and MAX_R1 bytes).
    run_rails() {
      local label=$1 min1=$2 max1=$3 k d0 d1
      shift 3
      for k in 1 2 3; do b0[k]=$(nic_tx $k r0); b1[k]=$(nic_tx $k r1); done
      run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
        --env CCMPI_P2P_STATS=1 "$@" "$RAILS"
      [ "$RC" -eq 0 ] && grep -q "^PASS rails_stripe" "$WORK/out" || fail "$label: rc $RC"
      for k in 1 2 3; do
        d0=$(($(nic_tx $k r0) - b0[k]))
        d1=$(($(nic_tx $k r1) - b1[k]))
        echo "$label: host $k sent $d0 bytes on r0, $d1 on r1"
        [ "$d0" -ge 6291456 ] && [ "$d1" -ge "$min1" ] && [ "$d1" -le "$max1" ] ||
          fail "$label: host $k sent $d0 bytes on r0, $d1 on r1 (r1 wanted $min1..$max1)"
      done
    }
    # No option: the ranks find the rails themselves and stripe (each rank sends 21 MiB
    # in the ring alone; half goes on each rail of equal rate).
    run_rails "no option" 6291456 100000000
    [ "$(grep -c '^ccmpi-p2p: rank=.* striped=[1-9][0-9]* restriped=0 rails_opened=[1-9]' "$WORK/err")" -eq 3 ] ||
      fail "no option: not every rank striped: $(grep '^ccmpi-p2p' "$WORK/err")"
    # The rails named, as mpirun --iface takes them.
    run_rails "--iface r0,r1" 6291456 100000000 --iface r0,r1
    # Two ranks on host 1 (shared memory between them, no rails) and one on each other host.
    run timeout 120 "$MPIRUN" --launcher "$CLUSTER exec" -n 4 -H "$n-h1:2,$n-h2:1,$n-h3:1" \
      --env CCMPI_P2P_STATS=1 "$RAILS"
    [ "$RC" -eq 0 ] && grep -q "^PASS rails_stripe" "$WORK/out" || fail "4 ranks on 3 hosts: rc $RC"
    [ "$(grep -c '^ccmpi-p2p: rank=.* striped=[1-9]' "$WORK/err")" -ge 3 ] ||
      fail "4 ranks on 3 hosts: too few ranks striped: $(grep '^ccmpi-p2p' "$WORK/err")"
    # Striping off: r1 carries nothing of the transfers (ARP and the like at most).
    run_rails "CCMPI_STRIPE=0" 0 65536 --env CCMPI_STRIPE=0
    [ "$(grep -c '^ccmpi-p2p: rank=.* striped=0 restriped=0 rails_opened=0 ' "$WORK/err")" -eq 3 ] ||
      fail "CCMPI_STRIPE=0: striped: $(grep '^ccmpi-p2p' "$WORK/err")"
    # The two-tree broadcast (issue 24): its edges spread over both rails by rail-directed
    # messages (envelope on r0, data on the edge's rail), from every root, every element
    # checked by the program; r1 carries a good part of the bytes.
    for k in 1 2 3; do b1[k]=$(nic_tx $k r1); done
    run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
      --env CCMPI_P2P_STATS=1 --env CCMPI_BCAST_ALGORITHM=two_tree \
      --env CCMPI_BCAST_LANE_SEGMENT=16k "$COLL_BCAST"
    [ "$RC" -eq 0 ] && grep -q "^PASS coll_bcast" "$WORK/out" || fail "two_tree: rc $RC"
    [ "$(grep -c '^ccmpi-p2p: rank=.* rail_directed=[1-9]' "$WORK/err")" -ge 2 ] ||
      fail "two_tree: too few ranks sent on a chosen rail: $(grep '^ccmpi-p2p' "$WORK/err")"
    sent1=0
    for k in 1 2 3; do sent1=$((sent1 + $(nic_tx $k r1) - b1[k])); done
    echo "two_tree: the hosts sent $sent1 bytes on r1"
    [ "$sent1" -ge 1048576 ] || fail "two_tree: r1 carried only $sent1 bytes"
    # Two and three ranks: a parent may send both lanes to one child (and a child both to
    # one parent), on different rails; the segments that leave rail 0 are posted first
    # except to a peer the other lane's send reaches first, whose receives match in lane
    # order. Every element checked, from every root; reductions of every op.
    for np in 2 3; do
      for alg in two_tree two_chain; do
        run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n $np \
          --env CCMPI_BCAST_ALGORITHM=$alg --env CCMPI_BCAST_LANE_SEGMENT=16k "$COLL_BCAST"
        [ "$RC" -eq 0 ] && grep -q "^PASS coll_bcast" "$WORK/out" || fail "$alg on $np: rc $RC"
      done
      run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n $np \
        --env CCMPI_REDUCE_ALGORITHM=two_tree --env CCMPI_ALLREDUCE_ALGORITHM=two_tree \
        --env CCMPI_BCAST_LANE_SEGMENT=16k "$COLL_REDUCE"
      [ "$RC" -eq 0 ] && grep -q "^PASS coll_reduce" "$WORK/out" ||
        fail "two_tree reductions on $np: rc $RC"
    done
    # The job's first communication a two-tree broadcast of 4 MiB from rank 0: the root's
    # edges take both rails from the first segment (its first messages to each peer go by
    # rendezvous, and the CTS, over the connection then open, decides the rail), so host
    # 1 sends half of it, 2 MiB, on r1 (before, 0: every first contact took r0).
    b1[1]=$(nic_tx 1 r1)
    run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
      --env CCMPI_BCAST_ALGORITHM=two_tree --env CCMPI_BCAST_LANE_SEGMENT=16k "$RAILS" first-bcast
    [ "$RC" -eq 0 ] && grep -q "^PASS rails_stripe" "$WORK/out" || fail "first two_tree: rc $RC"
    sent1=$(($(nic_tx 1 r1) - b1[1]))
    echo "first two_tree: the root's host sent $sent1 bytes on r1"
    [ "$sent1" -ge 1800000 ] || fail "first two_tree: the root sent only $sent1 bytes on r1"
    # The phased Alltoall with a phase per rail (phased_rails): its two phases run at once,
    # the second's messages whole on r1, every element of every count checked.
    run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
      --env CCMPI_P2P_STATS=1 --env CCMPI_ALLTOALL_ALGORITHM=phased_rails "$COLL_ALLTOALL"
    [ "$RC" -eq 0 ] && grep -q "^PASS coll_alltoall" "$WORK/out" || fail "phased_rails: rc $RC"
    [ "$(grep -c '^ccmpi-p2p: rank=.* rail_directed=[1-9]' "$WORK/err")" -eq 3 ] ||
      fail "phased_rails: not every rank sent on r1: $(grep '^ccmpi-p2p' "$WORK/err")"
    # rail_down LABEL HOST ROUNDS ARGS...: the program runs ROUNDS rounds on the 3 hosts;
    # host HOST's r1 goes down after round 2, and the job ends with every byte checked.
    rail_down() {
      local label=$1 host=$2 rounds=$3
      shift 3
      "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 --env CCMPI_P2P_STATS=1 \
        --env CCMPI_RAIL_TIMEOUT=2 "$@" >"$WORK/out" 2>"$WORK/err" &
      pid=$!
      BG_PIDS+=("$pid")
      for _ in $(seq 600); do
        grep -q "^round 2$" "$WORK/out" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      grep -q "^round 2$" "$WORK/out" || fail "$label: no round 2"
      ip -n "ccmpi-$n-h$host" link set r1 down || fail "cannot take r1 of h$host down"
      for _ in $(seq 1200); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -0 "$pid" 2>/dev/null && fail "$label: the job did not finish in 120 s"
      wait "$pid"
      RC=$?
      [ "$RC" -eq 0 ] && grep -q "^PASS rails_stripe" "$WORK/out" &&
        grep -q "^round $((rounds - 1))$" "$WORK/out" || fail "$label: rc $RC"
    }
    # failover LABEL HOST ROUNDS ARGS...: rail_down, where the peers' writes to the downed
    # rail time out (CCMPI_RAIL_TIMEOUT=2), the rail is dropped and what went on it goes
    # again on r0.
    failover() {
      local label=$1
      rail_down "$@"
      grep -q '^ccmpi-p2p: rank=.* restriped=[1-9][0-9]* rails_opened=[0-9]* rails_lost=[1-9]' \
        "$WORK/err" || fail "$label: no rail lost and its stripes sent again"
      grep -q "rail 1 (r1) to rank .* failed (" "$WORK/err" || fail "$label: no warning"
      # The receiving end of a failed rail is told on rail 0 and closes it too.
      grep -q "rail 1 (r1) to rank .* failed at rank .*'s end: dropped" "$WORK/err" ||
        fail "$label: the receiving end kept the rail"
    }
    # Striped ring exchanges of 4 MiB.
    failover "failover" 2 40 "$RAILS" rounds 40
    # The two-tree broadcast's rail-directed segments (4 MiB from every root in turn), with
    # host 2's r1 back up (every rank finds two rails again).
    ip -n "ccmpi-$n-h2" link set r1 up || fail "cannot bring r1 of h2 up again"
    failover "two_tree failover" 3 30 --env CCMPI_BCAST_ALGORITHM=two_tree "$RAILS" bcasts 30
    grep -q '^ccmpi-p2p: rank=.* rail_directed=[1-9]' "$WORK/err" ||
      fail "two_tree failover: no rail-directed send"
    # Multicast on both rails (issue 24): every rank's probe finds both lanes, the
    # broadcasts' datagrams take both NICs (r1 carries a good part of them), every element
    # checked by the program. Host 3's r1 comes back up first.
    ip -n "ccmpi-$n-h3" link set r1 up || fail "cannot bring r1 of h3 up again"
    for k in 1 2 3; do b1[k]=$(nic_tx $k r1); done
    run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
      --env CCMPI_MCAST_STATS=1 --env CCMPI_BCAST_ALGORITHM=mcast "$COLL_BCAST"
    [ "$RC" -eq 0 ] && grep -q "^PASS coll_bcast" "$WORK/out" || fail "mcast: rc $RC"
    [ "$(grep -c '^ccmpi-mcast: rank=.* comm_lanes_min=2 comm_lanes_max=2 .* lanes=2$' "$WORK/err")" -eq 3 ] ||
      fail "mcast: not every rank has two lanes: $(grep '^ccmpi-mcast' "$WORK/err")"
    sent1=0
    for k in 1 2 3; do sent1=$((sent1 + $(nic_tx $k r1) - b1[k])); done
    echo "mcast: the hosts sent $sent1 bytes on r1"
    [ "$sent1" -ge 1048576 ] || fail "mcast: r1 carried only $sent1 bytes"
    # A later lane whose probe does not arrive in the first round (a late IGMP join, here
    # injected) is probed again, and the communicators still take both lanes; one that
    # never arrives leaves them on lane 0 alone, with the same results. Blocking and
    # nonblocking agreements alike.
    for alg in BCAST IBCAST; do
      for miss in 1 4; do
        want=$([ "$miss" -eq 1 ] && echo 2 || echo 1)
        run timeout 120 "$MPIRUN" --hostfile "$hostfile" --launcher "$CLUSTER exec" -n 3 \
          --env CCMPI_MCAST_STATS=1 --env CCMPI_VERBOSE=2 --env "CCMPI_${alg}_ALGORITHM=mcast" \
          --env CCMPI_MCAST_TEST_LANE_MISS=$miss "$COLL_BCAST"
        [ "$RC" -eq 0 ] && grep -q "^PASS coll_bcast" "$WORK/out" || fail "lane miss $miss $alg: rc $RC"
        [ "$(grep -c "^ccmpi-mcast: rank=.* comm_lanes_min=$want comm_lanes_max=$want " "$WORK/err")" -eq 3 ] ||
          fail "lane miss $miss $alg: not $want lane(s) on every rank: $(grep '^ccmpi-mcast' "$WORK/err")"
        grep -q "probe round 1: a later lane did not reach every rank by multicast; trying again" \
          "$WORK/err" || fail "lane miss $miss $alg: no second probe round"
      done
    done
    # A rail of one host down under multicast broadcasts of 4 MiB from every root in turn:
    # what that host misses on r1 it is sent again over TCP (repairs), what it sends on r1
    # as root reaches the others, and every byte is checked.
    rail_down "mcast failover" 3 30 --env CCMPI_MCAST_STATS=1 --env CCMPI_BCAST_ALGORITHM=mcast \
      "$RAILS" bcasts 30
    grep -q '^ccmpi-mcast: rank=2 .* repair_bytes_received=[1-9][0-9]\{6,\} ' "$WORK/err" ||
      fail "mcast failover: host 3 was not sent what it missed: $(grep '^ccmpi-mcast' "$WORK/err")"
    ;;

  *)
    fail "unknown case"
    ;;
esac
echo "PASS cluster_$CASE"
