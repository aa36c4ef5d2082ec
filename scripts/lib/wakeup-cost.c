/*
 * What one thread wake-up costs on this machine, with no work done (docs/performance.md,
 * "The floors"): the floor under the daemon's CPU per notification.
 *
 * Three ways a sleeping thread is woken RATE times a second for SECONDS seconds, each timed by
 * the woken threads' own CPU (/proc/self/task/TID/schedstat: ns on a CPU, taken after they
 * stopped) divided by the wake-ups:
 *
 *   timer    one thread in epoll_wait on a timerfd (a wake-up with nobody else involved);
 *   handoff  a timer thread wakes, writes an eventfd, and a second thread in epoll_wait on it
 *            wakes (the bus thread handing a notification to the event loop): both threads;
 *   one      the same timer thread doing the second thread's eventfd read itself (what one
 *            thread instead of two would cost).
 *
 * Written by hand: there is no packaged tool that reports CPU per wake-up. Build and run with
 * scripts/bench-wakeup.sh.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

static long rate = 40;
static long seconds = 20;

struct sleeper {
    int fd;                 /* what the thread waits on */
    int forward;            /* eventfd to write on each wake-up, or -1 */
    int absorb;             /* eventfd to read on each wake-up (the "one thread" case), or -1 */
    long wakeups;
    pid_t tid;
    unsigned long long ns;  /* CPU of the thread, read by itself when it ends */
};

static unsigned long long thread_ns(pid_t tid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *file = fopen(path, "r");
    unsigned long long ns = 0;
    if (file) {
        if (fscanf(file, "%llu", &ns) != 1) ns = 0;
        fclose(file);
    }
    return ns;
}

static void *sleep_loop(void *argument) {
    struct sleeper *self = argument;
    self->tid = (pid_t)syscall(SYS_gettid);
    int poller = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = self->fd};
    epoll_ctl(poller, EPOLL_CTL_ADD, self->fd, &event);
    unsigned long long start = thread_ns(self->tid);
    long target = rate * seconds;
    while (self->wakeups < target) {
        struct epoll_event ready;
        if (epoll_wait(poller, &ready, 1, 2000) <= 0) break;
        uint64_t count;
        if (read(self->fd, &count, sizeof count) != sizeof count) continue;
        self->wakeups++;
        if (self->forward >= 0) {
            uint64_t one = 1;
            if (write(self->forward, &one, sizeof one) != sizeof one) break;
        }
        if (self->absorb >= 0) {
            uint64_t one = 1;
            if (write(self->absorb, &one, sizeof one) != sizeof one) break;
            if (read(self->absorb, &count, sizeof count) != sizeof count) break;
        }
    }
    self->ns = thread_ns(self->tid) - start;
    close(poller);
    return NULL;
}

static int periodic_timer(void) {
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    long period = 1000000000L / rate;
    struct itimerspec spec = {.it_interval = {period / 1000000000L, period % 1000000000L},
                              .it_value = {period / 1000000000L, period % 1000000000L}};
    timerfd_settime(fd, 0, &spec, NULL);
    return fd;
}

static void report(const char *name, struct sleeper *threads, int count) {
    unsigned long long total = 0;
    long wakeups = 0;
    printf("%-8s", name);
    for (int i = 0; i < count; i++) {
        double per = threads[i].wakeups ? (double)threads[i].ns / threads[i].wakeups / 1000.0 : 0;
        printf("  thread %d: %ld wake-ups, %.1f us each", i + 1, threads[i].wakeups, per);
        total += threads[i].ns;
        wakeups = threads[i].wakeups;
    }
    printf("  | all threads per event: %.1f us\n", wakeups ? (double)total / wakeups / 1000.0 : 0);
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc > 1) rate = atol(argv[1]);
    if (argc > 2) seconds = atol(argv[2]);
    if (rate <= 0 || seconds <= 0) {
        fprintf(stderr, "usage: wakeup-cost [RATE] [SECONDS]\n");
        return 2;
    }
    /* timer: one thread */
    struct sleeper timer = {.fd = periodic_timer(), .forward = -1, .absorb = -1};
    pthread_t a, b;
    pthread_create(&a, NULL, sleep_loop, &timer);
    pthread_join(a, NULL);
    report("timer", &timer, 1);

    /* handoff: timer thread -> eventfd -> second thread */
    int handed = eventfd(0, EFD_CLOEXEC);
    struct sleeper pair[2] = {{.fd = periodic_timer(), .forward = handed, .absorb = -1},
                              {.fd = handed, .forward = -1, .absorb = -1}};
    pthread_create(&b, NULL, sleep_loop, &pair[1]);
    pthread_create(&a, NULL, sleep_loop, &pair[0]);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    report("handoff", pair, 2);

    /* one: the timer thread does the eventfd round itself */
    struct sleeper one = {.fd = periodic_timer(), .forward = -1, .absorb = eventfd(0, EFD_CLOEXEC)};
    pthread_create(&a, NULL, sleep_loop, &one);
    pthread_join(a, NULL);
    report("one", &one, 1);
    return 0;
}
