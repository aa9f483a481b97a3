/*
 * mpix_ccmpi.h: ccmpi extensions to MPI (MPIX_* functions and constants).
 *
 * The extension API is the user-facing side of compiled communication: multicast
 * group management, the split between network-control and data-transmission
 * routines, and precomputed communication plans.
 * Programs may test for CCMPI_MPIX.
 */
#ifndef CCMPI_MPIX_CCMPI_H_INCLUDED
#define CCMPI_MPIX_CCMPI_H_INCLUDED

#include "mpi.h"

#define CCMPI_MPIX 1

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Compiled communication for MPI_Alltoallv (CC-MPI: network control apart from data
 * transmission). A schedule splits an Alltoallv pattern into contention-free phases
 * (every rank sends at most one message and receives at most one per phase); computing
 * it is the network control, moving data by it the data transmission.
 *
 *   Level 1: MPIX_Alltoallv_control1 (collective: allgathers the send sizes, schedules)
 *            then MPIX_Alltoallv_data_trans2 at every exchange.
 *   Level 2: MPIX_Alltoallv_control2 (local: the caller holds the global pattern)
 *            then MPIX_Alltoallv_data_trans2.
 *   Level 3: MPIX_Schedule_load of a file written by `ccmpi-schedule` (computed offline)
 *            then MPIX_Alltoallv_data_trans2.
 *   Point-to-point: MPIX_Alltoallv_data_trans1 (no scheduling).
 *
 * The data routines take MPI_Alltoallv's arguments and are collective on comm; the byte
 * counts (count x type size) of every rank must be those the schedule was made for,
 * else MPI_ERR_ARG naming the rank, the peer and the sizes. A schedule serves any
 * communicator of the size it was made for (this process's rank there may differ).
 * Errors go to comm's error handler and name the MPIX function, the class and the cause.
 *
 * The same through MPI-4 persistent collectives: MPI_Alltoallv_init with the info keys
 *   ccmpi_alltoallv_level = p2p | 1 | 2 | 3
 *   ccmpi_pattern_file    = PATH  (Level 2: "SRC DST BYTES" lines, the global pattern)
 *   ccmpi_schedule_file   = PATH  (Level 3: a ccmpi-schedule output file)
 * computes the schedule once at init (Level 1 allgathers there, so every rank must pass
 * the same level); every MPI_Start only moves data. A level given with a file decides
 * (level 2 needs ccmpi_pattern_file, 3 ccmpi_schedule_file); without any of these keys
 * MPI_Alltoallv_init behaves as before. A missing or bad file, or counts that do not
 * match, fail MPI_Alltoallv_init on every rank (MPI_ERR_OTHER on the ranks that did not
 * see the cause). See docs/compiled-communication.md.
 */
typedef struct ccmpix_schedule *MPIX_Schedule;
#define MPIX_SCHEDULE_NULL ((MPIX_Schedule)0)

int MPIX_Alltoallv_control1(const int sendcounts[], MPI_Datatype sendtype, MPI_Comm comm,
                            MPIX_Schedule *schedule);
/* pattern[src * size + dst] = bytes from src to dst (diagonal ignored), the same on all
 * ranks; no communication. */
int MPIX_Alltoallv_control2(const MPI_Count pattern[], MPI_Comm comm, MPIX_Schedule *schedule);
int MPIX_Schedule_load(const char *path, MPI_Comm comm, MPIX_Schedule *schedule);
/* Phases of a schedule (not counting the final phase of small messages) and whether it
 * has that phase. */
int MPIX_Schedule_get_info(MPIX_Schedule schedule, int *nphases, int *small_phase);
int MPIX_Schedule_free(MPIX_Schedule *schedule);
int MPIX_Alltoallv_data_trans1(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int MPIX_Alltoallv_data_trans2(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPIX_Schedule schedule);

/* ---- Compression of floating-point messages (docs/compression.md) ----
 *
 * With CCMPI_COMPRESS=on|auto (or mpirun --compress on|auto), messages of MPI_DOUBLE,
 * MPI_FLOAT and their Fortran and complex relatives (also derived types made only of
 * one of them) of at least CCMPI_COMPRESS_MIN bytes are compressed between ranks on
 * different connections, transparently. MPIX_Compress_get_stats returns this process's
 * counters since MPI_Init: frames (messages or chunks of large messages) coded and
 * decoded, their original bytes and their bytes on the wire, and the seconds spent
 * coding. CCMPI_COMPRESS_STATS=1 prints the same at MPI_Finalize. */
typedef struct {
  unsigned long long sent_frames, sent_bytes, sent_wire;
  unsigned long long recv_frames, recv_bytes, recv_wire;
  double compress_seconds, decompress_seconds;
  int mode; /* 0 off, 1 on, 2 auto */
} MPIX_Compress_stats;

int MPIX_Compress_get_stats(MPIX_Compress_stats *stats);

/* ---- Multicast collectives (docs/multicast.md) ----
 *
 * MPIX_Mcast_get_stats: this process's reliable-multicast counters since MPI_Init
 * (CCMPI_MCAST_STATS=1 prints them at MPI_Finalize). `available` is 0 when the multicast
 * socket could not be set up on this rank.
 * MPIX_Comm_get_mcast_group: the group address (dotted quad, at least 16 chars) and UDP
 * port of comm's multicast group; MPI_ERR_OTHER when comm has none (multicast does not
 * work on it, or no multicast collective ran on it yet). For tools and tests. */
typedef struct {
  int available;
  unsigned long long sent_packets, sent_bytes, recv_packets, recv_bytes;
  unsigned long long naks_sent, naks_received, repair_bytes_sent, repair_bytes_received;
  unsigned long long drop_foreign, drop_auth, drop_malformed, drop_stale, drop_duplicate,
      drop_ahead, drop_injected, drop_other;
} MPIX_Mcast_stats;

int MPIX_Mcast_get_stats(MPIX_Mcast_stats *stats);

/* Compiler-assisted group management for one-to-many Scatterv (CC-MPI §4.1, Figure 1):
 *
 *   MPIX_Scatterv_open_group(counts, type, rcount, rtype, root, comm, &g);  // once
 *   for (...) MPIX_Scatterv_data_movement(sbuf, counts, displs, type,
 *                                         rbuf, rcount, rtype, g);         // root+members
 *   MPIX_Scatterv_close_group(&g);
 *
 * open_group is collective over comm: the root's sendcounts (significant at the root)
 * decide the members, the ranks with a non-empty block; they join a multicast group of
 * their own. data_movement involves only the root and the members (other ranks may call
 * it: it returns at once) and moves the data with one multicast; the counts and types
 * must give the same block sizes as at open_group. close_group is local. Where multicast
 * does not work on comm the same calls work over TCP. Errors go to comm's error
 * handler. */
typedef struct ccmpix_mcast_group *MPIX_Mcast_group;
#define MPIX_MCAST_GROUP_NULL ((MPIX_Mcast_group)0)

int MPIX_Scatterv_open_group(const int sendcounts[], MPI_Datatype sendtype, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPIX_Mcast_group *group);
int MPIX_Scatterv_data_movement(const void *sendbuf, const int sendcounts[], const int displs[],
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPIX_Mcast_group group);
int MPIX_Scatterv_close_group(MPIX_Mcast_group *group);
int MPIX_Comm_get_mcast_group(MPI_Comm comm, char *address, int *port);

/* ---- The link rate (docs/cluster.md, "The link rate") ----
 *
 * MPIX_Link_get_rate: the line rate in Mbit/s of one host's link that ccmpi's cost models and
 * pacing use (the same on every rank of the job), and where it comes from: `origin` is
 * MPIX_LINK_DECLARED (CCMPI_LINK_MBITS), MPIX_LINK_FOUND (MPI_Init found it: a traffic
 * shaper on the interface or the NIC's speed; the slowest host's) or MPIX_LINK_ASSUMED
 * (nothing found: 100). `how` (may be NULL) receives a description of at most
 * MPI_MAX_INFO_VAL characters and a NUL. */
enum { MPIX_LINK_DECLARED = 1, MPIX_LINK_FOUND = 2, MPIX_LINK_ASSUMED = 3 };
int MPIX_Link_get_rate(double *mbits, int *origin, char *how);

/* ---- Generate_Recv (docs/unstructured.md) ----
 *
 * MPIX_Generate_recv: collective over comm (an intracommunicator). Each rank gives what it
 * will send to every rank (sendcounts[p], any unit); each gets what every rank will send it
 * (recvcounts[p] = rank p's sendcounts[this rank]), e.g. to post the receives of a sparse
 * exchange or an MPI_Alltoallv whose receivers do not know their counts.
 * Two algorithms, forced with CCMPI_GENERATE_RECV_ALGORITHM or the communicator's info hint
 * ccmpi_generate_recv_algorithm: am (default; the CM-5 seed's Figure 1: a reduce-scatter of
 * the send masks, then one short active message per non-empty count) or concat (an
 * allgather of every rank's counts). */
int MPIX_Generate_recv(const int sendcounts[], int recvcounts[], MPI_Comm comm);

/* ---- Active messages (docs/active-messages.md) ----
 *
 * MPIX_Am_register: registers `handler` for active messages on comm and gives its id.
 * Local, but ids are given in registration order: every rank that takes part registers the
 * same handlers in the same order; a message that arrives before its handler is registered
 * waits for the registration. The registration lasts until MPI_Finalize.
 * MPIX_Am_send: sends `len` bytes (at most MPIX_Am_max_payload's) to rank `dest` of comm;
 * the buffer is copied, so it is free on return. On `dest`, handler `id` runs with the
 * source rank, the bytes and its `extra_state` as soon as dest's progress engine sees the
 * message: inside any MPI call that drives progress (a wait, test, probe, blocking
 * send/receive, collective). Handlers run to completion and must not block (no blocking MPI
 * call, no wait); they may call MPIX_Am_send (a reply). Messages from one rank to another
 * for one handler run their handlers in the order they were sent. */
typedef void(MPIX_Am_handler)(int source, const void *payload, int len, void *extra_state);
int MPIX_Am_register(MPI_Comm comm, MPIX_Am_handler *handler, void *extra_state, int *id);
int MPIX_Am_send(MPI_Comm comm, int dest, int id, const void *payload, int len);
int MPIX_Am_max_payload(int *len);

#ifdef __cplusplus
}
#endif

#endif /* CCMPI_MPIX_CCMPI_H_INCLUDED */
