"""Gin Rummy end to end through the real CLI: simulate → ingest (with the real server logs)
→ stats → fit → generate → validate → report."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from mine.models import ginrummy as model
from mine.models import tables
from mine.pipeline.cli import app
from mine.pipeline.reports.ginrummy import KNOCK, KNOCK_SCORES, LEGEND
from mine.pipeline.stats.ginrummy import load_features
from mine.strategies.validation.ginrummy import load
from tests.mine_cli import invoke, invoke_json

runner = CliRunner()
REAL_LOGS = Path(__file__).resolve().parents[2] / "examples" / "logs" / "ginrummy"


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    root = tmp_path_factory.mktemp("gin")
    db, table, player = root / "w.duckdb", root / "t.parquet", root / "player.py"
    invoke_json("simulate", "ginrummy", "--games", 30, "--seed", 3, "--out", root / "logs",
          "--players", "simple,explorer")  # fmt: skip
    ingested = invoke_json("ingest", root / "logs", REAL_LOGS, "--db", db)
    stats = invoke_json("stats", "ginrummy", "--db", db)
    fitted = invoke_json("fit", "ginrummy", "--db", db, "--out", table)
    result = runner.invoke(
        app, ["generate", "ginrummy", "--table", str(table), "--out", str(player), "--games", "0"]
    )
    assert result.exit_code == 0, result.output
    card = root / "card.json"
    card.write_text(invoke("validate", "ginrummy", player, "--games", 4, "--seed", 5,
                           "--baselines", "simple,random,ginhunter", "--workers", 1,
                           "--json").stdout)  # fmt: skip
    report = root / "r.html"
    # the page's strength section draws what validate measured, as the loop hands it on
    invoke("report", "ginrummy", "--table", table, "--db", db, "--out", report, "--card", card)
    return {"db": db, "table": table, "player": player, "ingested": ingested, "stats": stats,
            "fitted": fitted, "validated": json.loads(card.read_text()), "card": card,
            "report": report.read_text()}  # fmt: skip


def test_the_real_and_simulated_logs_land_and_are_counted(chain):
    assert chain["ingested"]["ok"] and chain["ingested"]["pairs"]["new"] == 30 + 12
    sources = set(chain["stats"]["discard_draws"])
    assert sources == {"server", "simulated"}
    con = duckdb.connect(str(chain["db"]), read_only=True)
    try:
        stored = con.execute("SELECT count(*) FROM stats_ginrummy_turn_features").fetchone()[0]
        turns = con.execute("SELECT count(*) FROM ginrummy_turns").fetchone()[0]
    finally:
        con.close()
    assert stored == turns


def test_the_fitted_tables_and_the_player_agree(chain):
    frame, metadata = tables.read(chain["table"], "ginrummy", model.KIND)
    assert metadata["games"] == 42 and metadata["sources"] == ["server", "simulated"]
    player = load(chain["player"])
    nested = model.nested(frame)
    knock, value = player.KNOCK, player.VALUE
    assert knock == nested["knock"] and value == nested["value"]
    assert np.array(player.DANGER).shape == (4, 3, 13)
    assert metadata["fingerprint"] in player.__doc__


def test_validation_covers_every_baseline_without_an_invalid_play(chain):
    against = chain["validated"]["against"]
    assert set(against) == {"simple", "random", "ginhunter"}
    for figures in against.values():
        assert figures["games"] == 4 and figures["invalid"] == 0
        assert 0 <= figures["win_ci"][0] <= figures["win_rate"] <= figures["win_ci"][1] <= 1


def test_the_report_draws_the_card_validate_wrote(chain):
    strength = chain["report"][chain["report"].index('<section id="strength">') :]
    strength = strength[: strength.index("</section>")]
    assert "(seed 5)" in strength  # validate's seed: no player measured again for the page
    assert "4 games against each of simple, random and ginhunter" in strength


def _figure(page: str, ident: str) -> str:
    """The inside of the report's figure (a kit chart) with this id."""
    found = re.findall(rf'<figure class="chart [\w-]+" id="{ident}">(.*?)</figure>', page, re.S)
    assert len(found) == 1, ident
    return found[0]


