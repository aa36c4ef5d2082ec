"""Where a process's resident memory is, from /proc/PID/smaps: the by-mapping breakdown
of what the daemon maps (bench-daemon.py --smaps, or `python3 scripts/lib/memory.py PID`)."""
import collections, glob, os, sys


ARENA_ALIGN = 64 << 20  # glibc's HEAP_MAX_SIZE on 64-bit: every non-main arena's heap starts on it


def _kind(name, start, size_kib):
    """A mapping's group: the file it maps (by base name), or what an anonymous one likely is
    (glibc arenas are 64 MB aligned; thread stacks are 8 MB, Swift's and NIO's default)."""
    if name == "[heap]":
        return "anon: [heap] (main arena)"
    if name.startswith("[stack"):
        return "anon: [stack] (main thread)"
    if name.startswith("["):
        return name
    if name:
        return "file: " + os.path.basename(name)
    if start % ARENA_ALIGN == 0:
        return "anon: malloc arenas (non-main)"
    if size_kib in (8188, 8192):
        return "anon: thread stacks (8 MB)"
    return "anon: other (mmapped blocks, small stacks)"


def mappings(pid):
    """(group, rss KiB, anonymous KiB, private-dirty KiB) for every mapping of the process."""
    rows, current = [], None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if not head:
                continue
            if "-" in head[0] and not head[0].endswith(":"):
                if current:
                    rows.append(current)
                name = head[5] if len(head) > 5 else ""
                low, high = (int(x, 16) for x in head[0].split("-"))
                current = {"name": _kind(name, low, (high - low) >> 10), "Rss": 0, "Anonymous": 0, "Private_Dirty": 0, "Size": 0}
            elif head[0].rstrip(":") in ("Rss", "Anonymous", "Private_Dirty", "Size") and current is not None:
                current[head[0].rstrip(":")] = int(head[1])
    if current:
        rows.append(current)
    return rows


def threads(pid):
    """Thread names and how many threads have each."""
    names = collections.Counter()
    for comm in glob.glob(f"/proc/{pid}/task/*/comm"):
        try:
            names[open(comm).read().strip()] += 1
        except OSError:
            pass
    return names


def breakdown(pid, top=14):
    """A few lines: smaps_rollup's totals, the largest groups by RSS, and the threads."""
    rollup = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                rollup[parts[0][:-1]] = int(parts[1])
    groups = collections.defaultdict(lambda: [0, 0, 0])
    for row in mappings(pid):
        group = groups[row["name"]]
        group[0] += row["Rss"]
        group[1] += row["Anonymous"]
        group[2] += 1
    lines = [f"memory: RSS {rollup.get('Rss', 0) / 1024:.1f} MB = anonymous {rollup.get('Anonymous', 0) / 1024:.1f} MB "
             f"+ file-backed {(rollup.get('Rss', 0) - rollup.get('Anonymous', 0)) / 1024:.1f} MB "
             f"(private dirty {rollup.get('Private_Dirty', 0) / 1024:.1f} MB, shared clean {rollup.get('Shared_Clean', 0) / 1024:.1f} MB)"]
    for name, (rss, anon, count) in sorted(groups.items(), key=lambda item: -item[1][0])[:top]:
        lines.append(f"memory:   {rss / 1024:6.2f} MB  (anon {anon / 1024:5.2f})  {count:3d} mapping(s)  {name}")
    names = threads(pid)
    lines.append(f"memory: {sum(names.values())} threads: " + ", ".join(f"{n} × {c}" if c > 1 else n for n, c in sorted(names.items())))
    return "\n".join(lines)


if __name__ == "__main__":
    print(breakdown(int(sys.argv[1]), top=int(sys.argv[2]) if len(sys.argv) > 2 else 14))
