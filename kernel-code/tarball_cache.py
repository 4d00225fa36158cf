# SPDX-License-Identifier: LGPL-2.1-or-later
"""Unpack a few members of a kernel source tarball, through a shared cache.

A build extracts the same two or three files (fs/dcache.c, lib/lockref.c,
what a series touches) from linux-source-6.1 and 6.12 for every variant:
the base tree, the series, the example and corpus patches, and each build
directory (normal, check, the sanitizer builds) again.  The members sit
near the end of the xz stream, so every extraction decompresses most of a
1.5 GB tree: about 10 CPU-seconds each, some 80 times in one CI run.

unpack() keeps each member it has extracted once, under a key made of the
tarball's real path, size and mtime, and copies it from there afterwards.
What the cache holds is only ever a verbatim member of the tarball, never
a patched file: patches are applied by the caller to its own copy.

The cache is $DCSIM_KC_CACHE if set (the value "off" disables it), else
$XDG_CACHE_HOME/dcsim/tarball-members (~/.cache/... without XDG).  It is
safe to share between concurrent builds: a lock file serialises the
extraction for one tarball, and each member enters the cache by rename,
so a reader sees a whole file or none.  A cache that cannot be created
(read-only home, say) is skipped with no error: the extraction then runs
as it did without one.
"""

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile


def cache_root():
    env = os.environ.get("DCSIM_KC_CACHE")
    if env is not None:
        return None if env in ("", "off") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "dcsim", "tarball-members")


def tar_extract(tarball, names, dest):
    """Runs tar; returns None on success, else tar's output."""
    # -xf: tar finds the compression itself (the tests use a small
    # uncompressed tarball of the same members); --occurrence=1: each
    # member is there once, so tar stops reading after the last one.
    r = subprocess.run(["tar", "-xf", tarball, "--occurrence=1", "-C", dest] + names,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout if r.returncode else None


def unpack(tarball, top, members, dest):
    """Puts top/m for each m of @members under @dest.

    Return: None on success, else tar's error output (nothing is cached then).
    """
    names = ["%s/%s" % (top, m) for m in sorted(members)]
    root = cache_root()
    if root is not None:
        try:
            st = os.stat(tarball)
            key = hashlib.sha256(("%s\0%d\0%d" % (os.path.realpath(tarball), st.st_size,
                                                  st.st_mtime_ns)).encode()).hexdigest()[:24]
            slot = os.path.join(root, key)
            os.makedirs(slot, exist_ok=True)
        except OSError:
            root = None
    if root is None:
        return tar_extract(tarball, names, dest)

    missing = lambda: [n for n in names if not os.path.isfile(os.path.join(slot, n))]
    if missing():
        with open(slot + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)	# one extraction per tarball at a time
            todo = missing()			# another build may have done it meanwhile
            if todo:
                tmp = tempfile.mkdtemp(prefix="unpack.", dir=root)
                try:
                    err = tar_extract(tarball, todo, tmp)
                    if err is not None:
                        return err
                    for n in todo:
                        os.makedirs(os.path.dirname(os.path.join(slot, n)), exist_ok=True)
                        os.replace(os.path.join(tmp, n), os.path.join(slot, n))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
    for n in names:
        os.makedirs(os.path.dirname(os.path.join(dest, n)), exist_ok=True)
        shutil.copyfile(os.path.join(slot, n), os.path.join(dest, n))
    return None
