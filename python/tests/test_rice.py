"""qrtl.rice_encode / rice_decode against `qrtl rice encode|decode`."""

import random

import pytest
import qrtl

CODES = [
    (0, {}, []),
    (3, {}, []),
    (5, {"unary": "ones", "bit_order": "lsb"}, ["--unary", "ones", "--bit-order", "lsb"]),
    (2, {"width": 12}, ["--width", "12"]),
]


@pytest.mark.parametrize("k,options,flags", CODES)
def test_round_trips_against_the_cli(qrtl_cli, tmp_path, k, options, flags):
    rng = random.Random(k)
    limit = (1 << options.get("width", 20)) - 1
    ints = [rng.randint(0, min(limit, 40 << k)) for _ in range(500)]
    (tmp_path / "ints.txt").write_text("".join(f"{v}\n" for v in ints))
    qrtl_cli("rice", "encode", tmp_path / "ints.txt", "--k", k, *flags, "-o", tmp_path / "cli.gr")
    data = qrtl.rice_encode(ints, k, **options)
    assert data == (tmp_path / "cli.gr").read_bytes()
    (tmp_path / "py.gr").write_bytes(data)
    cli = qrtl_cli("rice", "decode", tmp_path / "py.gr", "--k", k, *flags)
    assert [int(v) for v in cli.stdout.split()] == ints
    assert qrtl.rice_decode(str(tmp_path / "cli.gr"), k, **options) == ints
    assert qrtl.rice_decode(data, k, count=len(ints), **options) == ints


def test_count_keeps_the_first_values_and_refuses_too_few():
    data = qrtl.rice_encode([0, 0, 0], 0)
    assert qrtl.rice_decode(data, 0, count=2) == [0, 0]
    with pytest.raises(ValueError, match="3 values, fewer than count=4"):
        qrtl.rice_decode(data, 0, count=4)


def test_a_truncated_stream_warns_as_the_cli_notes(qrtl_cli, tmp_path):
    data = qrtl.rice_encode([1000, 7], 2)[:-1]
    (tmp_path / "cut.gr").write_bytes(data)
    note = qrtl_cli("rice", "decode", tmp_path / "cut.gr", "--k", "2").stderr.decode().strip()
    with pytest.warns(UserWarning) as w:
        values = qrtl.rice_decode(str(tmp_path / "cut.gr"), 2)
    assert values == [1000]
    assert str(w[0].message) == note


def test_overflow_and_bad_parameters_raise_value_error():
    with pytest.raises(ValueError, match="quotient overflow"):
        qrtl.rice_decode(bytes(40) + b"\xff", 0, width=8)
    with pytest.raises(ValueError, match="does not fit"):
        qrtl.rice_encode([256], 2, width=8)
    with pytest.raises(ValueError, match="unary"):
        qrtl.rice_encode([1], 2, unary="twos")
    with pytest.raises(ValueError):
        qrtl.rice_encode([1], 64)
    with pytest.raises(OverflowError):
        qrtl.rice_encode([-1], 2)
