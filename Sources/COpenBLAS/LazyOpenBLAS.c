#include "COpenBLAS.h"

#include "CLearningKernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// CBLAS's enumerations, as every CBLAS defines them.
enum { rowMajor = 101, noTranspose = 111, transpose = 112, upper = 121 };

static struct {
    void (*sgemm)(int order, int transposeA, int transposeB, int m, int n, int k, float alpha, const float *a, int lda,
                  const float *b, int ldb, float beta, float *c, int ldc);
    void (*sgemv)(int order, int transpose, int m, int n, float alpha, const float *a, int lda, const float *x,
                  int incx, float beta, float *y, int incy);
    void (*ssyrk)(int order, int uplo, int transpose, int n, int k, float alpha, const float *a, int lda, float beta,
                  float *c, int ldc);
    char *(*corename)(void);
    void (*sposv)(const char *uplo, const int *n, const int *nrhs, float *a, const int *lda, float *b, const int *ldb,
                  int *info, size_t uploLength);
} openblas;

static void *required(void *library, const char *name) {
    void *address = dlsym(library, name);
    if (!address) {
        fprintf(stderr, "gesture: libopenblas.so.0 has no %s\n", name);
        exit(1);
    }
    return address;
}

static void load(void) {
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
    if (gl_has_avx512f() && !getenv("GESTURELAB_OPENBLAS_AUTODETECT")) setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
    void *library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "gesture: cannot load OpenBLAS (Debian: apt install libopenblas0): %s\n", dlerror());
        exit(1);
    }
    openblas.sgemm = required(library, "cblas_sgemm");
    openblas.sgemv = required(library, "cblas_sgemv");
    openblas.ssyrk = required(library, "cblas_ssyrk");
    openblas.corename = required(library, "openblas_get_corename");
    openblas.sposv = required(library, "sposv_");
}

static void loadOnce(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load);
}

void gl_openblas_sgemm(bool transposeA, bool transposeB, int m, int n, int k, float alpha, const float *a, int lda,
                       const float *b, int ldb, float beta, float *c, int ldc) {
    loadOnce();
    openblas.sgemm(rowMajor, transposeA ? transpose : noTranspose, transposeB ? transpose : noTranspose, m, n, k, alpha,
                   a, lda, b, ldb, beta, c, ldc);
}

void gl_openblas_sgemv(bool transposed, int rows, int columns, float alpha, const float *a, int lda, const float *x,
                       float beta, float *y) {
    loadOnce();
    openblas.sgemv(rowMajor, transposed ? transpose : noTranspose, rows, columns, alpha, a, lda, x, 1, beta, y, 1);
}

void gl_openblas_gram(int rows, int columns, const float *a, float beta, float *c) {
    loadOnce();
    openblas.ssyrk(rowMajor, upper, transpose, columns, rows, 1, a, columns, beta, c, columns);
}

const char *gl_openblas_corename(void) {
    loadOnce();
    return openblas.corename();
}

int gl_openblas_sposv(int n, int nrhs, float *a, float *b) {
    loadOnce();
    int info = 0;
    openblas.sposv("L", &n, &nrhs, a, &n, b, &n, &info, 1);
    return info;
}
