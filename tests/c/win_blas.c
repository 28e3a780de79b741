/* The two BLAS routines src/cpu calls (src/cpu/blas.h), for the Windows
 * build of the C tests (windows.mk), where no BLAS library is at hand:
 * plain loops written from the routines' definitions in the BLAS reference
 * documentation (netlib.org/blas), only for the argument combinations
 * src/cpu passes.  Any other combination stops the test program, so that
 * no result is silently wrong.  The tests compare the BLAS path (d > 48)
 * with their own reference loops to a tolerance, never bit for bit. */
#include <stdio.h>
#include <stdlib.h>

#include "../../src/cpu/blas.h"

static void unsupported(const char *routine, const char *args) {
  fprintf(stderr, "win_blas.c: %s(%s) is not implemented\n", routine, args);
  abort();
}

/* B := alpha B inv(A') for side R, uplo L, transa T, diag N: with A lower
 * triangular, X A' = alpha B is, row by row, the forward substitution
 * x_j = (alpha b_j - sum_{k<j} A[j,k] x_k) / A[j,j]. */
void dtrsm_(const char *side, const char *uplo, const char *transa,
            const char *diag, const int *m, const int *n, const double *alpha,
            const double *a, const int *lda, double *b, const int *ldb,
            size_t side_len, size_t uplo_len, size_t transa_len,
            size_t diag_len) {
  (void)side_len, (void)uplo_len, (void)transa_len, (void)diag_len;
  if (*side != 'R' || *uplo != 'L' || *transa != 'T' || *diag != 'N')
    unsupported("dtrsm", "side, uplo, transa, diag other than R, L, T, N");
  for (int j = 0; j < *n; j++) {
    double *bj = b + (size_t)j * (size_t)*ldb;
    for (int i = 0; i < *m; i++)
      bj[i] *= *alpha;
    for (int k = 0; k < j; k++) {
      const double ajk = a[j + (size_t)k * (size_t)*lda];
      const double *bk = b + (size_t)k * (size_t)*ldb;
      for (int i = 0; i < *m; i++)
        bj[i] -= ajk * bk[i];
    }
    const double ajj = a[j + (size_t)j * (size_t)*lda];
    for (int i = 0; i < *m; i++)
      bj[i] /= ajj;
  }
}

/* The lower triangle of C := alpha A'A + beta C for uplo L, trans T (A is
 * k x n); beta = 0 sets C without reading it, as the reference does. */
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda,
            const double *beta, double *c, const int *ldc, size_t uplo_len,
            size_t trans_len) {
  (void)uplo_len, (void)trans_len;
  if (*uplo != 'L' || *trans != 'T')
    unsupported("dsyrk", "uplo, trans other than L, T");
  for (int j = 0; j < *n; j++) {
    const double *aj = a + (size_t)j * (size_t)*lda;
    for (int i = j; i < *n; i++) {
      const double *ai = a + (size_t)i * (size_t)*lda;
      double *cij = c + i + (size_t)j * (size_t)*ldc;
      double s = 0;
      for (int l = 0; l < *k; l++)
        s += ai[l] * aj[l];
      *cij = (*beta == 0 ? 0 : *beta * *cij) + *alpha * s;
    }
  }
}
