"""The course stand-ins are compiled once into the cache and copied by every compile: GHC
then compiles only the file and the driver (seen in what it says, and in the objects it
leaves as they were copied), in a contained worker too. Their bytes, the flags, the
folders and the compiler make another entry; two processes that compile them at once
both use one whole entry; an entry that is not whole (a file changed or missing, no
manifest, another's) is not trusted: a compile compiles the stand-ins beside its file,
and the harness compiles it again."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
import subprocess
import sys

import pytest

from mine.strategies.haskell import build as course_build
from mine.strategies.haskell import programs
from mine.strategies.haskell.build import COURSES, WARNING, build, stand_ins, stand_ins_key
from tests.strategies.haskell_files import SMALLEST_PROJ1, needs_ghc

pytestmark = needs_ghc

PLAYER = """module Player (playCard) where

import Parser.Parser ()
import TwentyOne.Types

playCard :: PlayFunc
playCard Nothing _ _ _ _ _ = (Bid 10, "")
playCard _ _ _ _ _ _ = (Stand, "")
"""


def _compiled(said: str) -> list[str]:
    """The modules GHC compiled, as it says (it says nothing of a module it keeps)."""
    return re.findall(r"Compiling (\S+)", said)


def test_a_contained_compile_copies_the_harness_s_stand_ins(cache, readable, monkeypatch):
    """The harness compiles them into the cache; its worker (a user of its own when the
    harness is root) copies them: GHC compiles only the file and the driver."""
    said = readable / "tmp" / "said"

    def build_and_tell(*args):  # in the worker: what GHC said, where its user may write
        built = build(*args)
        said.write_text(built.output)
        return built

    monkeypatch.setattr(programs, "build", build_and_tell)
    path = readable / "Proj1.hs"
    path.write_text(SMALLEST_PROJ1)
    programs.prepare_source(path, path.read_bytes(), "cardguess")
    assert _compiled(said.read_text()) == ["Proj1", "Main"]
    assert programs.executable(path, "cardguess")


def _whole(kept) -> bool:
    """Every file the manifest names has the bytes it says, and it names every file."""
    said = json.loads((kept / "manifest.json").read_text())
    held = {str(p.relative_to(kept)) for p in kept.rglob("*") if p.is_file()}
    return held - {"manifest.json"} == set(said["files"]) and all(
        hashlib.sha256((kept / name).read_bytes()).hexdigest() == digest
        for name, digest in said["files"].items()
    )


@pytest.mark.parametrize("game", COURSES)
def test_the_stand_ins_compile_without_a_warning(game, haskell_stand_ins):
    said = json.loads((stand_ins(game, haskell_stand_ins) / "manifest.json").read_text())["ghc"]
    assert _compiled(said) and not [line for line in said.splitlines() if WARNING.search(line)]


def test_they_are_compiled_once_and_ghc_compiles_only_the_file_beside_them(
    haskell_stand_ins, tmp_path
):
    kept = stand_ins("twentyone", haskell_stand_ins)
    objects = {p.relative_to(kept / "build"): p.stat() for p in (kept / "build").rglob("*.o")}
    assert {str(name) for name in objects} == {"Cards.o", "Protocol.o", "TwentyOne/Types.o",
                                               "Parser/Parser.o", "Parser/Instances.o"}  # fmt: skip
    assert stand_ins("twentyone", haskell_stand_ins) == kept
    again = {p.relative_to(kept / "build"): p.stat() for p in (kept / "build").rglob("*.o")}
    assert {n: (s.st_ino, s.st_mtime_ns) for n, s in again.items()} == {
        n: (s.st_ino, s.st_mtime_ns) for n, s in objects.items()
    }  # found whole, not compiled again
    built = build("twentyone", PLAYER, tmp_path, kept)
    assert _compiled(built.output) == ["Player", "Main"] and built.program.exists()
    for name, made in objects.items():  # GHC kept each object as it was copied
        copy = tmp_path / "build" / name
        assert copy.stat().st_mtime_ns == made.st_mtime_ns
        assert copy.read_bytes() == (kept / "build" / name).read_bytes()


@pytest.fixture(scope="module")
def whole(haskell_stand_ins):
    """Card guessing's stand-ins compiled: the session's (a test copies them into a folder
    of its own, and spoils only its copy)."""
    return stand_ins("cardguess", haskell_stand_ins)


def _copy(whole, under):
    shutil.copytree(whole, under / whole.name, copy_function=shutil.copy2)
    return under / whole.name


def _appended(name: str):
    """A change: the bundles copied, a line appended to card guessing's `name`."""

    def change(monkeypatch, tmp_path) -> None:
        bundles = tmp_path / "bundles"
        shutil.copytree(course_build.BUNDLES, bundles)
        with (bundles / "cardguess" / name).open("a") as file:
            file.write("\n-- changed\n")
        monkeypatch.setattr(course_build, "BUNDLES", bundles)

    return change


def _flags(monkeypatch, _tmp_path) -> None:
    changed = dataclasses.replace(COURSES["cardguess"], flags=("-O0", "-Wall"))
    monkeypatch.setitem(COURSES, "cardguess", changed)


