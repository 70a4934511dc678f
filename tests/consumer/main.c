/* SPDX-License-Identifier: MIT */
/* main.c: a program outside devo that links the installed library (tests/consumer/run.sh builds
 * it through find_package and through pkg-config): DE on the 5-dimensional shifted sphere must
 * get close to its minimum 0, and the header must match the library. */
#include <stdio.h>

#include <devo.h>

int main(void)
{
  devo_problem *p = NULL;
  devo_solver *s = NULL;
  double best = -1.0;
  int why;
  if (devo_version_number() != DEVO_VERSION_NUMBER) {
    fprintf(stderr, "consumer: header %s, library %s\n", DEVO_VERSION_STRING, devo_version());
    return 1;
  }
  if (devo_problem_create(&p, NULL) != DEVO_OK ||
      devo_problem_set_builtin(p, "sphere", 5, 1, NULL) != DEVO_OK ||
      devo_solver_create(&s, p, NULL) != DEVO_OK || devo_solver_set_seed(s, 7) != DEVO_OK ||
      devo_solver_set_max_evals(s, 20000) != DEVO_OK) {
    fprintf(stderr, "consumer: set-up failed\n");
    return 1;
  }
  why = devo_solve(s);
  if (why <= 0 || devo_solver_best(s, &best, NULL) != DEVO_OK) {
    fprintf(stderr, "consumer: devo_solve returned %d: %s\n", why, devo_solver_errmsg(s));
    return 1;
  }
  devo_solver_destroy(s);
  devo_problem_destroy(p);
  /* 20,000 evaluations of DE/rand/1/bin take the 5-D sphere from about 1e4 to far below 1e-6 */
  if (!(best >= 0.0 && best < 1e-6)) {
    fprintf(stderr, "consumer: best %.17g, expected in [0, 1e-6)\n", best);
    return 1;
  }
  printf("consumer: devo %s, sphere D=5 best %.3g (status %d)\n", devo_version(), best, why);
  return 0;
}
