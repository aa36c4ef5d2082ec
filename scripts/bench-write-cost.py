#!/usr/bin/env python3
"""bench-write-cost.py — what the kernel charges for writing `decode`'s output, apart from decode.

Why: a 0x2AD2 record is 369 bytes of JSON, and about half of `ftms-bridge decode`'s CPU per frame
is the kernel putting those bytes into the page cache (docs/performance.md, "The floors"). Before trying to make
that cheaper from user space (bigger writes, preallocation), this measures each way on its own:
system CPU time per 369 bytes for `write` in several block sizes into a new file, into pages the
file already has, truncating the file afterwards, and `posix_fallocate` ahead of the writes.

usage: bench-write-cost.py [--dir /dev/shm] [--bytes-per-frame 369] [--frames 1000000] [--repeat 2]
"""
import argparse
import os
import resource
import tempfile


def system_seconds():
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp")
    ap.add_argument("--bytes-per-frame", type=int, default=369)
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    total = args.bytes_per_frame * args.frames
    fd_dir = tempfile.mkdtemp(prefix="write-cost.", dir=args.dir)
    path = os.path.join(fd_dir, "out")

    def per_frame(seconds):
        return f"{seconds * 1e9 / args.frames:.0f}"

    def fill(fd, block, fallocate_step=0):
        data = b"x" * block
        written = 0
        while written < total:
            if fallocate_step and written % fallocate_step == 0:
                os.posix_fallocate(fd, written, fallocate_step)
            written += os.write(fd, data)
        return written

    rows = []
    try:
        for _ in range(args.repeat):
            for block in (64 << 10, 1 << 20, 4 << 20, 16 << 20):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                start = system_seconds()
                fill(fd, block)
                rows.append((f"write, new file, {block >> 10} KiB blocks", per_frame(system_seconds() - start)))
                os.close(fd)
                if block == 1 << 20:
                    fd = os.open(path, os.O_WRONLY)
                    start = system_seconds()
                    fill(fd, block)
                    rows.append(("write, 1 MiB blocks, into pages the file has", per_frame(system_seconds() - start)))
                    start = system_seconds()
                    os.ftruncate(fd, 0)
                    rows.append(("truncating the file to 0", per_frame(system_seconds() - start)))
                    os.close(fd)
                os.unlink(path)
            for label, step in (("posix_fallocate all ahead, then write 1 MiB blocks", -1),
                                ("posix_fallocate 16 MiB steps, write 1 MiB blocks", 16 << 20)):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                start = system_seconds()
                if step < 0:
                    os.posix_fallocate(fd, 0, total + (1 << 20))
                    written = fill(fd, 1 << 20)
                else:
                    written = fill(fd, 1 << 20, step)
                os.ftruncate(fd, written)
                rows.append((label, per_frame(system_seconds() - start)))
                os.close(fd)
                os.unlink(path)
    finally:
        if os.path.exists(path):
            os.unlink(path)
        os.rmdir(fd_dir)
    merged = {}
    for label, value in rows:
        merged.setdefault(label, []).append(value)
    print(f"| into {args.dir}, {total >> 20} MiB | ns of system CPU per {args.bytes_per_frame} bytes |")
    print("|---|---:|")
    for label, values in merged.items():
        print(f"| {label} | {', '.join(values)} |")
    with open("/sys/kernel/mm/transparent_hugepage/shmem_enabled") as f:
        print(f"transparent huge pages for tmpfs: {f.read().strip()}")


if __name__ == "__main__":
    main()
