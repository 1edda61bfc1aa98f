// A matrix product for a right-hand factor used many times, as the LSTM's recurrent weights are at
// every step: packed once, it is read straight from the panels, where OpenBLAS would pack it again
// at each call. AVX-512 only, compiled for it function by function and chosen at run time.

#include "CLearningKernels.h"

#include <stddef.h>
#include <string.h>

enum { panelWidth = 32, blockRows = 8 };

long gl_packed_count(int k, int n) {
    return (long)((n + panelWidth - 1) / panelWidth) * panelWidth * k;
}

void gl_pack_panels(const float *b, int k, int n, int ldb, bool transposed, float *packed) {
    for (int panel = 0; panel * panelWidth < n; panel++) {
        float *destination = packed + (size_t)panel * panelWidth * k;
        int first = panel * panelWidth, columns = n - first < panelWidth ? n - first : panelWidth;
        memset(destination, 0, sizeof(float) * panelWidth * k);
        if (transposed) {
            // Column by column, so that the reads run along bᵀ's rows.
            for (int lane = 0; lane < columns; lane++) {
                const float *source = b + (size_t)(first + lane) * ldb;
                for (int row = 0; row < k; row++) destination[(size_t)row * panelWidth + lane] = source[row];
            }
        } else {
            for (int row = 0; row < k; row++) {
                memcpy(destination + (size_t)row * panelWidth, b + (size_t)row * ldb + first, sizeof(float) * columns);
            }
        }
    }
}

#if defined(__x86_64__)

#include <immintrin.h>

bool gl_has_avx512f(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

// Eight rows of c against one panel: sixteen accumulators, each value of a broadcast once per row.
__attribute__((target("avx512f")))
static void blockOfRows(int k, const float *a, int lda, const float *panel, float *c, int ldc,
                        __mmask16 low, __mmask16 high) {
    __m512 sums[blockRows][2];
    for (int row = 0; row < blockRows; row++) {
        sums[row][0] = _mm512_maskz_loadu_ps(low, c + (size_t)row * ldc);
        sums[row][1] = _mm512_maskz_loadu_ps(high, c + (size_t)row * ldc + 16);
    }
    for (int index = 0; index < k; index++) {
        __m512 left = _mm512_loadu_ps(panel + (size_t)index * panelWidth);
        __m512 right = _mm512_loadu_ps(panel + (size_t)index * panelWidth + 16);
        for (int row = 0; row < blockRows; row++) {
            __m512 value = _mm512_set1_ps(a[(size_t)row * lda + index]);
            sums[row][0] = _mm512_fmadd_ps(value, left, sums[row][0]);
            sums[row][1] = _mm512_fmadd_ps(value, right, sums[row][1]);
        }
    }
    for (int row = 0; row < blockRows; row++) {
        _mm512_mask_storeu_ps(c + (size_t)row * ldc, low, sums[row][0]);
        _mm512_mask_storeu_ps(c + (size_t)row * ldc + 16, high, sums[row][1]);
    }
}

__attribute__((target("avx512f")))
static void singleRow(int k, const float *a, const float *panel, float *c, __mmask16 low, __mmask16 high) {
    __m512 left = _mm512_maskz_loadu_ps(low, c), right = _mm512_maskz_loadu_ps(high, c + 16);
    for (int index = 0; index < k; index++) {
        __m512 value = _mm512_set1_ps(a[index]);
        left = _mm512_fmadd_ps(value, _mm512_loadu_ps(panel + (size_t)index * panelWidth), left);
        right = _mm512_fmadd_ps(value, _mm512_loadu_ps(panel + (size_t)index * panelWidth + 16), right);
    }
    _mm512_mask_storeu_ps(c, low, left);
    _mm512_mask_storeu_ps(c + 16, high, right);
}

static __mmask16 laneMask(int lanes) {
    return lanes >= 16 ? 0xFFFF : lanes <= 0 ? 0 : (__mmask16)((1u << lanes) - 1);
}

__attribute__((target("avx512f")))
void gl_gemm_packed(int m, int n, int k, const float *a, int lda, const float *packed, float *c, int ldc) {
    for (int panel = 0; panel * panelWidth < n; panel++) {
        const float *panelStart = packed + (size_t)panel * panelWidth * k;
        int columns = n - panel * panelWidth;
        __mmask16 low = laneMask(columns), high = laneMask(columns - 16);
        float *cPanel = c + panel * panelWidth;
        int row = 0;
        for (; row + blockRows <= m; row += blockRows) {
            blockOfRows(k, a + (size_t)row * lda, lda, panelStart, cPanel + (size_t)row * ldc, ldc, low, high);
        }
        for (; row < m; row++) {
            singleRow(k, a + (size_t)row * lda, panelStart, cPanel + (size_t)row * ldc, low, high);
        }
    }
}

#else

bool gl_has_avx512f(void) { return false; }

void gl_gemm_packed(int m, int n, int k, const float *a, int lda, const float *packed, float *c, int ldc) {
    __builtin_trap();
}

#endif
