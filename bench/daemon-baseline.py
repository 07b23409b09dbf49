#!/usr/bin/env python3
"""The baseline of bench/daemon: the syscalls the daemon makes to write N files, in one process.

For each file, as the daemon's config writer and its rooted file adapter do on a fresh root:
  - the `.mcdnoorig` bookkeeping: lstat the stamp, the target and the `.mcdorig` backup (all
    missing), then write the empty stamp under /etc/machine-config-daemon/noorig atomically;
  - the file itself, atomically.
An atomic write: resolve the path inside the root (lstat of each component, as an in-root
resolver walks it), create missing folders (mkdir, chmod 0755), open a temp file beside the
target (O_CREAT|O_EXCL, 0600), fchmod, write, fsync, fchown, fchmod (chown clears setuid bits),
close, rename over the target, then open the folder and fsync it.

Usage: daemon-baseline.py ROOT COUNT FILLER. Prints {"seconds": …} for the loop alone; the files
are /etc/bench/d<i % 10>/f<i>.conf with the bytes the bench's MachineConfig gives them.
"""
import json
import os
import secrets
import sys
import time

NOORIG = "/etc/machine-config-daemon/noorig"
ORIG = "/etc/machine-config-daemon/orig"


def main() -> None:
    root, count, filler = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    owner = 0 if os.geteuid() == 0 else None

    def walk(path: str) -> None:
        host = root
        for part in path.strip("/").split("/"):
            host = os.path.join(host, part)
            try:
                os.lstat(host)
            except FileNotFoundError:
                return

    def exists(path: str) -> bool:
        walk(path)
        try:
            os.lstat(root + path)
            return True
        except FileNotFoundError:
            return False

    def mkdirs(folder: str) -> None:
        missing = []
        while folder != root:
            try:
                os.lstat(folder)
                break
            except FileNotFoundError:
                missing.insert(0, folder)
                folder = os.path.dirname(folder)
        for m in missing:
            os.mkdir(m)
            os.chmod(m, 0o755)

    def write_atomic(path: str, data: bytes, mode: int) -> None:
        walk(path)
        target = root + path
        folder = os.path.dirname(target)
        mkdirs(folder)
        temp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.fchmod(fd, mode)
            os.write(fd, data)
            os.fsync(fd)
            if owner is not None:
                os.fchown(fd, owner, owner)
            os.fchmod(fd, mode)
        finally:
            os.close(fd)
        os.rename(temp, target)
        dfd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)

    started = time.perf_counter()
    for i in range(count):
        path = f"/etc/bench/d{i % 10}/f{i}.conf"
        stamp = f"{NOORIG}{path}.mcdnoorig"
        if not exists(stamp):
            exists(path)
            exists(f"{ORIG}{path}.mcdorig")
            write_atomic(stamp, b"", 0o644)
        write_atomic(path, f"# bench file {i}\n{filler}\n".encode(), 0o644)
    print(json.dumps({"seconds": time.perf_counter() - started}))


if __name__ == "__main__":
    main()
