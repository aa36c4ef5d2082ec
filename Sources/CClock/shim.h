// What Swift's Glibc module leaves out: the kernel's clock state (<sys/timex.h>).
#ifndef FTMS_CCLOCK_SHIM_H
#define FTMS_CCLOCK_SHIM_H
#include <sys/timex.h>

/// The kernel's own account of the system clock, as `timedatectl` reads it: 1 synchronised,
/// 0 not (adjtimex says TIME_ERROR, or STA_UNSYNC is set), -1 unreadable (errno set: a
/// seccomp filter such as systemd's ProtectClock= answers EPERM).
static inline int ftms_clock_synchronised(void) {
    struct timex state = {0};
    int result = adjtimex(&state);
    if (result == -1) return -1;
    return (result != TIME_ERROR && !(state.status & STA_UNSYNC)) ? 1 : 0;
}

#endif
