// Streaming prediction multiplies one row by each weight matrix. In Float the LSTM's weights
// (845 KB) do not stay in a 512 KB or 1 MB L2 cache and the product waits on L3; as bfloat16 they
// do. A group of 32 columns is packed as 16 pairs a row (PairGroups.h), column c in the low half of
// pair c and column c + 16 in the high half, so shifting a pair left and masking it give two
// vectors of Floats, of any width: 16 lanes (PackedGEMM.c's AVX-512 kernel), 8 (AVX2), 4 (NEON) or
// one at a time (C).
// Every kernel adds row after row in order, one sum per column, so they differ only by rounding.
// Strict C99: the tests cross-compile this file for aarch64 with gcc.

#include "CLearningKernels.h"
#include "PairGroups.h"

#include <string.h>

long gl_bfloat16_pair_count(int k, int n) {
    return (long)k * ((n + pairGroupWidth - 1) / pairGroupWidth) * pairsPerGroup;
}

static uint32_t upperHalf(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits >> 16;
}

void gl_pack_bfloat16_pairs(const float *w, int k, int n, uint32_t *packed) {
    for (int group = 0; group * pairGroupWidth < n; group++) {
        for (int row = 0; row < k; row++) {
            uint32_t *pairs = packed + ((size_t)group * k + row) * pairsPerGroup;
            for (int pair = 0; pair < pairsPerGroup; pair++) {
                int low = group * pairGroupWidth + pair, high = low + pairsPerGroup;
                uint32_t lowHalf = low < n ? upperHalf(w[(size_t)row * n + low]) : 0;
                uint32_t highHalf = high < n ? upperHalf(w[(size_t)row * n + high]) : 0;
                pairs[pair] = highHalf << 16 | lowHalf;
            }
        }
    }
}

