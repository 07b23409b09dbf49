#!/usr/bin/env python3
"""The kernel's own answer for the root resolver's tests: openat2(2) with RESOLVE_IN_ROOT.

Reads one JSON request per line on stdin, answers one JSON line per request on stdout:
  {"root": "/abs/root", "path": "etc/x", "follow": true, "read": false}
  -> {"real": "/abs/root/etc/x"} (where the kernel resolved it: readlink of the descriptor)
     {"real": ..., "data": "<hex>"} with "read": true (the file's bytes)
     {"errno": "ENOENT"} when openat2 fails.
"""
import ctypes
import errno
import json
import os
import struct
import sys

SYS_OPENAT2 = {"x86_64": 437, "aarch64": 437}.get(os.uname().machine, 437)
RESOLVE_IN_ROOT = 0x10
O_PATH = 0o10000000

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def openat2(dirfd, path, flags, resolve):
    how = struct.pack("QQQ", flags, 0, resolve)
    buf = ctypes.create_string_buffer(how, len(how))
    fd = libc.syscall(SYS_OPENAT2, dirfd, path.encode(), buf, len(how))
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return fd


def answer(req):
    root = os.open(req["root"], os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = O_PATH if not req.get("read") else os.O_RDONLY
        if not req.get("follow", True):
            flags |= os.O_NOFOLLOW
        fd = openat2(root, req["path"], flags, RESOLVE_IN_ROOT)
    except OSError as e:
        return {"errno": errno.errorcode.get(e.errno, str(e.errno))}
    finally:
        os.close(root)
    try:
        out = {"real": os.readlink(f"/proc/self/fd/{fd}")}
        if req.get("read"):
            chunks = []
            while True:
                b = os.read(fd, 65536)
                if not b:
                    break
                chunks.append(b)
            out["data"] = b"".join(chunks).hex()
        return out
    finally:
        os.close(fd)


for line in sys.stdin:
    if line.strip() == "":
        continue
    try:
        result = answer(json.loads(line))
    except Exception as e:  # an answer, so the test sees it
        result = {"error": repr(e)}
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
