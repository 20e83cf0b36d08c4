"""A report's inputs that mine did not write as they are: a validation card (`--card`) of
another shape than the page draws, or that is no JSON file, is refused in one line naming
it, and no page is written."""

from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path

import pytest

from mine.models import supernim as model
from tests.mine_cli import here, mine, one_line_error
from tests.strategies.test_supernim_codegen import fitted as fitted_fixture

INTERVAL = {"mean": 0.5, "count": 2, "ci95": [0.1, 0.9]}
ROW = {
    "games": 4, "win": INTERVAL, "draw": INTERVAL, "loss": INTERVAL, "cutoff_rate": 0.0,
    "mean_margin": 1.5, "mean_margin_ci95": [0.0, 3.0], "invalid_moves": 0,
    "p99_move_seconds": 0.01,
    "against_value": {"below_value": INTERVAL, "odd_first_wins": INTERVAL,
                      "even_losses": INTERVAL, "mean_margin_minus_value": 0.5},
}  # fmt: skip
CARD = {
    "depth": 2,
    "budget_seconds": 0.2,
    "rules_text": "default rules",
    "against": {"random": ROW},
}


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("table")
    return model.write_table(folder / "t.parquet", fitted_fixture.__wrapped__())


def report(table: Path, card: Path, run=here):
    return run("report", "supernim", "--table", table, "--card", card,
               "--out", card.parent / "page.html")  # fmt: skip


def test_a_card_of_the_shape_validate_writes_draws_its_page(table, tmp_path):
    (tmp_path / "card.json").write_text(json.dumps(CARD))
    result = report(table, tmp_path / "card.json")
    assert result.returncode == 0, result.stderr
    assert "random" in (tmp_path / "page.html").read_text()


@pytest.mark.parametrize("out", ["card.json", "link.html"])
def test_a_page_is_not_written_over_the_card_it_draws(table, tmp_path, out):
    card = tmp_path / "card.json"
    card.write_text(json.dumps(CARD))
    (tmp_path / "link.html").symlink_to(card)
    result = here("report", "supernim", "--table", table, "--card", card, "--out", tmp_path / out)
    assert "this command reads that file" in one_line_error(result)
    assert json.loads(card.read_text()) == CARD


def _set(path: str, value):
    """The card with `value` at `path` (keys joined by dots; `-` removes the key)."""

    def change(card: dict) -> dict:
        card = copy.deepcopy(card)
        *keys, last = path.split(".")
        inner = card
        for key in keys:
            inner = inner[key]
        if value == "-":
            del inner[last]
        else:
            inner[last] = value
        return card

    return change


GARBAGE = {
    "a list": lambda card: [card],
    "null": lambda card: None,
    "opponents a list": _set("against", [ROW]),
    "a row a number": _set("against.random", 1),
    "no win": _set("against.random.win", "-"),
    "a win a number": _set("against.random.win", 0.5),
    "a win without its interval": _set("against.random.win", {"mean": 0.5}),
    "an interval of one bound": _set("against.random.loss.ci95", [0.1]),
    "a rate in words": _set("against.random.draw.mean", "half"),
    "no margin": _set("against.random.mean_margin", "-"),
    "the value a list": _set("against.random.against_value", []),
    "the value empty": _set("against.random.against_value", {}),
    "the value's margin in words": _set(
        "against.random.against_value.mean_margin_minus_value", "x"
    ),
}


@pytest.mark.parametrize("garbage", GARBAGE, ids=str)
def test_a_card_of_another_shape_is_one_line(table, tmp_path, garbage):
    card = tmp_path / "card.json"
    card.write_text(json.dumps(GARBAGE[garbage](CARD)))
    line = one_line_error(report(table, card))
    assert f"{card}: not a card" in line
    assert not (tmp_path / "page.html").exists()


def _fifo(path: Path) -> None:
    os.mkfifo(path)


NOT_CARDS = {
    "no JSON": lambda path: path.write_text("win: 1\n"),
    "nested deep": lambda path: path.write_text("[" * 100_000 + "]" * 100_000),
    "a FIFO": _fifo,
    "/dev/zero": lambda path: path.symlink_to("/dev/zero"),
    "a folder": lambda path: path.mkdir(),
}


@pytest.mark.parametrize("kind", NOT_CARDS, ids=str)
def test_a_card_that_is_no_json_file_is_one_line(table, tmp_path, kind):
    card = tmp_path / "card.json"
    NOT_CARDS[kind](card)
    # In a process of its own, with a timeout, what could be read forever.
    run = functools.partial(mine, timeout=60) if kind in ("a FIFO", "/dev/zero") else here
    assert str(card) in one_line_error(report(table, card, run))
    assert not (tmp_path / "page.html").exists()
