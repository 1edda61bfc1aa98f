// A team of threads that run the parts of one job at a time. A training batch starts thousands of
// jobs of 10–200 µs each (an LSTM step's product is one), so the threads spin a while for the next
// job before they sleep on a futex: waking a sleeping thread costs about as much as a small job.
// Parts are claimed, not assigned: the caller takes part 0 and then any part no thread has taken
// yet, so on a busy machine, where a worker may not run for milliseconds, the caller does its share
// instead of waiting for it. A part's work depends on its index alone, never on who runs it.

#include "CLearningKernels.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { spinsBeforeYielding = 1000, yieldsBeforeSleeping = 2000 };

struct gl_thread_team {
    int threads;
    pthread_t *workers;
    gl_team_part function;
    void *context;
    // The job's number in the high half, the next part to claim in the low half.
    _Atomic uint64_t claims;
    // The job's number again, as the 32-bit word workers sleep on.
    _Atomic uint32_t generation;
    _Atomic uint32_t finishedParts;
    _Atomic int sleepingWorkers;
    _Atomic int callerSleeping;
    _Atomic bool stopping;
};

static void futexWait(_Atomic uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futexWake(_Atomic uint32_t *word, int count) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

static void relax(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

// Returns once `word` no longer holds `value`: spinning, then yielding the processor (a busy
// machine may be running the thread that is to change it), then asleep. `sleeping` counts the
// threads asleep on it.
static void waitWhileEqual(_Atomic uint32_t *word, uint32_t value, _Atomic int *sleeping) {
    for (int round = 0; atomic_load_explicit(word, memory_order_acquire) == value; round++) {
        if (round < spinsBeforeYielding) {
            relax();
        } else if (round < spinsBeforeYielding + yieldsBeforeSleeping) {
            sched_yield();
        } else {
            // Counted before the word is read again, so a thread that changes it either sees a
            // sleeper to wake or is seen by the futex's own comparison.
            atomic_fetch_add(sleeping, 1);
            if (atomic_load(word) == value) futexWait(word, value);
            atomic_fetch_sub(sleeping, 1);
        }
    }
}

// Claims and runs parts of job `job` until none is left; returns how many it ran.
static uint32_t runParts(gl_thread_team *team, uint32_t job) {
    uint32_t ran = 0;
    uint64_t claims = atomic_load_explicit(&team->claims, memory_order_acquire);
    while ((uint32_t)(claims >> 32) == job && (uint32_t)claims < (uint32_t)team->threads) {
        if (atomic_compare_exchange_weak_explicit(
                &team->claims, &claims, claims + 1, memory_order_acq_rel, memory_order_acquire)) {
            team->function(team->context, (int)(uint32_t)claims, team->threads);
            ran++;
            claims = atomic_load_explicit(&team->claims, memory_order_acquire);
        }
    }
    return ran;
}

static void *work(void *argument) {
    gl_thread_team *team = argument;
    uint32_t seen = 0;
    for (;;) {
        waitWhileEqual(&team->generation, seen, &team->sleepingWorkers);
        seen = atomic_load_explicit(&team->generation, memory_order_acquire);
        if (atomic_load(&team->stopping)) return NULL;
        uint32_t ran = runParts(team, seen);
        if (ran > 0 && atomic_fetch_add(&team->finishedParts, ran) + ran == (uint32_t)team->threads &&
            atomic_load(&team->callerSleeping) > 0) {
            futexWake(&team->finishedParts, 1);
        }
    }
}

gl_thread_team *gl_team_create(int threads) {
    gl_thread_team *team = calloc(1, sizeof *team);
    if (team == NULL) return NULL;
    team->threads = threads < 1 ? 1 : threads;
    team->workers = calloc((size_t)team->threads, sizeof(pthread_t));
    for (int worker = 1; worker < team->threads; worker++) {
        if (team->workers == NULL || pthread_create(&team->workers[worker], NULL, work, team) != 0) {
            // Fewer threads than asked: the parts are split among those that started.
            team->threads = worker;
            break;
        }
    }
    return team;
}

int gl_team_threads(const gl_thread_team *team) { return team->threads; }

static void wakeWorkers(gl_thread_team *team) {
    if (atomic_load(&team->sleepingWorkers) > 0) futexWake(&team->generation, INT_MAX);
}

void gl_team_run(gl_thread_team *team, gl_team_part function, void *context) {
    if (team->threads == 1) {
        function(context, 0, 1);
        return;
    }
    uint32_t job = atomic_load_explicit(&team->generation, memory_order_relaxed) + 1;
    team->function = function;
    team->context = context;
    atomic_store_explicit(&team->finishedParts, 0, memory_order_relaxed);
    atomic_store_explicit(&team->claims, (uint64_t)job << 32, memory_order_release);
    atomic_store(&team->generation, job);
    wakeWorkers(team);
    uint32_t ran = runParts(team, job);
    uint32_t finished = atomic_fetch_add(&team->finishedParts, ran) + ran;
    while (finished != (uint32_t)team->threads) {
        waitWhileEqual(&team->finishedParts, finished, &team->callerSleeping);
        finished = atomic_load_explicit(&team->finishedParts, memory_order_acquire);
    }
}

void gl_team_destroy(gl_thread_team *team) {
    atomic_store(&team->stopping, true);
    atomic_fetch_add(&team->generation, 1);
    wakeWorkers(team);
    for (int worker = 1; worker < team->threads; worker++) pthread_join(team->workers[worker], NULL);
    free(team->workers);
    free(team);
}
