// Element-wise work where Swift's 8-lane vectors for the x86-64 baseline are too slow: the LSTM's
// steps (a million exponentials per batch), Adam's update, the rejection's dot products and the
// random convolutions' outputs and their counts above the biases. Plain
// loops the compiler vectorizes, compiled once per instruction set and chosen when the program loads.
// Not as masked vectors for the last few units: AVX2's masked stores are slow (on Zen, microcoded),
// and masking every vector, as the compiler did, made the LSTM's step 2.5 times as long.

#include "CLearningKernels.h"

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__ELF__)
#define INSTRUCTION_SET_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define INSTRUCTION_SET_CLONES
#endif

// e^x to about 2 ulp, in arithmetic that vectorizes (a call to expf does not).
static inline float fastExp(float x) {
    x = x < -87.0f ? -87.0f : x > 88.0f ? 88.0f : x;
    // Adding 1.5 · 2²³ rounds x · log₂e to the nearest integer n, which then sits in the low bits.
    float shifted = x * 1.44269504f + 12582912.0f;
    float n = shifted - 12582912.0f;
    // ln 2 split in two, the first with few enough bits that n · ln2High is exact.
    float r = x - n * 0.693145751953125f - n * 1.428606765330187e-6f;
    float p = 1.0f / 5040;
    p = p * r + 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits;
    memcpy(&bits, &shifted, sizeof bits);
    bits = (bits - 0x4B400000 + 127) << 23;
    float twoToTheN;
    memcpy(&twoToTheN, &bits, sizeof twoToTheN);
    return p * twoToTheN;
}

static inline float sigmoid(float x) { return 1.0f / (1.0f + fastExp(-x)); }

static inline float tanhApproximation(float x) { return 2.0f / (1.0f + fastExp(-2.0f * x)) - 1.0f; }

static inline void applySigmoid(float *restrict values, int count) {
    for (int index = 0; index < count; index++) values[index] = sigmoid(values[index]);
}

static inline void applyTanh(float *restrict values, int count) {
    for (int index = 0; index < count; index++) values[index] = tanhApproximation(values[index]);
}

INSTRUCTION_SET_CLONES
void gl_lstm_step_forward(int rows, int units, float *restrict gates, const float *restrict previousCells,
                          float *restrict cells, float *restrict cellTanh, float *restrict hidden) {
    for (int row = 0; row < rows; row++) {
        float *input = gates + (size_t)row * 4 * units, *forget = input + units;
        float *candidate = forget + units, *output = candidate + units;
        float *cell = cells + (size_t)row * units, *squashed = cellTanh + (size_t)row * units;
        float *next = hidden + (size_t)row * units;
        applySigmoid(input, 2 * units);
        applyTanh(candidate, units);
        applySigmoid(output, units);
        if (previousCells) {
            const float *previous = previousCells + (size_t)row * units;
            for (int unit = 0; unit < units; unit++) cell[unit] = forget[unit] * previous[unit] + input[unit] * candidate[unit];
        } else {
            for (int unit = 0; unit < units; unit++) cell[unit] = input[unit] * candidate[unit];
        }
        for (int unit = 0; unit < units; unit++) {
            squashed[unit] = tanhApproximation(cell[unit]);
            next[unit] = output[unit] * squashed[unit];
        }
    }
}

INSTRUCTION_SET_CLONES
void gl_lstm_step_backward(int rows, int units, const float *restrict gates, const float *restrict previousCells,
                           const float *restrict cellTanh, const float *restrict hiddenGradient,
                           float *restrict cellGradient, float *restrict gateGradient) {
    for (int row = 0; row < rows; row++) {
        const float *restrict input = gates + (size_t)row * 4 * units, *restrict forget = input + units;
        const float *restrict candidate = forget + units, *restrict output = candidate + units;
        const float *restrict squashed = cellTanh + (size_t)row * units, *restrict dh = hiddenGradient + (size_t)row * units;
        const float *restrict previous = previousCells ? previousCells + (size_t)row * units : 0;
        float *restrict carried = cellGradient + (size_t)row * units;
        float *restrict dInput = gateGradient + (size_t)row * 4 * units, *restrict dForget = dInput + units;
        float *restrict dCandidate = dForget + units, *restrict dOutput = dCandidate + units;
        for (int unit = 0; unit < units; unit++) {
            float i = input[unit], f = forget[unit], g = candidate[unit], o = output[unit], t = squashed[unit];
            float dc = carried[unit] + dh[unit] * o * (1 - t * t);
            dInput[unit] = dc * g * i * (1 - i);
            dForget[unit] = previous ? dc * previous[unit] * f * (1 - f) : 0;
            dCandidate[unit] = dc * i * (1 - g * g);
            dOutput[unit] = dh[unit] * t * o * (1 - o);
            carried[unit] = dc * f;
        }
    }
}

INSTRUCTION_SET_CLONES
void gl_adam_update(long count, float *restrict parameters, const float *restrict gradient,
                    float *restrict firstMoment, float *restrict secondMoment,
                    float beta1, float beta2, float stepSize, float epsilon) {
    for (long index = 0; index < count; index++) {
        float g = gradient[index];
        float m = beta1 * firstMoment[index] + (1 - beta1) * g;
        float v = beta2 * secondMoment[index] + (1 - beta2) * g * g;
        firstMoment[index] = m;
        secondMoment[index] = v;
        // The element-wise builtin, unlike sqrtf, never sets errno, so it vectorizes.
        parameters[index] -= stepSize * m / (__builtin_elementwise_sqrt(v) + epsilon);
    }
}

INSTRUCTION_SET_CLONES
float gl_dot_product(int count, const float *restrict a, const float *restrict b) {
    // Summed in any order, so in vectors: one sum after another, as Swift's loop did, waits on
    // each addition.
#pragma clang fp reassociate(on)
    float sum = 0;
    for (int index = 0; index < count; index++) sum += a[index] * b[index];
    return sum;
}

INSTRUCTION_SET_CLONES
void gl_count_above(const float *restrict values, float bias, const long *restrict marks, int markCount,
                    int32_t *restrict positives) {
    int32_t total = 0;
    long start = 0;
    for (int mark = 0; mark < markCount; mark++) {
        // A stretch at a time, the comparisons in vectors (Swift's loop branched on each).
        int32_t stretch = 0;
        for (long index = start; index < marks[mark]; index++) stretch += values[index] > bias;
        total += stretch;
        positives[mark] = total;
        start = marks[mark];
    }
}

INSTRUCTION_SET_CLONES
void gl_kernel_outputs(const float *restrict summed, int positions, int dilation, int heavy0, int heavy1,
                       int heavy2, float *restrict outputs) {
    // Each output rounded as it always was (sums in this order, no fused multiply-add), so that
    // models keep their features.
#pragma clang fp contract(off)
    const float *a = summed + heavy0 * dilation, *b = summed + heavy1 * dilation, *c = summed + heavy2 * dilation;
    for (int position = 0; position < positions; position++) {
        float sum = 0;
        for (int tap = 0; tap < 9; tap++) sum += summed[position + tap * dilation];
        outputs[position] = 3 * (a[position] + b[position] + c[position]) - sum;
    }
}
