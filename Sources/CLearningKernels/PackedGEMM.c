// A matrix product whose right-hand factor is packed in panels of 32 columns, read by a kernel of
// 8 rows × 32 columns that takes the left-hand factor as it is, rows or columns. A factor used many
// times, as the LSTM's recurrent weights are at every step, is packed once, where OpenBLAS would
// pack it again at every call. AVX-512 only, compiled for it function by function and chosen at
// run time; so are its kernels for one row (RowProducts.c has the other instruction sets'). An AVX2
// kernel of 6 rows × 16 columns reads the same panels. A factor stored transposed is transposed as
// it is packed, in tiles of 8 × 8 in registers where the CPU has AVX2. Each value of c is summed in
// the same order whatever block or share of columns computes it, so products split among threads
// give the same results as one thread's.

#include "CLearningKernels.h"
#include "PairGroups.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { panelWidth = 32, blockRows = 8 };

long gl_packed_count(int k, int n) {
    return (long)((n + panelWidth - 1) / panelWidth) * panelWidth * k;
}

// Writes the first k & ~7 rows of the panel's first lanes (a multiple of 8) in tiles of 8 × 8,
// transposed in registers where the CPU has AVX2 and FMA (as every CPU the packed kernels run on
// has), and returns those lanes (0 without).
static int transposeTiles(const float *source, int ldb, int k, int columns, float *destination);

// A panel of bᵀ: `columns` of b's rows from `source`, each k long, become its lanes.
static void transposeIntoPanel(const float *source, int ldb, int k, int columns, float *destination) {
    int tiledLanes = transposeTiles(source, ldb, k, columns, destination), tiledRows = k & ~7;
    // The rest sixteen rows at a time, lane by lane: the reads run along b's rows and the writes
    // stay within 2 KB.
    for (int block = 0; block < k; block += 16) {
        int rows = k - block < 16 ? k - block : 16;
        int tiled = tiledRows - block < rows ? tiledRows - block : rows;
        for (int lane = 0; lane < columns; lane++) {
            for (int row = lane < tiledLanes ? tiled : 0; row < rows; row++) {
                destination[(size_t)(block + row) * panelWidth + lane] = source[(size_t)lane * ldb + block + row];
            }
        }
    }
}

void gl_pack_panels(const float *b, int k, int n, int ldb, bool transposed, float *packed) {
    for (int panel = 0; panel * panelWidth < n; panel++) {
        float *destination = packed + (size_t)panel * panelWidth * k;
        int first = panel * panelWidth, columns = n - first < panelWidth ? n - first : panelWidth;
        if (columns < panelWidth) {
            for (int row = 0; row < k; row++) {
                memset(destination + (size_t)row * panelWidth + columns, 0, sizeof(float) * (panelWidth - columns));
            }
        }
        if (transposed) {
            transposeIntoPanel(b + (size_t)first * ldb, ldb, k, columns, destination);
        } else if (columns == panelWidth) {
            // A constant size, which the compiler copies inline rather than calling memcpy.
            for (int row = 0; row < k; row++) {
                memcpy(destination + (size_t)row * panelWidth, b + (size_t)row * ldb + first, sizeof(float) * panelWidth);
            }
        } else {
            for (int row = 0; row < k; row++) {
                memcpy(destination + (size_t)row * panelWidth, b + (size_t)row * ldb + first, sizeof(float) * columns);
            }
        }
    }
}

#if defined(__x86_64__)

#include "AVX2Lanes.h"

