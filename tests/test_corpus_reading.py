"""Inputs that used to exhaust memory or read twice: every case names the file and how far it got.

A gzip that expands past the memory available, a file with one huge line,
``/dev/zero`` and an endless pipe, a file larger than the memory available
(all simulated with a small memory budget, so the test files stay small),
a ``.g`` file declaring no edges, a 5,003-column file's message, and the
run manifest's checksum taken from the bytes actually read.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import json
import os

import pytest

import rapids_balance as rb
from rapids_balance import cli
from rapids_balance.errors import GraphFormatError, GraphInputError
from rapids_balance.io import _sources

ROWS = b"1,2,1\n2,3,-1\n3,1,1\n" * 50_000  # 900 kB of text


def run_main(capsys, argv):
    code = cli.main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def small_memory(monkeypatch):
    monkeypatch.setattr(_sources, "memory_budget", lambda: 200_000)


def test_gzip_trailer_refuses_before_decompressing(tmp_path, small_memory):
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(ROWS))
    with pytest.raises(MemoryError, match=r"bomb.csv.gz: gzip data whose trailer gives 950.0 kB uncompressed, "
                                          r"more than the 200.0 kB of memory available"):
        rb.read_edgelist(path)


def test_decompression_stops_where_the_memory_ends(tmp_path, small_memory):
    path = tmp_path / "bomb.csv.bz2"  # bz2 declares no size: found while decompressing
    path.write_bytes(bz2.compress(ROWS))
    with pytest.raises(MemoryError) as info:
        rb.read_edgelist(path)
    text = str(info.value)
    assert text.startswith(f"{path}: bz2 data expanding past ") and " of its " in text
    lying = tmp_path / "lying.csv.gz"  # a gzip trailer is the size modulo 4 GiB: not trusted alone
    data = bytearray(gzip.compress(ROWS))
    data[-4:] = (10).to_bytes(4, "little")
    lying.write_bytes(bytes(data))
    with pytest.raises((MemoryError, GraphFormatError), match="lying.csv.gz"):
        rb.read_edgelist(lying)


def test_out_of_memory_inside_gzip_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "g.csv.gz"
    path.write_bytes(gzip.compress(ROWS))

    def no_memory(self, *args):
        raise MemoryError()

    monkeypatch.setattr(gzip.GzipFile, "read", no_memory)
    with pytest.raises(MemoryError, match=r"g.csv.gz: out of memory decompressing the gzip data after 0 bytes"):
        rb.read_edgelist(path)


def test_file_larger_than_memory_is_refused_before_reading(tmp_path, small_memory, capsys):
    path = tmp_path / "big.csv"
    path.write_bytes(ROWS)
    with pytest.raises(MemoryError, match=r"big.csv: the file is 950.0 kB, more than the 200.0 kB"):
        rb.read_edgelist(path)
    code, _, err = run_main(capsys, ["info", path])
    assert code == 2 and err.count("\n") == 1 and "big.csv: the file is 950.0 kB" in err


def test_one_huge_line_is_refused_before_parsing(tmp_path, capsys):
    path = tmp_path / "one-line.csv"
    path.write_bytes(b"1,2,1," * 400_000)  # 2.4 MB without a line end
    with pytest.raises(GraphFormatError, match=r"one-line.csv, line 1: a line longer than 1.0 MiB"):
        rb.read_edgelist(path)
    code, _, err = run_main(capsys, ["info", path])
    assert code == 2 and "a line longer than 1.0 MiB" in err
    path.write_bytes(b"1,2,1\n" * 10 + b"7" * 3_000_000 + b",8,1\n")
    with pytest.raises(GraphFormatError, match=r"line 11: a line longer than"):
        rb.read_edgelist(path)


def test_dev_zero_is_refused_at_once(capsys):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(GraphFormatError, match=r"/dev/zero: binary data \(only zero bytes"):
        rb.read_edgelist("/dev/zero")
    code, _, err = run_main(capsys, ["info", "/dev/zero"])
    assert code == 2 and err.count("\n") == 1 and "binary data" in err


def test_endless_stream_stops_at_the_memory_budget(monkeypatch):
    if not os.path.exists("/dev/urandom"):
        pytest.skip("no /dev/urandom")
    monkeypatch.setattr(_sources, "memory_budget", lambda: 6 << 20)
    with pytest.raises(MemoryError, match=r"/dev/urandom: not a regular file, and still sending data after "
                                          r"8.0 MiB"):
        rb.read_edgelist("/dev/urandom")


def test_levorato_file_declaring_no_edges(tmp_path, capsys):
    for name, text in (("empty.g", "5 0\n"), ("empty.txt", "5 0\n"), ("query.g", "5 0\n3 16\n")):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(GraphFormatError, match=rf"{name}, line 1: empty graph: the .g header declares "
                                                   r"5 vertices and 0 edges"):
            rb.read_edgelist(path)
        code, _, err = run_main(capsys, ["info", path])
        assert code == 2 and "empty graph" in err and "sign" not in err


def test_wide_file_message_is_short_and_keeps_the_advice(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    header = ",".join(f"c{i}" for i in range(5003))
    path.write_text(header + "\n" + ",".join(["1"] * 5003) + "\n" + ",".join(["2"] * 5003) + "\n")
    with pytest.raises(GraphInputError) as info:
        rb.read_edgelist(path)
    text = str(info.value)
    assert len(text) < 600 and "4989 more" in text and "'c5002'" in text
    assert text.endswith("(CLI: --source COL --target COL)")
    code, _, err = run_main(capsys, ["info", path])
    assert code == 2 and len(err) < 600 and err.rstrip().endswith("--source COL --target COL")


def test_run_json_checksum_is_of_the_bytes_read(tmp_path, capsys, monkeypatch):
    from rapids_balance import _manifest

    path = tmp_path / "g.csv"
    body = b"1,2,1\n2,3,-1\n3,1,1\n3,4,1\n"
    path.write_bytes(body)
    real_read = _sources._read_raw

    def read_then_change(source):
        got = real_read(source)
        path.write_bytes(body + b"4,1,-1\n")  # the file changes once it was read
        return got

    monkeypatch.setattr(_sources, "_read_raw", read_then_change)
    monkeypatch.setattr(_manifest, "file_sha256", lambda *_: pytest.fail("the input was read a second time"))
    out = tmp_path / "o"
    code, _, err = run_main(capsys, ["balance", path, "--trees", "2", "--out", out, "--quiet", "--backend", "cpu"])
    assert code == 0, err
    record = json.loads((out / "run.json").read_text())["input"]
    assert record["sha256"] == hashlib.sha256(body).hexdigest() and record["bytes"] == len(body)


def test_out_of_memory_while_parsing_names_the_file(tmp_path, capsys, monkeypatch):
    from rapids_balance.io import _reader

    path = tmp_path / "g.csv"
    path.write_bytes(b"1,2,1\n2,3,-1\n3,1,1\n")

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate output buffer.")

    monkeypatch.setattr(_reader, "parse", no_memory)
    code, _, err = run_main(capsys, ["balance", path, "--trees", "2", "--out", tmp_path / "o", "--quiet",
                                     "--backend", "cpu"])
    assert code == 2 and err.count("\n") == 1
    assert f"{path}: out of memory parsing the edge list after its 19 bytes were read" in err


def test_corrupt_gzip_is_called_corrupt_whatever_its_last_bytes_spell(tmp_path, capsys):
    # the gzip magic bytes, then junk whose last four bytes read as a 3.8 GiB trailer
    path = tmp_path / "corrupt.csv.gz"
    path.write_bytes(b"\x1f\x8b" + bytes(range(7, 250)) * 20 + (0xF3000000).to_bytes(4, "little"))
    with pytest.raises(GraphFormatError, match=r"corrupt.csv.gz: corrupt gzip data: compression method 7"):
        rb.read_edgelist(path)
    # a valid header, then junk instead of a deflate stream, and the same trailer
    junk = tmp_path / "junk.csv.gz"
    junk.write_bytes(gzip.compress(ROWS)[:10] + b"\xff" * 4000 + (0xF3000000).to_bytes(4, "little"))
    with pytest.raises(GraphFormatError, match=r"junk.csv.gz: corrupt gzip data"):
        rb.read_edgelist(junk)
    code, _, err = run_main(capsys, ["info", junk])
    assert code == 2 and err.count("\n") == 1 and "corrupt gzip data" in err and "GiB" not in err


def test_gzip_bomb_whose_trailer_wraps_stops_early(tmp_path, monkeypatch, capsys):
    # 8 GiB is 0 modulo 4 GiB: a bomb's trailer can announce nothing; the stream is measured instead
    monkeypatch.setattr(_sources, "memory_budget", lambda: 3 << 20)
    data = bytearray(gzip.compress(b"1,2,1\n" * 10_000_000, compresslevel=9))  # 60 MB of text
    data[-4:] = (0).to_bytes(4, "little")
    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(MemoryError) as info:
        rb.read_edgelist(path)
    text = str(info.value)
    assert text.startswith(f"{path}: gzip data expanding past ") and "decompression bomb" in text
    done, whole = text.split(" after ")[1].split(" (over")[0].split(" of its ")
    assert done != whole  # stopped before the end of the compressed data
    code, _, err = run_main(capsys, ["info", path])
    assert code == 2 and err.count("\n") == 1 and "decompression bomb" in err
