"""The CLI and the readers facing hostile input: escape sequences in a session, FIFOs
and devices instead of files, and exports that would overwrite a session."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines

import prime_nb
from prime_nb import write
from prime_nb.cli import main, printable
from prime_nb.errors import SessionFormatError
from prime_nb.widget import export_html

#: a window title, an OSC 52 clipboard write, a screen clear (7-bit and 8-bit), a bell
NASTY = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[H\x9b2J\x9d0;t\x9c\x07\x08\r"
#: nothing a terminal acts on may reach it: C0 (but newline), DEL, C1
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
FIFO_TIMEOUT = 30.0


def hostile_session(path: Path) -> Path:
    return write_lines(
        path,
        [
            header(cwd=f"/tmp/{NASTY}project"),
            {"type": "session_info", "id": "n1", "parentId": None, "name": f"name{NASTY}\nfake"},
            msg(f"u1{NASTY}", "n1", "user", f"hello {NASTY}"),
            msg(f"u1{NASTY}", "n1", "user", "a duplicate id, named in a problem"),
            msg("a1", "gone" + NASTY, "assistant", "an orphan", 1),
        ],
    )


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "command",
    [
        ["info", "FILE"],
        ["info", "--json", "FILE"],
        ["validate", "FILE"],
        ["ls", "DIR"],
        ["ls", "--json", "DIR"],
        ["export", "FILE", "-o", "OUT"],
    ],
)
def test_no_escape_sequence_reaches_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    path = hostile_session(tmp_path / "s.jsonl")
    places = {"FILE": path, "DIR": tmp_path, "OUT": tmp_path / f"out{NASTY}.html"}
    code, out, err = run_main(capsys, *(places.get(a, a) for a in command))
    assert code in (0, 1), err
    assert out.strip()
    for text in (out, err):
        assert not CONTROL.search(text), repr(text)
        if "--json" not in command:  # JSON shows them escaped (\u001b), as data
            assert "pwned" not in text and "2J" not in text, repr(text)
    if command == ["info", "FILE"]:
        assert re.search(r"^name +name fake$", out, re.M)  # one value, one line
        assert "\nfake" not in out


def test_errors_on_stderr_are_clean_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_lines(tmp_path / f"bad{NASTY}.jsonl", ["not JSON, no session"])
    code, out, err = run_main(capsys, "info", path)
    assert code == 1 and "no session header" not in out
    assert "no session header" in err
    assert not CONTROL.search(err.rstrip("\n")), repr(err)
    code, out, err = run_main(capsys, "validate", path)
    assert code == 1 and not CONTROL.search(out.rstrip("\n").replace("\n", "")), repr(out)


def test_printable() -> None:
    assert printable("a\x1b]0;title\x07b\x1b[31mc\x9b2Jd\x1b\\e\tf\ng") == "ab" + "cde\tf\ng"
    assert printable("x\ny\r\nz", newlines=False) == "x y z"
    assert printable("\u202eevil\u2066") == "evil"
    assert printable("plain ü ✓ 😀") == "plain ü ✓ 😀"


# -- FIFOs and devices -----------------------------------------------------------------


def no_hang(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a daemon thread; fail (rather than hang CI) if it does not return."""
    box: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # handed back to the test
            box.append(exc)
        else:
            box.append(None)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(FIFO_TIMEOUT)
    assert not thread.is_alive(), f"{call} hung for {FIFO_TIMEOUT} s"
    return box[0]


