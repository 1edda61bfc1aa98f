#ifndef C_LEARNING_KERNELS_H
#define C_LEARNING_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

/// Whether this CPU and OS run AVX-512F, which `gl_gemm_packed_avx512` needs.
bool gl_has_avx512f(void);

/// The floats `gl_pack_panels` writes for op(b) of `k × n`: panels of 32 columns, zero-padded.
long gl_packed_count(int k, int n);

/// Packs op(b), `k × n`, into column panels of 32: panel p holds columns 32p…32p+31, row by row.
/// `b` is row-major with leading dimension `ldb`; with `transposed` it holds bᵀ (`n × k`).
void gl_pack_panels(const float *b, int k, int n, int ldb, bool transposed, float *packed);

/// c (`m × n`, leading dimension `ldc`) = a · the packed matrix, + c with `accumulate`, where a is
/// `m × k` with element (i, j) at `a[i · rowStride + j · indexStride]`. Each value is summed in the
/// same order whatever `m` and `n`. The AVX-512 kernel only where `gl_has_avx512f()`, the AVX2 one
/// only where `gl_has_avx2_fma()` (both x86-64 only).
void gl_gemm_packed_avx512(int m, int n, int k, const float *a, int rowStride, int indexStride,
                           const float *packed, float *c, int ldc, bool accumulate);
void gl_gemm_packed_avx2(int m, int n, int k, const float *a, int rowStride, int indexStride, const float *packed,
                         float *c, int ldc, bool accumulate);

/// y (`n`) = x (`k`) · w (`k × n`, row-major, leading dimension `ldw`), + y with `accumulate`:
/// one row's product, reading w once and in order. Only where `gl_has_avx512f()`.
void gl_row_times_matrix(int k, int n, const float *x, const float *w, int ldw, float *y, bool accumulate);

/// Whether this CPU and OS run AVX2 and FMA, which `gl_row_times_bfloat16_pairs_avx2` needs.
bool gl_has_avx2_fma(void);

/// The pairs `gl_pack_bfloat16_pairs` writes for a `k × n` matrix.
long gl_bfloat16_pair_count(int k, int n);

/// Packs `w` (`k × n`, row-major, values that are bfloat16s) for `gl_row_times_bfloat16_pairs_*`:
/// the columns in groups of 32, zero-padded, each group's rows in turn as 16 pairs of bfloat16.
void gl_pack_bfloat16_pairs(const float *w, int k, int n, uint32_t *packed);

/// y (`n`) = x (`k`) · the packed matrix, + y with `accumulate`, in Float arithmetic: one row's
/// product, as streaming prediction makes. One kernel per instruction set, the same results but
/// for rounding: AVX-512 only where `gl_has_avx512f()`, AVX2 only where `gl_has_avx2_fma()` (both
/// x86-64 only), NEON on aarch64 only, and plain C anywhere.
void gl_row_times_bfloat16_pairs_avx512(int k, int n, const float *x, const uint32_t *packed, float *y,
                                        bool accumulate);
void gl_row_times_bfloat16_pairs_avx2(int k, int n, const float *x, const uint32_t *packed, float *y,
                                      bool accumulate);
void gl_row_times_bfloat16_pairs_neon(int k, int n, const float *x, const uint32_t *packed, float *y,
                                      bool accumulate);
void gl_row_times_bfloat16_pairs_portable(int k, int n, const float *x, const uint32_t *packed, float *y,
                                          bool accumulate);

/// a · b, both `count` long, summed in an order of the compiler's choosing.
float gl_dot_product(int count, const float *a, const float *b);

/// y (`n`) = x (`k`) · w (`k × n`, row-major), + y with `accumulate`: one row's product in plain C,
/// for matrices too small for OpenBLAS to pay for its call, as a model's output layer.
void gl_row_times_small_matrix(int k, int n, const float *x, const float *w, float *y, bool accumulate);

/// One LSTM step for `rows` sequences, rows contiguous. `gates` (`rows × 4·units`: input, forget,
/// candidate, output) come in before their activations and leave after them; writes the cells, their
/// tanh and the hidden states (`rows × units` each). `previousCells` is NULL for the zero state.
void gl_lstm_step_forward(int rows, int units, float *gates, const float *previousCells,
                          float *cells, float *cellTanh, float *hidden);

/// The step's gate gradients from dL/dh (`hiddenGradient`) and the cell gradient carried from the
/// step after it, which `cellGradient` holds on entry and holds for the step before on return.
void gl_lstm_step_backward(int rows, int units, const float *gates, const float *previousCells,
                           const float *cellTanh, const float *hiddenGradient,
                           float *cellGradient, float *gateGradient);

/// One Adam step: updates the moments and moves the parameters by stepSize · m / (√v + epsilon),
/// stepSize and epsilon already bias-corrected.
void gl_adam_update(long count, float *parameters, const float *gradient, float *firstMoment,
                    float *secondMoment, float beta1, float beta2, float stepSize, float epsilon);

/// A random convolution's output at each of `positions`: 3 · the three heavy taps' values less
/// the nine taps', the taps `dilation` samples apart over `summed` (the kernel's channels summed).
void gl_kernel_outputs(const float *summed, int positions, int dilation, int heavy0, int heavy1, int heavy2,
                       float *outputs);

/// positives[i] = how many of the values before index marks[i] (ascending) lie above `bias`.
void gl_count_above(const float *values, float bias, const long *marks, int markCount, int32_t *positives);

/// A team of threads that run the parts of one job at a time (see ThreadTeam.c).
typedef struct gl_thread_team gl_thread_team;
/// One part of a job: `part` of `parts`.
typedef void (*gl_team_part)(void *context, int part, int parts);
/// A team of `threads` threads, the caller's included; fewer if the system refuses more; NULL
/// without memory.
gl_thread_team *gl_team_create(int threads);
int gl_team_threads(const gl_thread_team *team);
/// Runs every part of a job, `0..<threads`, each on whichever of the team's threads claims it
/// first, the calling thread among them; returns when all have returned. One job at a time: a team
/// is not to be run from two threads at once.
void gl_team_run(gl_thread_team *team, gl_team_part function, void *context);
void gl_team_destroy(gl_thread_team *team);

#endif
