// userfaultfd(2) and its ioctls for FaultAround (Daemon/Memory). Swift imports neither
// syscall(2) nor ioctl(2) (both are variadic), and no maintained package wraps userfaultfd, so
// these two calls are written here by hand.
#define _GNU_SOURCE
#include "CFaultAround.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// Newer than the kernel headers of Debian 12 (6.1); the values are the kernel's ABI.
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

int cfaultaround_open(void) {
#ifdef SYS_userfaultfd
    long descriptor = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (descriptor < 0) return -errno;
    struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC };
    if (ioctl((int)descriptor, UFFDIO_API, &api) != 0) {
        int error = errno;
        close((int)descriptor);
        return -error;
    }
    return (int)descriptor;
#else
    return -ENOSYS;
#endif
}

int cfaultaround_register(int descriptor, uintptr_t start, size_t length) {
    struct uffdio_register request = {
        .range = { .start = start, .len = length },
        .mode = UFFDIO_REGISTER_MODE_WP,
    };
    return ioctl(descriptor, UFFDIO_REGISTER, &request) == 0 ? 0 : -errno;
}
