/* SPDX-License-Identifier: MIT */
/* mpi_env.c: MPI's start and end for the devo command (tools/mpi_env.h); built with MPI only. */
#include "mpi_env.h"

#include <mpi.h>
#include <stdio.h>

#include "cli.h"

static int started;

int cli_mpi_begin(const char *cmd, int *rank, int *size, int *local_rank)
{
  int provided = 0, flag = 0;
  MPI_Comm node;
  MPI_Initialized(&flag);
  if (!flag) {
    /* serialized: devo experiment's workers send a trial's rows from the batch's done callback,
     * on the batch's threads, one at a time */
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
      return cli_runtime_error(cmd, "MPI_Init_thread failed");
    if (provided < MPI_THREAD_SERIALIZED)
      return cli_runtime_error(cmd, "the MPI library offers no MPI_THREAD_SERIALIZED");
    started = 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  *local_rank = 0;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node) ==
      MPI_SUCCESS) {
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_free(&node);
  }
  return 0;
}

void cli_mpi_end(void)
{
  int done = 0;
  MPI_Finalized(&done);
  if (started && !done)
    MPI_Finalize();
}

void cli_mpi_abort(int code)
{
  MPI_Abort(MPI_COMM_WORLD, code);
}
