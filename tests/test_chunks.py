"""Chunks of work on threads (``rapids_balance._chunks``): each chunk once, errors raised,
and a forked child gets threads of its own (it inherits the pool object, not its threads)."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from rapids_balance._chunks import run_chunks


def test_every_chunk_runs_once_and_the_first_on_the_calling_thread():
    seen: dict[int, str] = {}
    run_chunks(lambda c: seen.setdefault(c, threading.current_thread().name), 5)
    assert sorted(seen) == [0, 1, 2, 3, 4]
    assert seen[0] == threading.current_thread().name
    assert all(name.startswith("rapids-balance-chunk") for c, name in seen.items() if c)


def test_a_failing_chunk_raises_after_the_others_finished():
    done = []

    def chunk(c):
        if c == 2:
            raise ValueError("chunk 2")
        done.append(c)

    with pytest.raises(ValueError, match="chunk 2"):
        run_chunks(chunk, 4)
    assert sorted(done) == [0, 1, 3]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="needs fork")
def test_a_forked_child_runs_its_chunks():
    run_chunks(lambda c: None, 3)  # the parent's pool exists
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the chunks must run (not wait on the parent's threads)
        out = []
        run_chunks(out.append, 3)
        os.write(w, bytes(sorted(out)))
        os._exit(0)
    os.close(w)
    os.waitpid(pid, 0)
    assert os.read(r, 16) == bytes([0, 1, 2])


def test_chunks_within_a_chunk_run_on_its_thread():
    # every pool thread busy with an outer chunk that runs inner chunks: no wait on the pool
    inner = []
    run_chunks(lambda c: run_chunks(lambda d: inner.append((c, d)), 3), 8)
    assert sorted(inner) == [(c, d) for c in range(8) for d in range(3)]