def _folders(monkeypatch, _tmp_path) -> None:
    order = ("twentyone", "parser", "course")  # the same files, searched in another order
    monkeypatch.setitem(
        COURSES, "twentyone", dataclasses.replace(COURSES["twentyone"], folders=order)
    )


def _compiler(monkeypatch, tmp_path) -> None:
    copy = tmp_path / "ghc"
    shutil.copy2(shutil.which("ghc"), copy)  # the same compiler, at another path
    monkeypatch.setattr(course_build, "ghc", lambda: str(copy))


CHANGES = {  # each: what it changes, and whether the stand-ins are compiled again
    "a stand-in's bytes": (_appended("Card.hs"), True),
    "the flags": (_flags, True),
    "the folders": (_folders, True),
    "the compiler": (_compiler, True),
    "the driver (not a stand-in)": (_appended("Main.hs"), False),
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_what_makes_them_makes_their_key(change, monkeypatch, tmp_path):
    game = "twentyone" if change == "the folders" else "cardguess"
    before = stand_ins_key(game)
    make, again = CHANGES[change]
    make(monkeypatch, tmp_path)
    assert (stand_ins_key(game) != before) == again


def test_a_changed_stand_in_compiles_another_entry(whole, monkeypatch, tmp_path):
    under = tmp_path / "stand-ins"
    first = _copy(whole, under)
    _appended("Card.hs")(monkeypatch, tmp_path)
    second = stand_ins("cardguess", under)
    assert second != first and sorted(under.iterdir()) == sorted([first, second])
    assert _whole(first) and _whole(second)
    source = (course_build.BUNDLES / "cardguess" / "Card.hs").read_bytes()
    assert (second / "src" / "cardguess" / "Card.hs").read_bytes() == source
    said = json.loads((second / "manifest.json").read_text())["ghc"]
    assert _compiled(said) == ["Card"]  # compiled, not copied from the first


RACER = """
import pathlib, sys, time
from mine.strategies.haskell import build

under, me, other = map(pathlib.Path, sys.argv[1:])
compile_them = build._compile_stand_ins

def compile_then_wait(*args):  # both have compiled before either renames
    compile_them(*args)
    me.touch()
    waited_from = time.monotonic()
    while not other.exists() and time.monotonic() - waited_from < 300:
        time.sleep(0.05)

build._compile_stand_ins = compile_then_wait
print(build.stand_ins("cardguess", under))
"""


def test_two_processes_that_compile_them_at_once_both_use_one_whole_entry(tmp_path):
    under, marks = tmp_path / "stand-ins", (tmp_path / "one", tmp_path / "two")
    racers = [subprocess.Popen([sys.executable, "-c", RACER, under, me, other],
                               stdout=subprocess.PIPE, text=True)
              for me, other in (marks, marks[::-1])]  # fmt: skip
    said = [racer.communicate(timeout=600)[0].strip() for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0]
    assert all(mark.exists() for mark in marks)  # each compiled them
    kept = under / stand_ins_key("cardguess")
    assert said == [str(kept), str(kept)] and list(under.iterdir()) == [kept] and _whole(kept)
    built = build("cardguess", SMALLEST_PROJ1, tmp_path / "player", kept)
    assert _compiled(built.output) == ["Proj1", "Main"]


def _flip_a_byte(kept):
    card = kept / "build" / "Card.o"
    data = bytearray(card.read_bytes())
    data[len(data) // 2] ^= 0xFF
    card.write_bytes(bytes(data))


NOT_WHOLE = {  # each: how the entry was left, and whether a file's compile is shown it
    "an object changed": (_flip_a_byte, True),
    "an interface missing": (lambda kept: (kept / "build" / "Card.hi").unlink(), True),
    "no manifest (a folder left part-written)": (
        lambda kept: (kept / "manifest.json").unlink(), False),
    "another entry's manifest": (
        lambda kept: (kept / "manifest.json").write_text(
            (kept / "manifest.json").read_text().replace(kept.name, "0" * 64)), False),
}  # fmt: skip


@pytest.mark.parametrize("case", NOT_WHOLE, ids=list(NOT_WHOLE))
def test_an_entry_that_is_not_whole_is_not_trusted(case, whole, tmp_path):
    kept = _copy(whole, tmp_path / "stand-ins")
    assert course_build._whole(kept, kept.name)  # trusted, as copied
    spoil, shown = NOT_WHOLE[case]
    spoil(kept)
    assert not course_build._whole(kept, kept.name)  # the harness compiles anew
    if shown:  # the compile checks each file as it copies it, and keeps none
        built = build("cardguess", SMALLEST_PROJ1, tmp_path / "player", kept)
        assert _compiled(built.output) == ["Card", "Proj1", "Main"] and built.program.exists()
        assert str(course_build.BUNDLES / "cardguess" / "Card.hs") in built.output


def test_an_entry_that_is_not_whole_is_compiled_again_in_its_place(whole, tmp_path):
    under = tmp_path / "stand-ins"
    kept = _copy(whole, under)
    _flip_a_byte(kept)
    assert stand_ins("cardguess", under) == kept  # compiled again, the other set aside
    assert list(under.iterdir()) == [kept] and _whole(kept)
