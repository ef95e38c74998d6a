"""File names and session text in the package's messages: errors and warnings of the
Python API and of the CLI, for files and folders whose names hold a newline, escape
sequences, a bidirectional override and a zero-width space.

Each message is one line that holds none of those characters raw (a newline could
forge a line of a log, an escape sequence steer the terminal, an override or a
zero-width space hide what the name is), and names the file with them escaped
(``prime_nb._names.shown_text``; the CLI's ``\\xNN``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_in_process import run_cli
from conftest import header, msg, write_lines

import prime_nb
from prime_nb._names import FORMAT_CHARACTERS
from prime_nb.datasets import write_dataset
from prime_nb.errors import EntryNotFoundError, SessionFormatError, TornLineWarning
from prime_nb.interop import to_otel

#: a name that forges a line, sets the terminal's title, turns the text around and
#: hides a character
EVIL = "evil\nforged: ok\x1b]0;pwned\x07\u202e\u200b"
#: what a message must not hold raw: control and format characters
RAW = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{FORMAT_CHARACTERS}]")


def shown_whole(message: str, what: str = "") -> None:
    """``message`` (of ``what``) holds none of :data:`RAW` and names the evil file,
    escaped."""
    assert not RAW.search(message), f"{what}: raw control or format characters in {message!r}"
    assert "\\x1b" in message or "\\x0a" in message, f"{what}: {message!r}"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder named :data:`EVIL` holding a session, a file that is no session and a
    torn session, each named :data:`EVIL` too."""
    root = tmp_path_factory.mktemp("names") / EVIL
    root.mkdir()
    write_lines(root / f"{EVIL}.jsonl", [header(), msg("u1", None, "user", "hi")])
    (root / f"{EVIL}-not.jsonl").write_text("not json at all\n")
    return root


def raised(expected: type[Exception], call: Callable[[], Any]) -> str:
    """The message of the ``expected`` error that ``call`` raised (it must raise it)."""
    with pytest.raises(expected, match="evil") as failed:
        call()
    return str(failed.value)


def api_messages(root: Path) -> dict[str, str]:
    """The messages the Python API gives about files and folders under ``root``."""
    session = root / f"{EVIL}.jsonl"
    missing = root / f"{EVIL}-gone.jsonl"
    loaded = prime_nb.load(session)
    in_the_way = root / f"{EVIL}-file"
    in_the_way.write_text("")
    user = {"role": "user", "content": "x"}
    return {
        "load, not a session": raised(
            SessionFormatError, lambda: prime_nb.load(root / f"{EVIL}-not.jsonl")
        ),
        "load, a folder": raised(SessionFormatError, lambda: prime_nb.load(root)),
        "load, no such file": raised(FileNotFoundError, lambda: prime_nb.load(missing)),
        "append, no such file": raised(
            FileNotFoundError, lambda: prime_nb.append_message(missing, None, user)
        ),
        "append, a folder": raised(
            SessionFormatError, lambda: prime_nb.append_message(root, None, user)
        ),
        "redact, no such file": raised(
            FileNotFoundError, lambda: prime_nb.redact(missing, root / "out.jsonl")
        ),
        "redact, dest exists": raised(FileExistsError, lambda: prime_nb.redact(session, session)),
        "fork, dest exists": raised(FileExistsError, lambda: loaded.fork_to_file(dest=session)),
        "load_family, no such file": raised(
            FileNotFoundError, lambda: prime_nb.load_family(missing)
        ),
        "write_dataset, a bad suffix": raised(
            ValueError, lambda: write_dataset([], root / f"{EVIL}.txt")
        ),
        "a corpus cache in a file": raised(
            OSError, lambda: prime_nb.corpus.load_corpus(root, cache=in_the_way / "cache")
        ),
    }


def test_every_api_message_shows_the_names_escaped(folder: Path) -> None:
    for what, message in api_messages(folder).items():
        shown_whole(message, what)


def test_messages_of_session_text_hold_no_raw_characters(folder: Path) -> None:
    """An entry id and an endpoint given as text are shown escaped as well."""
    loaded = prime_nb.load(folder / f"{EVIL}.jsonl")
    for message in (
        raised(EntryNotFoundError, lambda: loaded.entry(EVIL)),
        raised(ValueError, lambda: to_otel(loaded, endpoint=EVIL)),
    ):
        assert "evil" in message and not RAW.search(message), message


def test_the_torn_line_warning_shows_the_name_escaped(tmp_path: Path) -> None:
    folder = tmp_path / EVIL
    folder.mkdir()
    torn = folder / f"{EVIL}.jsonl"
    write_lines(torn, [header(), msg("u1", None, "user", "hi")])
    with torn.open("ab") as fh:
        fh.write(b'{"type": "mess')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prime_nb.append_message(torn, "u1", {"role": "user", "content": "again"}, fsync=False)
    (warning,) = [w for w in caught if issubclass(w.category, TornLineWarning)]
    shown_whole(str(warning.message))


def test_an_error_keeps_the_path_as_given(folder: Path) -> None:
    """The message escapes the name; the error's ``path`` is the name itself."""
    path = folder / f"{EVIL}-not.jsonl"
    with pytest.raises(SessionFormatError, match="evil") as failed:
        prime_nb.load(path)
    assert failed.value.path == path
    with pytest.raises(EntryNotFoundError, match="no entry") as missing:
        prime_nb.load(folder / f"{EVIL}.jsonl").entry(EVIL)
    assert missing.value.entry_id == EVIL


@pytest.mark.parametrize(
    "command",
    [
        ["info", "{file}"],
        ["info", "{gone}"],
        ["validate", "{folder}"],
        ["redact", "{gone}", "-o", "{folder}/out.jsonl"],
        ["convert", "{not}", "--to", "atif", "-o", "{folder}/out.json"],
        ["grep", "hi", "{folder}"],
    ],
)
def test_the_cli_prints_the_names_escaped(folder: Path, command: list[str]) -> None:
    names = {
        "file": folder / f"{EVIL}.jsonl",
        "gone": folder / f"{EVIL}-gone.jsonl",
        "not": folder / f"{EVIL}-not.jsonl",
        "folder": folder,
    }
    done = run_cli(*(part.format(**{k: str(v) for k, v in names.items()}) for part in command))
    for stream in (done.stdout, done.stderr):
        for line in stream.splitlines():
            assert not RAW.search(line.replace("\t", " ")), (command, line)
    assert "evil" in done.stdout + done.stderr
