/*
 * mpix_ccmpi.h: ccmpi extensions to MPI (MPIX_* functions and constants).
 *
 * The extension API is the user-facing side of compiled communication: multicast
 * group management, the split between network-control and data-transmission
 * routines, and precomputed communication plans.
 * Nothing is declared here yet; programs may include it to test for CCMPI_MPIX.
 */
#ifndef CCMPI_MPIX_CCMPI_H_INCLUDED
#define CCMPI_MPIX_CCMPI_H_INCLUDED

#include "mpi.h"

#define CCMPI_MPIX 1

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif /* CCMPI_MPIX_CCMPI_H_INCLUDED */