def test_the_report_draws_the_knock_policy_by_score_and_the_danger_grid(chain):
    page = chain["report"]
    charts = re.findall(r'<figure class="chart grid" id="knock-\d+-\d+">', page)
    assert len(charts) == len(KNOCK_SCORES)
    knock = np.array(model.nested(tables.read(chain["table"], "ginrummy", model.KIND)[0])["knock"])
    for _, mine, theirs in KNOCK_SCORES:
        chart = _figure(page, f"knock-{mine}-{theirs}")
        cells = re.findall(r'fill="(#[0-9a-f]{6})"><title>deadwood (\d+), turns (\d+)-', chart)
        assert len(cells) == 11 * model.TURN_BUCKETS
        for colour, deadwood, first in cells:
            knocks = knock[mine, theirs, int(deadwood), (int(first) - 1) // model.TURN_BUCKET]
            assert (colour == LEGEND[KNOCK][1]) == bool(knocks)
    # The danger grid: one cell per card, suits (rows) by ranks (columns).
    grid = _figure(page, "danger")
    cards = re.findall(r'fill="#[0-9a-f]{6}"><title>([SHDC](?:10|[2-9AJQK])): model ', grid)
    assert len(cards) == 4 * 13 and len(set(cards)) == 4 * 13
    # The thrown grid's cells show the fitted rates in per cent, turn bucket by turn bucket.
    thrown = _figure(page, "thrown")
    fitted = model.nested(tables.read(chain["table"], "ginrummy", model.KIND)[0])["thrown"]
    shown = [float(v) for v in re.findall(r'font-size="\d+">([\d.]+)</text>', thrown)]
    assert shown == [round(100 * rate, 1) for row in fitted for rate in row]
    assert "Draw decisions" in page and "server" in page
    # Undercuts by deadwood (with their intervals) and how rounds end are plotted; the
    # provenance is a table.
    assert "95 % interval" in _figure(page, "undercuts") and "<rect" in _figure(page, "endings")
    provenance = page[page.index('<table class="provenance">') :]
    assert chain["fitted"]["fingerprint"] in provenance


def test_stored_features_serve_only_while_they_hold_exactly_the_logs(chain, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(chain["db"], db)
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = con.sql("SELECT * FROM stats_ginrummy_turn_features").pl()
        assert load_features(con).equals(stored)
    finally:
        con.close()
    invoke_json("simulate", "ginrummy", "--games", 1, "--seed", 9, "--out", tmp_path / "more")
    assert invoke_json("ingest", tmp_path / "more", "--db", db)["pairs"]["new"] == 1
    con = duckdb.connect(str(db), read_only=True)
    try:
        logs = {log_id for (log_id,) in con.execute("SELECT log_id FROM logs").fetchall()}
        fresh = load_features(con)
    finally:
        con.close()
    assert set(fresh.get_column("log_id").unique()) == logs
    assert fresh.height > stored.height
    # Features stored by an older `mine stats` (a column short) are not read either.
    old = tmp_path / "old.duckdb"
    shutil.copy(chain["db"], old)
    con = duckdb.connect(str(old))
    try:
        con.execute("ALTER TABLE stats_ginrummy_turn_features DROP COLUMN opponent_unseen")
        assert load_features(con).equals(stored)
    finally:
        con.close()


def test_logs_and_source_choose_what_stats_fit_and_report_read(chain, tmp_path, monkeypatch):
    db, real = chain["db"], str(REAL_LOGS / "*")
    stats = invoke_json("stats", "ginrummy", "--db", db, "--logs", real)
    assert stats["rounds"] == 112 and set(stats["endings"]) == {"server"}
    assert stats["tables"]["stats_ginrummy_turn_features"] == stats["turns"] == 3450
    # The real logs chosen by file or by source are the same logs: the same fingerprint.
    by_file = invoke_json("fit", "ginrummy", "--db", db, "--logs", real, "--out", tmp_path / "a")
    by_source = invoke_json("fit", "ginrummy", "--db", db, "--source", "server",
                            "--out", tmp_path / "b")  # fmt: skip
    for fitted in (by_file, by_source):
        assert fitted["games"] == 12 and fitted["sources"] == ["server"]
    assert by_file["fingerprint"] == by_source["fingerprint"] != chain["fitted"]["fingerprint"]
    assert (by_file["settings"]["source"], by_source["settings"]["source"]) == ("all", "server")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    # Both narrow together; nothing left is one line.
    nothing = invoke("fit", "ginrummy", "--db", db, "--logs", real, "--source", "simulated",
                     "--out", tmp_path / "c", ok=False)  # fmt: skip
    assert nothing.exit_code == 1 and "no simulated Gin Rummy logs among" in nothing.stderr
    # Without a warehouse the page draws the tables alone.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MINE_DB", raising=False)
    invoke("report", "ginrummy", "--table", chain["table"], "--out", tmp_path / "alone.html",
           "--card", chain["card"])  # fmt: skip
    page = (tmp_path / "alone.html").read_text()
    assert 'id="knock-0-0"' in page and "Draw decisions" not in page
