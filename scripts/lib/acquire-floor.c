/*
 * The least CPU any process can spend receiving ten machines' AcquireNotify datagrams on this box
 * (docs/performance.md, "The floors"): the floor under the AcquireNotify bar.
 *
 * A writer process plays bluetoothd: every 1/rate s it sends one datagram of a 0x2AD2 frame's
 * size on each of N SOCK_SEQPACKET socketpairs, either all together ("bunched", as ftms-sim's
 * timers fire) or each at its own phase ("spread", as independent machines would). The reader
 * does what an AcquireNotify client must at the very least: epoll_wait, then recv each datagram,
 * and with --publish write one JSON line per datagram (about 200 bytes, or --line-bytes) to a
 * subscriber on a Unix stream socket, as the metrics socket does. Nothing else: no decode, no session, no store, no runtime.
 * Its CPU is CLOCK_THREAD_CPUTIME_ID (ns), its wake-ups ru_nvcsw, after two seconds of warm-up.
 *
 * --reader-exec PATH [ARG...] (last on the line) runs another reader in this one's place, e.g. the
 * NIO floor (Benchmarks/Benchmarks/NIOFloor): the writer and subscriber are as above, and PATH
 * inherits the reader ends of the socketpairs and the subscriber's socket and is run as
 *   PATH ARG... --machines N --rate HZ --duration S --line-bytes B [--spread] [--publish]
 *        --inputs FD,FD,... [--output FD]
 * It measures itself and prints this reader's result line; the writer and subscriber are
 * stopped when it exits, and its exit status is this program's.
 *
 * Written by hand: no packaged tool measures this. Built and run by scripts/bench-wakeup.sh, and
 * by scripts/bench-notify.py beside every daemon run it measures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec / 1e9; }

/* --reader-exec: runs the reader at argv[0..argc) on the inherited descriptors, waits for it, then
 * stops the writer and subscriber; its exit status. */
