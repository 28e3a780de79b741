/* The few BLAS routines the CPU drivers call, declared here so that src/cpu
 * needs no R headers.  They resolve to R's BLAS (reference, OpenBLAS, ...)
 * through PKG_LIBS = $(BLAS_LIBS) $(FLIBS).  Fortran calling convention as
 * gfortran defines it: every argument by reference, and the lengths of the
 * character arguments appended as hidden size_t arguments. */
#ifndef GHMIX_BLAS_H
#define GHMIX_BLAS_H
#include <stddef.h>

void dtrsm_(const char *side, const char *uplo, const char *transa,
            const char *diag, const int *m, const int *n, const double *alpha,
            const double *a, const int *lda, double *b, const int *ldb,
            size_t side_len, size_t uplo_len, size_t transa_len,
            size_t diag_len);

void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda,
            const double *beta, double *c, const int *ldc, size_t uplo_len,
            size_t trans_len);

#endif
