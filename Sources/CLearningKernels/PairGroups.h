#ifndef C_LEARNING_KERNELS_PAIR_GROUPS_H
#define C_LEARNING_KERNELS_PAIR_GROUPS_H

#include <stddef.h>
#include <stdint.h>

// A bfloat16 matrix packed by gl_pack_bfloat16_pairs: columns in groups of 32, each group one
// 64-byte line of 16 pairs a row, its k rows one after another. A kernel that reads a few groups
// row by row reads a few sequential streams, which the prefetchers keep ahead of it; rows of the
// whole matrix in turn, 1.6 KB apart, left the LSTM's product waiting on L3.
enum { pairGroupWidth = 32, pairsPerGroup = pairGroupWidth / 2 };

// Row `index` of group `group`, counting from `groups`, the first group a kernel reads.
static inline const uint32_t *pairGroupRow(const uint32_t *groups, int k, int group, int index) {
    return groups + ((size_t)group * k + index) * pairsPerGroup;
}

#endif
