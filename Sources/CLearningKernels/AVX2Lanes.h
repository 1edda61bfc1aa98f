#ifndef C_LEARNING_KERNELS_AVX2_LANES_H
#define C_LEARNING_KERNELS_AVX2_LANES_H

#include <immintrin.h>

// A mask of the first `lanes` of eight (all for 8 or more, none for 0 or fewer), for masked loads
// and stores of a matrix's last columns.
__attribute__((target("avx2,fma")))
static inline __m256i firstLanes(int lanes) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#endif
