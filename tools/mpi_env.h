/* SPDX-License-Identifier: MIT */
/* mpi_env.h: how the devo command meets MPI. In a build with MPI (DEVO_HAVE_MPI, tools/mpi_*.c)
 * a command started by mpirun (or srun) starts MPI, learns its rank and node-local rank, and
 * spreads its work over the ranks (devo experiment: tools/mpi_experiment.c; devo solve
 * --islands: tools/mpi_islands.c). cli_launcher_size is in every build: a devo without MPI that
 * finds itself one of several ranks refuses to run, so that N copies never write one file. */
#ifndef DEVO_MPI_ENV_H
#define DEVO_MPI_ENV_H

/* The size of the job that a launcher (Open MPI's mpirun, a PMI/PMIx launcher such as srun)
 * started this process in, from its environment; 1 when there is none. */
int cli_launcher_size(void);

#ifdef DEVO_HAVE_MPI
/* MPI_Init_thread (MPI_THREAD_SERIALIZED: one thread at a time calls MPI; devo experiment's
 * workers send a trial's rows from the batch's done callback while the main thread waits; the
 * solver's own threads never call it), once per process (an MPI without it: the one line); rank and
 * size of MPI_COMM_WORLD, and the rank among the ranks of the same node (MPI_Comm_split_type
 * MPI_COMM_TYPE_SHARED: the GPU a rank takes). Returns 0, or prints one line naming cmd and returns
 * exit code 1. */
int cli_mpi_begin(const char *cmd, int *rank, int *size, int *local_rank);
/* MPI_Finalize when cli_mpi_begin started MPI; nothing otherwise. */
void cli_mpi_end(void);
/* Ends every rank of the job with exit code code (MPI_Abort): for an error on one rank that
 * the others cannot learn of through the protocol. */
void cli_mpi_abort(int code);
#endif

#endif