static int run_reader(char **argv, int argc, int pairs[][2], int n, int sub[2], pid_t writer, pid_t subscriber,
                      int rate, int seconds, int spread, int publish, int linelen) {
    static char numbers[8][16], inputs[256 * 12];
    snprintf(numbers[0], 16, "%d", n); snprintf(numbers[1], 16, "%d", rate); snprintf(numbers[2], 16, "%d", seconds);
    snprintf(numbers[3], 16, "%d", linelen); snprintf(numbers[4], 16, "%d", sub[0]);
    size_t used = 0;
    for (int i = 0; i < n; i++) used += snprintf(inputs + used, sizeof inputs - used, "%s%d", i ? "," : "", pairs[i][0]);
    char *args[300]; int k = 0;
    for (int i = 0; i < argc && k < 270; i++) args[k++] = argv[i];
    args[k++] = "--machines"; args[k++] = numbers[0]; args[k++] = "--rate"; args[k++] = numbers[1];
    args[k++] = "--duration"; args[k++] = numbers[2]; args[k++] = "--line-bytes"; args[k++] = numbers[3];
    if (spread) args[k++] = "--spread";
    if (publish) { args[k++] = "--publish"; args[k++] = "--output"; args[k++] = numbers[4]; }
    args[k++] = "--inputs"; args[k++] = inputs; args[k] = NULL;
    fflush(stdout);
    pid_t reader = fork();
    if (reader == 0) {
        for (int i = 0; i < n; i++) fcntl(pairs[i][0], F_SETFD, 0);
        fcntl(sub[0], F_SETFD, 0);
        execv(args[0], args);
        perror("acquire-floor: --reader-exec");
        _exit(127);
    }
    int status = 1;
    if (reader < 0) perror("fork");
    else waitpid(reader, &status, 0);
    kill(writer, SIGKILL); close(sub[0]); waitpid(writer, NULL, 0); kill(subscriber, SIGKILL); waitpid(subscriber, NULL, 0);
    return reader > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
    int n = 10, rate = 4, seconds = 60, spread = 0, publish = 0, line_bytes = 0;
    char **reader_exec = NULL;  // --reader-exec's PATH and its arguments: the rest of argv
    int reader_argc = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--machines") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rate") && i + 1 < argc) rate = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--duration") && i + 1 < argc) seconds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--spread")) spread = 1;
        else if (!strcmp(argv[i], "--publish")) publish = 1;
        else if (!strcmp(argv[i], "--line-bytes") && i + 1 < argc) line_bytes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reader-exec") && i + 1 < argc) { reader_exec = argv + i + 1; reader_argc = argc - i - 1; break; }
        else { fprintf(stderr, "usage: %s [--machines N] [--rate HZ] [--duration S] [--spread] [--publish [--line-bytes B]] [--reader-exec PATH [ARG...]]\n", argv[0]); return 2; }
    }
    if (n < 1 || n > 256 || rate < 1 || seconds < 1 || line_bytes < 0 || line_bytes > 1024) { fprintf(stderr, "acquire-floor: bad arguments\n"); return 2; }
    int pairs[256][2];
    for (int i = 0; i < n; i++)
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pairs[i]) < 0) { perror("socketpair"); return 1; }
    int sub[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sub) < 0) { perror("socketpair"); return 1; }

    pid_t writer = fork();
    if (writer == 0) {  // bluetoothd's part
        static const unsigned char frame[] = {0x44,0x02,0x2c,0x01,0x5a,0x00,0x96,0x00,0x3c,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00,0x00};
        int timers = spread ? n : 1;
        int fds[256];
        for (int t = 0; t < timers; t++) {
            fds[t] = timerfd_create(CLOCK_MONOTONIC, 0);
            long period = 1000000000L / rate, phase = period * t / timers + 1000000;
            struct itimerspec spec = {{period / 1000000000L, period % 1000000000L}, {phase / 1000000000L, phase % 1000000000L}};
            timerfd_settime(fds[t], 0, &spec, NULL);
        }
        int ep = epoll_create1(0);
        for (int t = 0; t < timers; t++) { struct epoll_event e = {.events = EPOLLIN, .data.u32 = t}; epoll_ctl(ep, EPOLL_CTL_ADD, fds[t], &e); }
        for (;;) {
            struct epoll_event ev[256];
            int k = epoll_wait(ep, ev, 256, -1);
            for (int j = 0; j < k; j++) {
                uint64_t x; if (read(fds[ev[j].data.u32], &x, 8) < 0) continue;
                if (spread) send(pairs[ev[j].data.u32][1], frame, sizeof frame, 0);
                else for (int i = 0; i < n; i++) send(pairs[i][1], frame, sizeof frame, 0);
            }
        }
    }
    pid_t subscriber = fork();
    if (subscriber == 0) {  // a metrics-socket reader that drains what it gets
        char buf[65536];
        while (read(sub[1], buf, sizeof buf) > 0) {}
        _exit(0);
    }
    char line[1100];
    int linelen = snprintf(line, sizeof line, "{\"type\":\"sample\",\"machine\":\"SF-Bike-01\",\"data\":{\"instantaneous_speed\":30.0,\"instantaneous_cadence\":90.0,\"instantaneous_power\":150,\"heart_rate\":120,\"total_distance\":1234,\"elapsed_time\":600}}\n");
    // --line-bytes: a line of that size (padded inside the JSON with spaces), as long as the daemon's own.
    if (line_bytes > linelen) {
        memmove(line + line_bytes - 2, line + linelen - 2, 2);
        memset(line + linelen - 2, ' ', line_bytes - linelen);
        linelen = line_bytes;
    }
    if (reader_exec) return run_reader(reader_exec, reader_argc, pairs, n, sub, writer, subscriber, rate, seconds, spread, publish, linelen);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < n; i++) { struct epoll_event e = {.events = EPOLLIN, .data.u32 = i}; epoll_ctl(ep, EPOLL_CTL_ADD, pairs[i][0], &e); }
    // Warm up two seconds, then measure.
    double start = now_s(CLOCK_MONOTONIC), cpu0 = 0, wall0 = 0; long received = 0, received0 = 0, csw0 = 0; int measuring = 0;
    for (;;) {
        double t = now_s(CLOCK_MONOTONIC);
        if (!measuring && t - start >= 2) {
            struct rusage r; getrusage(RUSAGE_THREAD, &r);
            measuring = 1; cpu0 = now_s(CLOCK_THREAD_CPUTIME_ID); wall0 = t; received0 = received; csw0 = r.ru_nvcsw;
        }
        if (measuring && t - wall0 >= seconds) break;
        struct epoll_event ev[256];
        int k = epoll_wait(ep, ev, 256, 200);
        for (int j = 0; j < k; j++) {
            unsigned char buf[520];
            for (;;) {
                ssize_t got = recv(pairs[ev[j].data.u32][0], buf, sizeof buf, MSG_DONTWAIT);
                if (got < 0) break;
                received++;
                if (publish && write(sub[0], line, linelen) < 0) { perror("write"); return 1; }
            }
        }
    }
    struct rusage r; getrusage(RUSAGE_THREAD, &r);
    double cpu = now_s(CLOCK_THREAD_CPUTIME_ID) - cpu0, wall = now_s(CLOCK_MONOTONIC) - wall0;
    long got = received - received0, wakes = r.ru_nvcsw - csw0;
    kill(writer, SIGKILL); close(sub[0]); waitpid(writer, NULL, 0); kill(subscriber, SIGKILL); waitpid(subscriber, NULL, 0);
    printf("machines %d rate %d %s%s: %ld notifications in %.1f s, reader CPU %.4f %% of a core, %.2f us per notification, %.2f wake-ups per notification, %.1f us per wake-up\n",
           n, rate, spread ? "spread" : "bunched", publish ? " +publish" : "", got, wall, 100 * cpu / wall, 1e6 * cpu / (got ? got : 1),
           (double)wakes / (got ? got : 1), 1e6 * cpu / (wakes ? wakes : 1));
    return 0;
}
