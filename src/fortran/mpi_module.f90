! module mpi (`use mpi`): the constants, sentinels and function types of mpif.h. The
! procedures are the same external ones mpif.h programs call (the C glue, mpi_x_ symbols),
! except MPI_SIZEOF, which only a module can give (it takes any type, kind and rank).
module mpi
  implicit none
  include 'mpif.h'
contains
  subroutine MPI_Sizeof(x, size, ierror)
    class(*), intent(in) :: x(..)
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    size = storage_size(x) / 8
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine
end module mpi