NOT_REGULAR = "is not a regular file (a FIFO, device or socket), so not a session file"


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev-null"])
def test_fifos_and_devices_are_refused_everywhere(tmp_path: Path, fifo: Path, kind: str) -> None:
    path = {"fifo": fifo, "dev-null": Path("/dev/null")}[kind]
    message = {"role": "user", "content": "x"}
    calls: list[Callable[[], Any]] = [
        lambda: prime_nb.load(path),
        lambda: write.append_message(path, None, message),
        lambda: write.append_label(path, "x", "y"),
        lambda: write.upgrade_file(path),
        lambda: write.reconcile(path),
        lambda: prime_nb.fork_to_file(path, dest=tmp_path / "fork.jsonl"),
    ]
    for call in calls[:-2] + calls[-1:]:
        error = no_hang(call)
        assert isinstance(error, SessionFormatError), repr(error)
        assert str(error) == f"{path}: {NOT_REGULAR}; pass the path of a .jsonl session file"
    assert no_hang(calls[-2]) is None  # nothing journaled for it: nothing to do


DEV_ZERO = """
import prime_nb
from prime_nb import write
for call in (
    lambda: prime_nb.load("/dev/zero"),
    lambda: write.append_message("/dev/zero", None, {"role": "user", "content": "x"}),
    lambda: write.upgrade_file("/dev/zero"),
):
    try:
        call()
    except prime_nb.SessionFormatError as exc:
        print(exc)
"""


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


def test_dev_zero_is_refused_without_reading_it() -> None:
    """In a child with 2 GB of address space: reading /dev/zero would never end."""
    proc = subprocess.run(
        [sys.executable, "-c", DEV_ZERO],
        capture_output=True,
        text=True,
        timeout=FIFO_TIMEOUT * 2,
        preexec_fn=_limit_memory,
    )
    expected = f"/dev/zero: {NOT_REGULAR}; pass the path of a .jsonl session file"
    assert proc.stdout.splitlines() == [expected] * 3, proc.stderr[-2000:]


def test_a_session_replaced_by_a_fifo(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    session = prime_nb.load(path)
    path.unlink()
    os.mkfifo(path)
    for call in (session.refresh, lambda: session.entry("u1")):
        error = no_hang(call)
        assert isinstance(error, SessionFormatError) and NOT_REGULAR in str(error)
    assert session.leaf_id == "u1"


def test_a_family_refuses_a_fifo_or_device_as_its_file(tmp_path: Path, fifo: Path) -> None:
    """load_family(fifo) waited on it (the header read), and so did family_of and
    corpus.families, which read a bad file's header for its row: they list it as a
    file that could not be read; a FIFO in a family's folder is no session of it."""
    from prime_nb.corpus import families
    from prime_nb.family import family_of, load_family

    for path in (fifo, Path("/dev/null")):
        error = no_hang(lambda path=path: load_family(path))
        assert isinstance(error, SessionFormatError), repr(error)
        assert str(error) == f"{path}: {NOT_REGULAR}; pass the path of a .jsonl session file"
    family: list[Any] = []
    assert no_hang(lambda: family.append(family_of([fifo]))) is None
    assert family[0].problems["kind"].tolist() == ["load_error"]
    assert NOT_REGULAR in family[0].problems["message"][0]
    table: list[Any] = []
    assert no_hang(lambda: table.append(families(files=[fifo], workers=1, progress=False))) is None
    assert table[0]["errors"].tolist() == [1]
    session = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])
    assert no_hang(lambda: family.append(load_family(session))) is None
    assert len(family[1]) == 1 and family[1].problems.empty


FIFO_COMMANDS = ("info", "validate", "export", "upgrade", "family")

#: each command on the FIFO in turn, in one child (one import of prime_nb for all), each
#: through ``main`` as ``python -m prime_nb.cli`` runs it; one line of JSON per command
#: as it ends, so that a command that hangs is the first without its line
FIFO_RUNS = """
import contextlib, io, json, sys
from prime_nb.cli import main
for command in sys.argv[2:]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([command, sys.argv[1]])
    print(json.dumps([command, code, out.getvalue() + err.getvalue()]), flush=True)
"""


