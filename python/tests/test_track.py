"""qrtl.TrackFilter against `qrtl track filter` and `qrtl track check`."""

import pytest
import qrtl

from conftest import REPO

TRACK = REPO / "queries" / "track"


@pytest.mark.parametrize("variables", ["exact", "or", "buffer", "expand"])
def test_city_equals_cli(qrtl_cli, variables):
    regions = TRACK / "regions.yaml"
    want = qrtl_cli.json_lines(
        "track", "filter", "--variables", variables, TRACK / "patterns.txt",
        TRACK / "city.csv", "--regions", regions,
    )
    t = qrtl.TrackFilter(TRACK / "patterns.txt", regions=regions, variables=variables)
    got = t.filter(str(TRACK / "city.csv"))
    assert [(r.trajectory, r.matched) for r in got] == [
        (w["trajectory"], w["matched"]) for w in want
    ]
    assert any(r.matched for r in got)


def test_named_regions_from_text_and_bytes_equal_cli(qrtl_cli):
    want = qrtl_cli.json_lines("track", "filter", TRACK / "named.txt", TRACK / "named.csv")
    t = qrtl.TrackFilter((TRACK / "named.txt").read_text())
    got = t.filter((TRACK / "named.csv").read_bytes())
    assert [(r.trajectory, r.matched) for r in got] == [
        (w["trajectory"], w["matched"]) for w in want
    ]
    assert len(t) == 4


def test_events_equal_the_cli_sim_count(qrtl_cli):
    want = qrtl_cli.json_lines(
        "track", "sim", "--simulator", "icarus", TRACK / "named.txt", TRACK / "named.csv"
    )
    got = qrtl.TrackFilter(TRACK / "named.txt", variables="buffer").filter(str(TRACK / "named.csv"))
    assert [(r.trajectory, r.events) for r in got] == [(w["trajectory"], w["events"]) for w in want]
    assert all(r.events > 0 for r in got)


def test_pattern_errors_carry_every_diagnostic_as_the_cli_prints_them(qrtl_cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("A.B\nA..B\n@x.{\n")
    with pytest.raises(qrtl.QueryError) as e:
        qrtl.TrackFilter(bad)
    cli = qrtl_cli("track", "check", bad, check=False)
    assert str(e.value) == cli.stderr.decode().rstrip("\n")
    assert [d.line for d in e.value.diagnostics] == [2, 3]
    assert all(d.file == str(bad) and d.column > 0 for d in e.value.diagnostics)


def test_a_region_outside_the_map_is_a_query_error():
    with pytest.raises(qrtl.QueryError) as e:
        qrtl.TrackFilter("airport.moon\n", regions=TRACK / "regions.yaml")
    [d] = e.value.diagnostics
    assert (d.file, d.line, d.column) == ("<patterns>", 1, 9)


def test_bad_trajectory_rows_raise_input_error_with_positions():
    t = qrtl.TrackFilter("A.B\n")
    with pytest.raises(qrtl.InputError) as e:
        t.filter(b"traj_id,timestamp,region\nt,10,A\nt,5,B\n")
    [d] = e.value.diagnostics
    assert (d.file, d.line) == ("<trajectories #0>", 3)


def test_missing_files_raise_oserror_with_the_path(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        qrtl.TrackFilter("A\n", regions=tmp_path / "none.yaml")
    assert e.value.filename == str(tmp_path / "none.yaml")
    with pytest.raises(FileNotFoundError):
        qrtl.TrackFilter("A\n").filter(str(tmp_path / "none.csv"))
