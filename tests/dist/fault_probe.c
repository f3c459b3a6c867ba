/* A training-like loop of allreduces in which one rank fails on purpose, for tests/dist/faults.sh.
 *   fault_probe stop|die VICTIM_RANK STEP
 * At step STEP the victim stops answering (SIGSTOP) or dies (SIGKILL). Every other rank must get a
 * status from its allreduce (within dist.timeout_s) rather than hang: it prints the message and
 * the seconds it waited, and exits 3. A rank that completes every step exits 0.
 *   fault_probe release VICTIM_RANK 0
 * The ranks split off a group; the victim stops answering; the others start an asynchronous
 * allreduce on the group and release it without waiting: the release must return (after the
 * timeout), and the call's event must then report the failure. */
#define _POSIX_C_SOURCE 200809L
#include <ndrt/ndrt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s stop|die VICTIM_RANK STEP\n", argv[0]);
    return 2;
  }
  int victim = atoi(argv[2]), at = atoi(argv[3]);
  ndrt_comm world;
  int32_t rank, size;
  if (ndrt_comm_world(&world) || ndrt_comm_rank(world, &rank) || ndrt_comm_size(world, &size)) {
    fprintf(stderr, "setup: %s\n", ndrt_last_error());
    return 2;
  }
  int64_t n = 1 << 18;
  ndrt_handle t;
  if (ndrt_tensor_create(NDRT_F32, 1, &n, NDRT_CPU, &t)) return 2;
  if (strcmp(argv[1], "release") == 0) {
    ndrt_comm group;
    ndrt_event ev;
    if (ndrt_comm_split(world, 0, rank, &group)) return 2;
    if (rank == victim) raise(SIGSTOP);
    if (ndrt_allreduce_async(group, &t, 1, NDRT_REDUCE_SUM, &ev)) return 2;
    double start = now();
    ndrt_status s = ndrt_comm_release(group);
    printf("rank %d: released the group with a call stuck on it after %.1f s: %s\n", (int)rank, now() - start,
           ndrt_status_name(s));
    s = ndrt_event_synchronize(ev);
    printf("rank %d: the call's event: %s: %s\n", (int)rank, ndrt_status_name(s), ndrt_last_error());
    fflush(stdout);
    return 3;
  }
  for (int step = 0; step < at + 20; ++step) {
    if (rank == victim && step == at) {
      fflush(stdout);
      raise(strcmp(argv[1], "stop") == 0 ? SIGSTOP : SIGKILL);
    }
    double start = now();
    ndrt_status s = ndrt_allreduce(world, t, NDRT_REDUCE_MEAN);
    if (s != NDRT_OK) {
      printf("rank %d step %d: %s after %.1f s: %s\n", (int)rank, step, ndrt_status_name(s), now() - start, ndrt_last_error());
      /* The group is broken now: later calls fail at once instead of waiting again. */
      start = now();
      s = ndrt_barrier(world);
      printf("rank %d: next call %s after %.1f s: %s\n", (int)rank, ndrt_status_name(s), now() - start, ndrt_last_error());
      fflush(stdout);
      return 3;
    }
  }
  printf("rank %d: all steps done\n", (int)rank);
  ndrt_tensor_release(t);
  ndrt_comm_release(world);
  return 0;
}
