"""``arena play`` through a pseudo-terminal: a person's whole game, typos, time, leaving."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.games import game_names
from arena.games.cards import pretty_text
from arena.processes import arena_command, free_port
from arena.replay import ReplayStore
from tests.play.terminal import PROMPT, REPLAY, Terminal, Turn, terminal
from tests.support.bots import BotFactory

# One hand of Bid Euchre: 29 decisions, 14 of them the human's (both seats of team 0).
SHORT = ("--game", "bid-euchre", "--option", "max_hands=1", "--seed", "1")


def arena_play(tmp_path: Path, *args: str) -> list[str]:
    return ["play", *args, "--replay-dir", str(tmp_path / "replays")]


def play_out(term: Terminal, answer: str = "first") -> list[Turn]:
    """Answer every prompt until the result; ``first`` alternates typing 1 and typing
    the first action's text in capitals."""
    turns = []
    while (turn := term.turn()) is not None:
        turns.append(turn)
        assert turn.actions, turn.screen
        typed = turn.actions[0].upper() if len(turns) % 2 == 0 else "1"
        term.send(typed if answer == "first" else answer)
    return turns


def replay_of(tmp_path: Path, term: Terminal) -> dict[str, Any]:
    match = REPLAY.search(term.output)
    assert match, term.output[-2000:]
    return ReplayStore(tmp_path / "replays").load(match.group(1))


FORCED = re.compile(r"^Seat (\d+): only one legal move: (.+) \u2014 played for you\.$", re.M)


def test_a_whole_game_in_the_terminal(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        turns = play_out(term)
        code = term.wait()
    assert code == 0, term.output[-2000:]
    assert "Traceback" not in term.output
    intro = " ".join(term.output.split())
    assert "You are seat 0 (team 0), partnered by the house bot at seat 2." in intro
    assert len(turns) >= 4
    for turn in turns:
        assert turn.seat == 0  # the partner's seat is the house bot's, never asked
        assert turn.screen.startswith("\n== Bid Euchre, decision ")
        assert re.search(r"^Scores: you and partner -?\d+, opponents -?\d+$", turn.screen, re.M)
        assert re.search(r"^Your hand: ((10|[2-9JQKA])[♣♦♥♠] ?)+$", turn.screen, re.M), turn.screen
        assert "Seat 0 to play: you. Time: " in turn.screen
        assert "  1) " in turn.screen
    assert re.search(r"^Team [01] wins: you (win!|lose\.)$", term.output, re.MULTILINE)
    # Seat 0's last card has no alternative: it is played with a note, not a prompt.
    forced = [(int(m.group(1)), m.group(2)) for m in FORCED.finditer(term.output)]
    assert forced and all(seat == 0 for seat, _ in forced)
    # The referee played exactly what was typed, or forced, for seat 0, without faults.
    replay = replay_of(tmp_path, term)
    decisions = [
        entry["decision"]
        for hand in replay["hands"]
        for entry in hand["log"]
        if "decision" in entry
    ]
    played = [d["text"] for d in decisions if d["seat"] == 0]
    shown = [pretty_text(turn.actions[0]) for turn in turns] + [text for _, text in forced]
    assert sorted(pretty_text(text) for text in played) == sorted(shown)
    assert any(d["seat"] == 2 for d in decisions)
    assert replay["faults"] == []
    assert replay["result"]["end"] == "completed"


def test_a_team_plays_both_seats(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT, "--team", "0"), tmp_path) as term:
        turns = play_out(term)
        assert term.wait() == 0, term.output[-2000:]
    assert {turn.seat for turn in turns} == {0, 2}
    for turn in turns:
        assert f"Seat {turn.seat} to play: you (team 0: seats 0 and 2)" in turn.screen
        assert "Scores: you and partner " in turn.screen
    assert "partnered by" not in term.output


def test_bad_input_asks_again_in_one_line(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT, "--team", "0"), tmp_path) as term:
        first = term.turn()
        assert first is not None
        for typed, message in [
            ("99", "there is no action 99: choose 1 to 6"),
            ("xyzzy", "'xyzzy' is not an action: type 1 to 6, an action's text, ? or q"),
            ("", "type a number from 1 to 6, ? for help or q to quit"),
            ("0", "there is no action 0: choose 1 to 6"),
        ]:
            before = term.position
            term.send(typed)
            prompt = term.expect(PROMPT)
            shown = [line for line in term.output[before : prompt.start()].splitlines() if line]
            assert shown[-1] == message
            assert len(shown) <= 2  # the echo of what was typed, then the one line
        term.send("?")
        term.expect("show the whole table")
        term.expect(PROMPT)
        term.send("Call 3")  # an action's text, any case
        second = term.turn()
        assert second is not None and second.seat == 0
        term.send("q")
        term.expect("Type y to leave: ")
        term.send("y")
        assert term.wait() == 0
    assert "Traceback" not in term.output
    log = replay_of(tmp_path, term)["hands"][0]["log"]
    first_decision = next(entry["decision"] for entry in log if "decision" in entry)
    assert (first_decision["seat"], first_decision["text"]) == (2, "call 3")


