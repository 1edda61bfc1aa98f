#ifndef GESTURELAB_COPENBLAS_H
#define GESTURELAB_COPENBLAS_H

// The OpenBLAS calls GestureLab makes (Debian: libopenblas0), through libopenblas.so.0 loaded when
// first used: live detection on a CPU with AVX-512 never needs it, and a process that loads it
// starts threads and allocates buffers. Before loading it, one thread is asked for, and where the
// CPU has AVX-512 and OPENBLAS_CORETYPE is unset, the SkylakeX kernels: OpenBLAS 0.3.21 picks its
// Haswell ones on AVX-512 CPUs it does not know, and reads the variable only while it loads.
// GESTURELAB_OPENBLAS_AUTODETECT=1 leaves the choice to OpenBLAS.

#include <stdbool.h>

/// c (`m × n`, row-major) = alpha · op(a) · op(b) + beta · c, as cblas_sgemm.
void gl_openblas_sgemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float *a, int lda,
                       const float *b, int ldb, float beta, float *c, int ldc);

/// y = alpha · op(a) · x + beta · y for a row-major `rows × columns` a, as cblas_sgemv.
void gl_openblas_sgemv(bool transpose, int rows, int columns, float alpha, const float *a, int lda, const float *x,
                       float beta, float *y);

/// The upper triangle (row-major) of c = aᵀ · a + beta · c for a row-major `rows × columns` a, as
/// cblas_ssyrk; the rest of c is left as it was.
void gl_openblas_gram(int rows, int columns, const float *a, float beta, float *c);

/// Solves a · x = b for a symmetric positive definite `n × n` a and `nrhs` right-hand sides, as
/// LAPACK's sposv: b holds each right-hand side's n values in turn and becomes x; a is overwritten.
/// It reads a's lower triangle in LAPACK's column-major order: the upper triangle of a row-major a.
/// Returns LAPACK's info: 0, or i > 0 when a is not positive definite.
int gl_openblas_sposv(int n, int nrhs, float *a, float *b);

/// The kernel family OpenBLAS chose, e.g. "Haswell" or "SkylakeX".
const char *gl_openblas_corename(void);

#endif
