#ifndef GESTURELAB_CLINUX_H
#define GESTURELAB_CLINUX_H

/// Sets the calling thread's timer slack, in nanoseconds; 0 on success, -1 with errno otherwise.
/// prctl is variadic, which Swift cannot call directly.
int gesture_set_timer_slack(unsigned long nanoseconds);

#endif
