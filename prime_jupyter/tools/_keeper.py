"""The process groups of `bash` tool commands die with the process that started them, however it ends.

Each command runs in a group of its own (`_process`), so that a timeout or an abort can stop all of it;
that also takes it out of reach of whatever ends the app. An `atexit` hook is no help against SIGKILL or a
crash, so the groups are handed to a keeper: one small `bash` per process, in a session of its own (the
terminal's hang-up and Ctrl+C do not reach it), reading group ids on a pipe whose only writer is this
process. When that process goes, for any reason, the pipe reaches end-of-file and the keeper stops every
group it was given (SIGTERM, then SIGKILL for what is left a second later) and exits.

Groups are forgotten once they are seen empty after their command, so a group id the system hands out
again later is not stopped by mistake; a group that outlived its command (`server &`) is kept until the end.
Contract: nothing here raises into the tool; without a keeper, commands run as before.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading

__all__ = ["adopt", "release"]

_SCRIPT = r"""
trap '' HUP INT TERM QUIT
declare -A groups
while IFS= read -r line; do
  [[ $line =~ ^-?[1-9][0-9]*$ ]] || continue
  if [[ $line == -* ]]; then unset "groups[${line#-}]"; else groups[$line]=1; fi
done
(( ${#groups[@]} )) || exit 0
for g in "${!groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null; done
for _ in 1 2 3 4 5 6 7 8 9 10; do
  alive=0
  for g in "${!groups[@]}"; do kill -0 -- "-$g" 2>/dev/null && alive=1; done
  (( alive )) || exit 0
  sleep 0.1
done
for g in "${!groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null; done
"""

_lock = threading.Lock()
_writer: int | None = None
_owner: int | None = None
"""The pid the keeper was started for: a forked child must not write to its parent's keeper."""
_process: subprocess.Popen[bytes] | None = None
"""Held so that the keeper, which is meant to outlive every reference to it, is no "still running" warning."""


def adopt(pgid: int, bash: str) -> None:
    """Hand the group to this process's keeper (started on first use with `bash`)."""
    _send(f"{pgid}\n", bash)


def release(pgid: int) -> None:
    """The group is empty: the keeper forgets it."""
    if _writer is not None and _owner == os.getpid():
        _send(f"-{pgid}\n", None)


def _send(line: str, bash: str | None) -> None:
    global _writer
    with _lock:
        fd = _keeper(bash)
        if fd is None:
            return
        try:
            os.write(fd, line.encode())
        except OSError:  # the keeper is gone (killed by hand): commands run unkept, as before
            with contextlib.suppress(OSError):
                os.close(fd)
            _writer = None


def _keeper(bash: str | None) -> int | None:
    """The write end of the keeper's pipe, starting the keeper if there is none for this process."""
    global _writer, _owner, _process
    if _writer is not None and _owner == os.getpid():
        return _writer
    if bash is None:
        return None
    read_fd, write_fd = os.pipe()  # neither is inherited by other children (close_fds, non-inheritable)
    try:
        _process = subprocess.Popen(
            [bash, "-c", _SCRIPT],
            stdin=read_fd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
        )
    except OSError:
        os.close(write_fd)
        return None
    finally:
        os.close(read_fd)
    _writer, _owner = write_fd, os.getpid()
    return write_fd