static float bitsAsFloat(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

void gl_row_times_bfloat16_pairs_portable(int k, int n, const float *x, const uint32_t *packed, float *y,
                                          bool accumulate) {
    for (int first = 0; first < n; first += pairGroupWidth) {
        int columns = n - first < pairGroupWidth ? n - first : pairGroupWidth;
        float sums[pairGroupWidth] = {0};
        if (accumulate) memcpy(sums, y + first, sizeof(float) * columns);
        for (int index = 0; index < k; index++) {
            const uint32_t *pairs = pairGroupRow(packed, k, first / pairGroupWidth, index);
            for (int pair = 0; pair < pairsPerGroup; pair++) {
                sums[pair] += x[index] * bitsAsFloat(pairs[pair] << 16);
                sums[pair + pairsPerGroup] += x[index] * bitsAsFloat(pairs[pair] & 0xFFFF0000u);
            }
        }
        memcpy(y + first, sums, sizeof(float) * columns);
    }
}

void gl_row_times_small_matrix(int k, int n, const float *restrict x, const float *restrict w, float *restrict y,
                               bool accumulate) {
    if (!accumulate) memset(y, 0, sizeof(float) * n);
    for (int index = 0; index < k; index++) {
        for (int column = 0; column < n; column++) y[column] += x[index] * w[(size_t)index * n + column];
    }
}

#if defined(__x86_64__)

#include "AVX2Lanes.h"

bool gl_has_avx2_fma(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

// Up to three groups of 32 columns: twelve accumulators of 8 Floats, vector v holding columns
// 8v…8v + 7, while the rows stream past.
__attribute__((target("avx2,fma"), always_inline))
static inline void rowTimesPairGroupsAVX2(int k, int groups, const float *x, const uint32_t *packed,
                                          float *y, int columns, bool accumulate) {
    __m256 sums[12];
    __m256i masks[12];
    for (int vector = 0; vector < 4 * groups; vector++) {
        masks[vector] = firstLanes(columns - 8 * vector);
        sums[vector] = accumulate ? _mm256_maskload_ps(y + 8 * vector, masks[vector]) : _mm256_setzero_ps();
    }
    const __m256i upper = _mm256_set1_epi32((int)0xFFFF0000);
    for (int index = 0; index < k; index++) {
        __m256 value = _mm256_broadcast_ss(x + index);
        for (int group = 0; group < groups; group++) {
            const uint32_t *row = pairGroupRow(packed, k, group, index);
            for (int half = 0; half < 2; half++) {
                __m256i pairs = _mm256_loadu_si256((const __m256i *)(row + 8 * half));
                __m256 low = _mm256_castsi256_ps(_mm256_slli_epi32(pairs, 16));
                __m256 high = _mm256_castsi256_ps(_mm256_and_si256(pairs, upper));
                sums[4 * group + half] = _mm256_fmadd_ps(value, low, sums[4 * group + half]);
                sums[4 * group + 2 + half] = _mm256_fmadd_ps(value, high, sums[4 * group + 2 + half]);
            }
        }
    }
    for (int vector = 0; vector < 4 * groups; vector++) _mm256_maskstore_ps(y + 8 * vector, masks[vector], sums[vector]);
}

__attribute__((target("avx2,fma")))
void gl_row_times_bfloat16_pairs_avx2(int k, int n, const float *x, const uint32_t *packed, float *y,
                                      bool accumulate) {
    int first = 0;
    for (; n - first >= 96; first += 96) {
        rowTimesPairGroupsAVX2(k, 3, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, 96, accumulate);
    }
    for (; n - first > 32; first += 64) {
        rowTimesPairGroupsAVX2(k, 2, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
    }
    if (n > first) rowTimesPairGroupsAVX2(k, 1, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
}

#endif

#if defined(__aarch64__)

#include <arm_neon.h>

static float32x4_t loadLanes(const float *y, int lanes) {
    if (lanes >= 4) return vld1q_f32(y);
    float part[4] = {0};
    if (lanes > 0) memcpy(part, y, sizeof(float) * lanes);
    return vld1q_f32(part);
}

static void storeLanes(float *y, int lanes, float32x4_t sums) {
    if (lanes >= 4) {
        vst1q_f32(y, sums);
    } else if (lanes > 0) {
        float part[4];
        vst1q_f32(part, sums);
        memcpy(y, part, sizeof(float) * lanes);
    }
}

// Up to three groups of 32 columns: 24 of the 32 registers accumulate, vector v holding columns
// 4v…4v + 3, while the rows stream past.
__attribute__((always_inline))
static inline void rowTimesPairGroupsNEON(int k, int groups, const float *x, const uint32_t *packed,
                                          float *y, int columns, bool accumulate) {
    float32x4_t sums[24];
    for (int vector = 0; vector < 8 * groups; vector++) {
        sums[vector] = accumulate ? loadLanes(y + 4 * vector, columns - 4 * vector) : vdupq_n_f32(0);
    }
    const uint32x4_t upper = vdupq_n_u32(0xFFFF0000u);
    for (int index = 0; index < k; index++) {
        for (int group = 0; group < groups; group++) {
            const uint32_t *row = pairGroupRow(packed, k, group, index);
            for (int quarter = 0; quarter < 4; quarter++) {
                uint32x4_t pairs = vld1q_u32(row + 4 * quarter);
                float32x4_t low = vreinterpretq_f32_u32(vshlq_n_u32(pairs, 16));
                float32x4_t high = vreinterpretq_f32_u32(vandq_u32(pairs, upper));
                sums[8 * group + quarter] = vfmaq_n_f32(sums[8 * group + quarter], low, x[index]);
                sums[8 * group + 4 + quarter] = vfmaq_n_f32(sums[8 * group + 4 + quarter], high, x[index]);
            }
        }
    }
    for (int vector = 0; vector < 8 * groups; vector++) storeLanes(y + 4 * vector, columns - 4 * vector, sums[vector]);
}

void gl_row_times_bfloat16_pairs_neon(int k, int n, const float *x, const uint32_t *packed, float *y,
                                      bool accumulate) {
    int first = 0;
    for (; n - first >= 96; first += 96) {
        rowTimesPairGroupsNEON(k, 3, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, 96, accumulate);
    }
    for (; n - first > 32; first += 64) {
        rowTimesPairGroupsNEON(k, 2, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
    }
    if (n > first) rowTimesPairGroupsNEON(k, 1, x, pairGroupRow(packed, k, first / pairGroupWidth, 0), y + first, n - first, accumulate);
}

#endif
