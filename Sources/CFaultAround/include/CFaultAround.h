#ifndef C_FAULT_AROUND_H
#define C_FAULT_AROUND_H

#include <stddef.h>
#include <stdint.h>

/// Opens a userfaultfd for user-mode faults only, negotiated for asynchronous write-protect
/// (UFFD_FEATURE_WP_ASYNC, Linux 6.7): the kernel resolves every fault itself, nobody reads the
/// descriptor. Returns the descriptor, or -errno (EPERM under a seccomp filter or with
/// vm.unprivileged_userfaultfd = 0 and no UFFD_USER_MODE_ONLY support, EINVAL on a kernel
/// without the feature, ENOSYS without userfaultfd).
int cfaultaround_open(void);

/// Registers [start, start + length) with the descriptor in write-protect mode. A registered
/// mapping is never faulted "around": each fault maps one page instead of up to 16. Nothing is
/// ever write-protected, so no write and no fault behaves otherwise. Returns 0 or -errno.
int cfaultaround_register(int descriptor, uintptr_t start, size_t length);

#endif
