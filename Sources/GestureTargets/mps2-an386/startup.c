/* The least a Cortex-M4F needs to run a newlib program on QEMU's mps2-an386 board: the vector table
   and a reset handler that turns the FPU on, then newlib's semihosting start-up (rdimon-crt0), which
   clears .bss, calls main and reports its exit status to QEMU. */
extern void _start(void);
extern char __stack_top;

static void reset(void) {
    /* The FPU is off at reset: full access to coprocessors 10 and 11 before any float instruction. */
    *(volatile unsigned long *)0xE000ED88 |= 0xFUL << 20;
    __asm volatile("dsb\n\tisb");
    _start();
    for (;;) {
    }
}

/* A fault stops here; QEMU then runs until the test's timeout, which reports it. */
static void fault(void) {
    for (;;) {
    }
}

/* The initial stack pointer, then the handlers: a union, as ISO C converts no data pointer to a function pointer. */
typedef union {
    char *stack;
    void (*handler)(void);
} vector;

__attribute__((section(".vectors"), used)) static const vector vectors[16] = {
    {.stack = &__stack_top}, {.handler = reset}, {.handler = fault}, {.handler = fault}, {.handler = fault},
    {.handler = fault}, {.handler = fault}, {0}, {0}, {0}, {0}, {.handler = fault}, {.handler = fault}, {0},
    {.handler = fault}, {.handler = fault},
};
