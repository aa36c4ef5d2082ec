// What Swift's Glibc module leaves out: the kernel's clock state (<sys/timex.h>).
#ifndef FTMS_CCLOCK_SHIM_H
#define FTMS_CCLOCK_SHIM_H
#include <sys/timex.h>
#include <sys/timerfd.h>
#include <errno.h>
#include <unistd.h>

/// The kernel's own account of the system clock, as `timedatectl` reads it: 1 synchronised,
/// 0 not (adjtimex says TIME_ERROR, or STA_UNSYNC is set), -1 unreadable (errno set: a
/// seccomp filter such as systemd's ProtectClock= answers EPERM).
static inline int ftms_clock_synchronised(void) {
    struct timex state = {0};
    int result = adjtimex(&state);
    if (result == -1) return -1;
    return (result != TIME_ERROR && !(state.status & STA_UNSYNC)) ? 1 : 0;
}

/// Arms `fd` (a CLOCK_REALTIME timerfd) to expire in 2200 with TFD_TIMER_CANCEL_ON_SET: it never
/// expires in practice, and any setting of the wall clock (a step, `date -s`, NTP's first fix)
/// makes its next read fail with ECANCELED. 0, or -1 with errno.
static inline int ftms_step_watch_arm(int fd) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)7258118400LL;
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

/// A non-blocking, close-on-exec CLOCK_REALTIME timerfd armed by ftms_step_watch_arm, or -1
/// with errno.
static inline int ftms_step_watch_open(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return -1;
    if (ftms_step_watch_arm(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

#endif