def test_an_illegal_card_is_refused_with_its_rule(tmp_path: Path) -> None:
    """Typing a card held but not playable names the rule, then the prompt comes back."""
    refusals = []
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        while (turn := term.turn()) is not None:
            hand = re.search(r"^Your hand: (.+)$", turn.screen, re.MULTILINE)
            assert hand is not None
            shown = [pretty_text(action) for action in turn.actions]
            illegal = [c for c in hand.group(1).split() if f"play {c}" not in shown]
            if turn.actions[0].startswith("play ") and illegal:
                before = term.position
                term.send(f"play {illegal[0]}")
                prompt = term.expect(PROMPT)
                refusals.append(term.output[before : prompt.start()].strip().splitlines()[-1])
            term.send("1")
        assert term.wait() == 0
    assert refusals, "no illegal card in this deal"
    for line in refusals:
        assert re.match(
            r"you must follow (trumps \()?(clubs|diamonds|hearts|spades)\)?: you hold ", line
        )


def test_leaving_forfeits_and_is_recorded(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        assert term.turn() is not None
        term.send("q")
        term.expect("Leave the match\\? Your team will forfeit. Type y to leave: ")
        term.send("n")
        term.expect("You stay.")
        term.expect(PROMPT)
        term.send("quit")
        term.expect("Type y to leave: ")
        term.send("y")
        term.expect("You left the match: your team forfeits.")
        code = term.wait()
    assert code == 0
    assert "Team 0 forfeits (you left). Team 1 wins: you lose." in term.output
    assert "fault: seat 0, decision 2, left (the seat's player left the match)" in term.output
    assert "Traceback" not in term.output
    assert_left(tmp_path, term, seat=0, team=0)


def assert_left(tmp_path: Path, term: Terminal, seat: int, team: int) -> None:
    """The replay records one fault, the person leaving, on which their team forfeits;
    and it verifies: the referee's fault policy says so too."""
    replay = replay_of(tmp_path, term)
    assert replay["result"]["end"] == "forfeit"
    assert replay["result"]["forfeit_team"] == team
    assert [(f["seat"], f["kind"], f["detail"]) for f in replay["faults"]] == [
        (seat, "left", "the seat's player left the match")
    ]
    match = REPLAY.search(term.output)
    assert match is not None
    verified = subprocess.run(
        arena_command(
            "replay", "verify", match.group(1), "--replay-dir", str(tmp_path / "replays")
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_ctrl_c_leaves_and_is_recorded(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        assert term.turn() is not None
        os.killpg(term.process.pid, signal.SIGINT)  # what the terminal sends for Ctrl-C
        term.expect("Interrupted: you leave the match")
        code = term.wait()
    assert code == 0, term.output[-2000:]
    assert "Team 0 forfeits (you left). Team 1 wins: you lose." in term.output
    assert "Traceback" not in term.output
    assert_left(tmp_path, term, seat=0, team=0)


def test_the_end_of_input_leaves_and_is_recorded(tmp_path: Path) -> None:
    done = subprocess.run(
        arena_command(*arena_play(tmp_path, *SHORT, "--seat", "1")),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "Input ended: you leave the match." in done.stdout
    assert "Team 1 forfeits (you left). Team 0 wins: you lose." in done.stdout
    shown = REPLAY.search(done.stdout)
    assert shown is not None, done.stdout[-2000:]
    replay = ReplayStore(tmp_path / "replays").load(shown.group(1))
    assert [(f["seat"], f["kind"]) for f in replay["faults"]] == [(1, "left")]


def test_each_screen_shows_only_what_changed_and_t_the_whole_table(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        first = term.turn()
        assert first is not None
        assert "Table, as seat 0 sees it:" in first.screen
        assert "  hand number: 1" in first.screen
        term.send("1")
        second = term.turn()
        assert second is not None
        assert "Table, as seat 0 sees it:" not in second.screen
        assert "Changed, as seat 0 sees it (t: the whole table):" in second.screen
        assert "hand number" not in second.screen  # the same as before: not shown again
        assert re.search(r"^  calls: \d+ more, as above$", second.screen, re.M), second.screen
        assert len(second.screen.splitlines()) < len(first.screen.splitlines()) + 8
        term.send("t")
        term.expect("Table, as seat 0 sees it:")
        term.expect("  hand number: 1")
        term.expect(PROMPT)
        term.send("q")
        term.send("y")
        assert term.wait() == 0
    with terminal(arena_play(tmp_path, *SHORT, "--full"), tmp_path) as term:
        assert term.turn() is not None
        term.send("1")
        second = term.turn()
        assert second is not None and "Table, as seat 0 sees it:" in second.screen
        assert "  hand number: 1" in second.screen
        term.send("q")
        term.send("y")
        assert term.wait() == 0


def test_actions_show_cards_as_the_hand_does(tmp_path: Path) -> None:
    with terminal(arena_play(tmp_path, *SHORT), tmp_path) as term:
        while (turn := term.turn()) is not None:
            plays = [a for a in turn.actions if a.startswith("play ")]
            if plays:
                break
            term.send("1")
        assert turn is not None and plays, term.output[-2000:]
        hand = re.search(r"^Your hand: (.+)$", turn.screen, re.MULTILINE)
        assert hand is not None
        for action in plays:
            card = action.removeprefix("play ")
            assert card in hand.group(1).split(), (card, hand.group(1))
            assert not re.fullmatch(r"[2-9TJQKA][CDHS]", card)
        term.send("q")
        term.send("y")
        assert term.wait() == 0


def test_running_out_of_time_is_a_fault_and_play_goes_on(tmp_path: Path) -> None:
    args = arena_play(tmp_path, *SHORT, "--team", "0", "--deadline-s", "0.5", "--time-bank-s", "0")
    with terminal(args, tmp_path) as term:
        first = term.turn()
        assert first is not None and first.seat == 2
        term.expect("Time is up: the referee plays a move for this seat and counts a fault.")
        second = term.turn()  # typing nothing: the next of the human's decisions comes
        assert second is not None
        assert "! fault, seat 2: timeout" in second.screen
        term.send("1")
        third = term.turn()
        assert third is not None
        term.send("q")
        term.send("y")
        assert term.wait() == 0


def test_against_a_bot_process(tmp_path: Path, start_bot: BotFactory) -> None:
    bot = start_bot("random")
    args = arena_play(tmp_path, "--game", "bridgette", "--option", "deals=1", "--vs", bot.address)
    with terminal(args, tmp_path) as term:
        turns = play_out(term)
        code = term.wait()
    assert code == 0, term.output[-2000:]
    assert "against random" in term.output
    assert turns and all(t.seat == 0 for t in turns)
    assert re.search(r"^  team 1 \(opponent, seat 1\): -?\d+ points?, ", term.output, re.M)


@pytest.mark.parametrize("game", game_names())
def test_every_game_shows_the_hand_and_numbered_actions(tmp_path: Path, game: str) -> None:
    with terminal(arena_play(tmp_path, "--game", game, "--seat", "1"), tmp_path) as term:
        turn = term.turn()
        assert turn is not None
        assert turn.seat % 2 == 1
        assert "Your hand: " in turn.screen
        assert turn.actions
        term.send("q")
        term.send("y")
        assert term.wait() == 0
    assert "Team 1 forfeits (you left). Team 0 wins: you lose." in term.output
    assert "Traceback" not in term.output and "ERROR" not in term.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [  # 2: the command line is wrong (argparse says so as "arena play: error: ..."); 1: not
        (("--game", "go"), 2, "argument --game: unknown game 'go'; available games: baloot"),
        (("--game", "seep", "--option", "bazzis=0"), 2, "option 'bazzis' must be in 1..99, not 0"),
        (("--game", "seep", "--option", "bazzis"), 2, "--option takes NAME=VALUE, got 'bazzis'"),
        (("--game", "bridgette", "--seat", "2"), 2, "--seat must be 0 to 1 in bridgette"),
        (
            ("--game", "seep", "--deadline-s", "600"),
            2,
            "--deadline-s must be 1 ms to 60 s, got 600 s",
        ),
        (("--game", "seep", "--vs", "nowhere"), 2, "--vs: malformed bot address 'nowhere'"),
        (("--game", "seep", "--vs", "127.0.0.1:PORT"), 1, "cannot reach a bot at 127.0.0.1:"),
    ],
)
def test_errors_are_one_line(
    tmp_path: Path, args: tuple[str, ...], code: int, message: str
) -> None:
    args = tuple(a.replace("PORT", str(free_port())) for a in args)
    done = subprocess.run(
        arena_command("play", *args),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == code
    assert done.stdout == ""
    assert done.stderr.startswith(
        "arena play: error: " if "argument" in message else "arena: error: "
    )
    assert message in done.stderr
    assert done.stderr.count("\n") == 1
