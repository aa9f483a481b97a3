! module mpi (`use mpi`): the constants, sentinels and function types of mpif.h. The
! procedures are the same external ones mpif.h programs call (the C glue, mpi_x_ symbols).
module mpi
  implicit none
  include 'mpif.h'
end module mpi