@pytest.fixture(scope="module")
def fifo_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str]] | str:
    """Each command's exit code and output on a FIFO, from one child bounded by a
    timeout; what the child said instead if it hung or failed."""
    fifo = tmp_path_factory.mktemp("fifo") / "pipe.jsonl"
    os.mkfifo(fifo)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", FIFO_RUNS, str(fifo), *FIFO_COMMANDS],
            capture_output=True,
            text=True,
            timeout=FIFO_TIMEOUT * 2,
        )
    except subprocess.TimeoutExpired as hung:
        said = hung.stdout.decode() if isinstance(hung.stdout, bytes) else hung.stdout or ""
        return f"hung for {FIFO_TIMEOUT * 2} s after: {said}"
    runs = {}
    for line in proc.stdout.splitlines():
        command, code, said = json.loads(line)
        runs[command] = (code, said)
    if proc.returncode != 0:
        return f"exit {proc.returncode} after {list(runs)}: {proc.stderr[-2000:]}"
    return runs


@pytest.mark.parametrize("command", FIFO_COMMANDS)
def test_cli_refuses_a_fifo_at_once(
    fifo_runs: dict[str, tuple[int, str]] | str, command: str
) -> None:
    assert not isinstance(fifo_runs, str), fifo_runs
    code, said = fifo_runs[command]
    assert code == 1
    assert NOT_REGULAR in said


# -- export never overwrites a session -------------------------------------------------


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, "user", "x")])


def test_export_onto_its_own_input_is_refused(
    tmp_path: Path, session_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named_html = session_file.rename(tmp_path / "x.html")
    before = named_html.read_bytes()
    for args in (["-o", named_html], [], ["--force"], ["-o", named_html, "--force"]):
        code, _, err = run_main(capsys, "export", named_html, *args)
        assert code == 1
        assert f"{named_html}: is the session being exported; choose another output" in err
        assert named_html.read_bytes() == before
    link = tmp_path / "link.html"
    link.symlink_to(named_html)
    code, _, err = run_main(capsys, "export", named_html, "-o", link, "--force")
    assert code == 1 and "is the session being exported" in err
    assert named_html.read_bytes() == before


def test_export_never_overwrites_another_session(
    tmp_path: Path, session_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = write_lines(tmp_path / "other.txt", [header(id="s2"), msg("v1", None, "user", "y")])
    jsonl = write_lines(tmp_path / "third.jsonl", [b"not even json"])
    for victim in (other, jsonl):
        before = victim.read_bytes()
        code, _, err = run_main(capsys, "export", session_file, "-o", victim, "--force")
        assert code == 1
        assert f"{victim}: exists and looks like a session file" in err
        assert victim.read_bytes() == before
    with pytest.raises(prime_nb.SessionWriteError, match="looks like a session file"):
        export_html(session_file, other)
    with pytest.raises(prime_nb.SessionWriteError, match="is the session being exported"):
        export_html(session_file, session_file)
    folder = tmp_path / "pages"
    folder.mkdir()
    assert export_html(session_file, folder) == folder / f"{session_file.stem}.html"  # as -o
    (folder / f"{session_file.stem}.html").unlink()
    (folder / f"{session_file.stem}.html").mkdir()  # a folder where the page would go
    with pytest.raises(prime_nb.SessionWriteError, match="is a folder; choose another"):
        export_html(session_file, folder)
    assert other.read_bytes().startswith(b'{"type": "session"')


def test_export_asks_for_force_to_overwrite_anything_else(
    tmp_path: Path, session_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.html"
    notes.write_text("my notes")
    code, _, err = run_main(capsys, "export", session_file, "-o", notes)
    assert code == 1 and f"{notes}: exists; pass --force to overwrite it" in err
    assert notes.read_text() == "my notes"
    code, out, err = run_main(capsys, "export", session_file, "-o", notes, "--force")
    assert code == 0, err
    assert out.strip() == str(notes) and notes.read_text("utf-8").startswith("<!")
    fresh = tmp_path / "fresh.html"
    code, out, _ = run_main(capsys, "export", session_file, "-o", fresh)
    assert code == 0 and fresh.exists()
    code, out, _ = run_main(capsys, "export", session_file)  # default name: s.html, new
    assert code == 0 and (tmp_path / "s.html").exists()