// Eight of b's rows by eight of its columns, transposed: eight rows of the panel, eight lanes each.
__attribute__((target("avx2")))
static void transposeTile(const float *source, int ldb, float *destination) {
    __m256 r[8], t[8], s[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(source + (size_t)i * ldb);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        s[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(destination + (size_t)i * panelWidth, _mm256_permute2f128_ps(s[i], s[i + 4], 0x20));
        _mm256_storeu_ps(destination + (size_t)(i + 4) * panelWidth, _mm256_permute2f128_ps(s[i], s[i + 4], 0x31));
    }
}

static int transposeTiles(const float *source, int ldb, int k, int columns, float *destination) {
    if (!gl_has_avx2_fma()) return 0;
    int lanes = columns & ~7;
    for (int block = 0; block + 8 <= k; block += 8) {
        for (int lane = 0; lane < lanes; lane += 8) {
            transposeTile(source + (size_t)lane * ldb + block, ldb, destination + (size_t)block * panelWidth + lane);
        }
    }
    return lanes;
}

bool gl_has_avx512f(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

// Eight rows of c against one panel: sixteen accumulators, each value of a broadcast once per row.
__attribute__((target("avx512f")))
static void blockOfRows(int k, const float *a, int rowStride, int indexStride, const float *panel, float *c,
                        int ldc, bool accumulate, __mmask16 low, __mmask16 high) {
    __m512 sums[blockRows][2];
    for (int row = 0; row < blockRows; row++) {
        sums[row][0] = accumulate ? _mm512_maskz_loadu_ps(low, c + (size_t)row * ldc) : _mm512_setzero_ps();
        sums[row][1] = accumulate ? _mm512_maskz_loadu_ps(high, c + (size_t)row * ldc + 16) : _mm512_setzero_ps();
    }
    for (int index = 0; index < k; index++) {
        __m512 left = _mm512_loadu_ps(panel + (size_t)index * panelWidth);
        __m512 right = _mm512_loadu_ps(panel + (size_t)index * panelWidth + 16);
        for (int row = 0; row < blockRows; row++) {
            __m512 value = _mm512_set1_ps(a[(size_t)row * rowStride + (size_t)index * indexStride]);
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
static void singleRow(int k, const float *a, int indexStride, const float *panel, float *c, bool accumulate,
                      __mmask16 low, __mmask16 high) {
    __m512 left = accumulate ? _mm512_maskz_loadu_ps(low, c) : _mm512_setzero_ps();
    __m512 right = accumulate ? _mm512_maskz_loadu_ps(high, c + 16) : _mm512_setzero_ps();
    for (int index = 0; index < k; index++) {
        __m512 value = _mm512_set1_ps(a[(size_t)index * indexStride]);
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
void gl_gemm_packed_avx512(int m, int n, int k, const float *a, int rowStride, int indexStride,
                           const float *packed, float *c, int ldc, bool accumulate) {
    for (int panel = 0; panel * panelWidth < n; panel++) {
        const float *panelStart = packed + (size_t)panel * panelWidth * k;
        int columns = n - panel * panelWidth;
        __mmask16 low = laneMask(columns), high = laneMask(columns - 16);
        float *cPanel = c + panel * panelWidth;
        int row = 0;
        for (; row + blockRows <= m; row += blockRows) {
            blockOfRows(k, a + (size_t)row * rowStride, rowStride, indexStride, panelStart, cPanel + (size_t)row * ldc,
                        ldc, accumulate, low, high);
        }
        for (; row < m; row++) {
            singleRow(k, a + (size_t)row * rowStride, indexStride, panelStart, cPanel + (size_t)row * ldc, accumulate,
                      low, high);
        }
    }
}

enum { avx2BlockRows = 6 };

// Up to six rows of c against half a panel (16 columns): twelve accumulators, each value of a
// broadcast once per row. Inlined for each constant `rows`, so the loops over rows unroll.
__attribute__((target("avx2,fma"), always_inline))
static inline void avx2Rows(int rows, int k, const float *a, int rowStride, int indexStride, const float *half,
                            float *c, int ldc, bool accumulate, __m256i low, __m256i high) {
    __m256 sums[avx2BlockRows][2];
    for (int row = 0; row < rows; row++) {
        sums[row][0] = accumulate ? _mm256_maskload_ps(c + (size_t)row * ldc, low) : _mm256_setzero_ps();
        sums[row][1] = accumulate ? _mm256_maskload_ps(c + (size_t)row * ldc + 8, high) : _mm256_setzero_ps();
    }
    for (int index = 0; index < k; index++) {
        __m256 left = _mm256_loadu_ps(half + (size_t)index * panelWidth);
        __m256 right = _mm256_loadu_ps(half + (size_t)index * panelWidth + 8);
        for (int row = 0; row < rows; row++) {
            __m256 value = _mm256_broadcast_ss(a + (size_t)row * rowStride + (size_t)index * indexStride);
            sums[row][0] = _mm256_fmadd_ps(value, left, sums[row][0]);
            sums[row][1] = _mm256_fmadd_ps(value, right, sums[row][1]);
        }
    }
    for (int row = 0; row < rows; row++) {
        _mm256_maskstore_ps(c + (size_t)row * ldc, low, sums[row][0]);
        _mm256_maskstore_ps(c + (size_t)row * ldc + 8, high, sums[row][1]);
    }
}

__attribute__((target("avx2,fma")))
void gl_gemm_packed_avx2(int m, int n, int k, const float *a, int rowStride, int indexStride, const float *packed,
                         float *c, int ldc, bool accumulate) {
    for (int first = 0; first < n; first += 16) {
        const float *half = packed + (size_t)(first / panelWidth) * panelWidth * k + first % panelWidth;
        __m256i low = firstLanes(n - first), high = firstLanes(n - first - 8);
        int row = 0;
        for (; row + avx2BlockRows <= m; row += avx2BlockRows) {
            avx2Rows(avx2BlockRows, k, a + (size_t)row * rowStride, rowStride, indexStride, half,
                     c + (size_t)row * ldc + first, ldc, accumulate, low, high);
        }
        const float *rest = a + (size_t)row * rowStride;
        float *cRest = c + (size_t)row * ldc + first;
        switch (m - row) {
        case 1: avx2Rows(1, k, rest, rowStride, indexStride, half, cRest, ldc, accumulate, low, high); break;
        case 2: avx2Rows(2, k, rest, rowStride, indexStride, half, cRest, ldc, accumulate, low, high); break;
        case 3: avx2Rows(3, k, rest, rowStride, indexStride, half, cRest, ldc, accumulate, low, high); break;
        case 4: avx2Rows(4, k, rest, rowStride, indexStride, half, cRest, ldc, accumulate, low, high); break;
        case 5: avx2Rows(5, k, rest, rowStride, indexStride, half, cRest, ldc, accumulate, low, high); break;
        default: break;
        }
    }
}

__attribute__((target("avx512f"), always_inline))
static inline void rowTimesPairGroups(int k, int groups, const float *x, const uint32_t *packed, float *y, int columns,
                                      bool accumulate) {
    __m512 sums[16];
    __mmask16 masks[16];
    for (int vector = 0; vector < 2 * groups; vector++) {
        masks[vector] = laneMask(columns - 16 * vector);
        sums[vector] = accumulate ? _mm512_maskz_loadu_ps(masks[vector], y + 16 * vector) : _mm512_setzero_ps();
    }
    const __m512i upper = _mm512_set1_epi32((int)0xFFFF0000);
    for (int index = 0; index < k; index++) {
        __m512 value = _mm512_set1_ps(x[index]);
        for (int group = 0; group < groups; group++) {
            __m512i pairs = _mm512_loadu_si512(pairGroupRow(packed, k, group, index));
            __m512 low = _mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16));
            __m512 high = _mm512_castsi512_ps(_mm512_and_si512(pairs, upper));
            sums[2 * group] = _mm512_fmadd_ps(value, low, sums[2 * group]);
            sums[2 * group + 1] = _mm512_fmadd_ps(value, high, sums[2 * group + 1]);
        }
    }
    for (int vector = 0; vector < 2 * groups; vector++) _mm512_mask_storeu_ps(y + 16 * vector, masks[vector], sums[vector]);
}

__attribute__((target("avx512f")))
void gl_row_times_bfloat16_pairs_avx512(int k, int n, const float *x, const uint32_t *packed, float *y, bool accumulate) {
    int first = 0;
    for (; n - first >= 256; first += 256) {
        rowTimesPairGroups(k, 8, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, 256, accumulate);
    }
    for (; n - first > 32; first += 64) {
        rowTimesPairGroups(k, 2, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
    }
    if (n > first) rowTimesPairGroups(k, 1, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
}

// y (a block of up to 16 vectors of columns) = x · w (+ y): the accumulators stay in registers
// while the rows of w stream past, each row's block read once and in order.
__attribute__((target("avx512f"), always_inline))
static inline void rowTimesColumns(int k, int vectors, const float *x, const float *w, int ldw, float *y,
                                   int columns, bool accumulate) {
    __m512 sums[16];
    __mmask16 masks[16];
    for (int vector = 0; vector < vectors; vector++) {
        masks[vector] = laneMask(columns - 16 * vector);
        sums[vector] = accumulate ? _mm512_maskz_loadu_ps(masks[vector], y + 16 * vector) : _mm512_setzero_ps();
    }
    for (int index = 0; index < k; index++) {
        __m512 value = _mm512_set1_ps(x[index]);
        const float *row = w + (size_t)index * ldw;
        for (int vector = 0; vector < vectors; vector++) {
            sums[vector] = _mm512_fmadd_ps(value, _mm512_maskz_loadu_ps(masks[vector], row + 16 * vector), sums[vector]);
        }
    }
    for (int vector = 0; vector < vectors; vector++) _mm512_mask_storeu_ps(y + 16 * vector, masks[vector], sums[vector]);
}

__attribute__((target("avx512f")))
void gl_row_times_matrix(int k, int n, const float *x, const float *w, int ldw, float *y, bool accumulate) {
    int first = 0;
    for (; n - first >= 256; first += 256) rowTimesColumns(k, 16, x, w + first, ldw, y + first, 256, accumulate);
    for (; n - first > 64; first += 128) rowTimesColumns(k, 8, x, w + first, ldw, y + first, n - first, accumulate);
    for (; n - first > 16; first += 64) rowTimesColumns(k, 4, x, w + first, ldw, y + first, n - first, accumulate);
    if (n > first) rowTimesColumns(k, 1, x, w + first, ldw, y + first, n - first, accumulate);
}

#else

bool gl_has_avx512f(void) { return false; }

static int transposeTiles(const float *source, int ldb, int k, int columns, float *destination) {
    (void)source, (void)ldb, (void)k, (void)columns, (void)destination;
    return 0;
}

void gl_gemm_packed_avx512(int m, int n, int k, const float *a, int rowStride, int indexStride,
                           const float *packed, float *c, int ldc, bool accumulate) {
    __builtin_trap();
}

void gl_gemm_packed_avx2(int m, int n, int k, const float *a, int rowStride, int indexStride, const float *packed,
                         float *c, int ldc, bool accumulate) {
    __builtin_trap();
}

void gl_row_times_matrix(int k, int n, const float *x, const float *w, int ldw, float *y, bool accumulate) {
    __builtin_trap();
}

#endif
