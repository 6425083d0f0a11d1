"""What every registered engine must do, written once for all of them.

``tests/games/test_every_game.py`` runs these checks over every game the registry lists
(``games_to_test``), as OpenSpiel runs one simulation test over ``registered_games()``;
each game's own test files keep only its rules. A check takes a game and one playout
case (deal seed, random player's seed, options) and raises ``AssertionError`` naming
what failed, so a test can also call it directly on a game made up for the purpose.

The only conventions assumed beyond ``arena.games.api`` are the replay format's: a hand
starts with a ``deal`` event (seen by nobody) whose ``data["hands"][seat]`` are the cards
dealt to each seat, and the match ends with a ``game_end`` event. Cards are the codes of
``arena.games.cards`` (``QH``, ``X1``, ``GC``), wherever they appear.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from google.protobuf.message import Message
from hypothesis import strategies as st

from arena import wire, wire_bytes
from arena.games import registry
from arena.games.api import Deal, DealError, Event, Game, IllegalActionError, OptionSpec, State
from arena.games.cards import COLONS, JOKERS, RANKS, SUITS
from arena.match_rules.commitment import new_salt
from arena.match_rules.faults import substitute_action
from arena.replay.match_log import encode, log_from_replay, replay_document
from arena.replay.verify import ReplayMismatch, verify_text
from arena.v1 import bot_pb2, referee_pb2
from tests.games import playouts

STEP_LIMIT = 50_000
"""Decisions a match may take before it counts as endless; far above any real match."""
SAMPLED = 0.1
"""Share of the steps that get the costliest per-step checks (illegal ids, the wire)."""
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

Check = Callable[[State, random.Random], None]


class Case(NamedTuple):
    """One random playout: the deal's seed, the random player's seed and the options."""

    seed: int
    policy_seed: int
    options: dict[str, object]


def games_to_test() -> list[str]:
    """Every game the registry lists: the parametrization of the generic suite."""
    return registry.game_names()


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """``game`` in the registry for the duration of the block only."""
    name = game.info.name
    # The built-in games load first, so none of them is loaded inside the block.
    assert name not in registry.game_names(), f"{name} is registered already"
    registry.register(game)
    try:
        yield game
    finally:
        registry.unregister(name)


def _short(spec: OptionSpec) -> st.SearchStrategy[object]:
    """A rule variant at random; a number (a length or a safeguard) near its minimum."""
    if isinstance(spec.default, bool):
        return st.booleans()
    low = spec.minimum if spec.minimum is not None else spec.default
    high = low + 1 if spec.maximum is None else min(low + 1, spec.maximum)
    return st.integers(min_value=low, max_value=high)


def cases(game: Game, default_options: bool = False) -> st.SearchStrategy[Case]:
    """Playout cases: short matches (every number at or just above its minimum, every
    rule variant at random), or the game's defaults."""
    if default_options:
        options: st.SearchStrategy[dict[str, object]] = st.just({})
    else:
        options = st.fixed_dictionaries({o.name: _short(o) for o in game.info.options})
    return st.builds(Case, SEEDS, SEEDS, options)


def playout(game: Game, case: Case, each_step: Check | None = None) -> tuple[State, list[int]]:
    return playouts.playout(
        game.new_state, case.seed, case.policy_seed, case.options, each_step, STEP_LIMIT
    )


def every_step(*checks: Check) -> Check:
    def check(state: State, policy: random.Random) -> None:
        for one in checks:
            one(state, policy)

    return check


# --- cards --------------------------------------------------------------------------------

CARD_CODES = frozenset([r + s for r in RANKS for s in SUITS] + [*JOKERS, *COLONS])
_FIELDS: dict[type, tuple[str, ...]] = {}


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere inside an observation or event data."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if item in CARD_CODES:
                found.add(item)
        elif kind is int or kind is bool or kind is float or item is None:
            continue
        elif kind is tuple or kind is list:
            stack.extend(item)
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, Sequence | set | frozenset):
            stack.extend(item)
        else:
            names = _FIELDS.get(kind)
            if names is None:
                assert dataclasses.is_dataclass(item), f"unexpected {kind} in an observation"
                names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(item))
            stack.extend([getattr(item, name) for name in names])
    return found


def wire_card_codes(message: Message) -> set[str]:
    """Every card in a proto message (an ``arena.v1.Card`` anywhere inside it)."""
    found: set[str] = set()
    stack = [message]
    while stack:
        item = stack.pop()
        if item.DESCRIPTOR.full_name == "arena.v1.Card":
            found.add(getattr(item, "code"))  # noqa: B009
            continue
        for field, value in item.ListFields():
            if field.message_type is None:
                continue
            stack.extend(value if field.is_repeated else [value])
    return found


# --- the legal list -----------------------------------------------------------------------


def legal_list_is_canonical(state: State, _: random.Random) -> None:
    """Ids ascend without repeats and fit the wire's uint64, their texts are unique, and
    only the end (where nobody is to act) has none."""
    legal = state.legal_actions()
    assert legal == sorted(set(legal)), f"legal list not ascending and unique: {legal}"
    assert all(0 <= a < 2**64 for a in legal), f"an id outside uint64: {legal}"
    terminal = state.is_terminal()
    assert (legal == []) == terminal == (state.current_seat() == -1), (
        f"legal {legal}, terminal {terminal}, seat {state.current_seat()}"
    )
    texts = [state.action_text(a) for a in legal]
    assert len(set(texts)) == len(texts), f"repeated action texts: {texts}"
    if not terminal:
        assert state.current_seat() in range(state.game_info.num_seats)


# --- hidden cards -------------------------------------------------------------------------


class Visible:
    """The cards each seat may have seen in the current hand, from the event log as it
    grows: those dealt to it, and those named by any event it may see (a public one, or
    one whose ``visible_to`` names it). A deal forgets the cards seen privately before
    it; what public events showed stays known until a hand ends with ``hand_end`` (a
    redeal after a throw-in keeps the cards it showed, as Seep's floor does)."""

    def __init__(self, seats: int) -> None:
        self.read = 0
        self.cards: list[set[str]] = [set() for _ in range(seats)]
        self.public: set[str] = set()

    def update(self, events: Sequence[Event]) -> None:
        for event in events[self.read :]:
            if event.kind == "deal":
                hands = event.data["hands"]
                assert len(hands) == len(self.cards), f"a deal for {len(hands)} seats"
                assert event.visible_to == (), "a deal is for the replay only"
                self.cards = [card_codes(hand) | self.public for hand in hands]
            named = card_codes(event.data)
            if event.visible_to is None:
                self.public |= named
            seats = range(len(self.cards)) if event.visible_to is None else event.visible_to
            for seat in seats:
                self.cards[seat] |= named
            if event.kind == "hand_end":
                self.public = set()
        self.read = len(events)


def nothing_hidden_leaks() -> Check:
    """Each seat's observation names only cards it may have seen (a fresh check for
    each playout: it follows the event log)."""
    visible: list[Visible] = []

    def check(state: State, _: random.Random) -> None:
        if not visible:
            visible.append(Visible(state.game_info.num_seats))
        visible[0].update(state.events)
        for seat in range(state.game_info.num_seats):
            view = state.observation(seat)
            shown = card_codes(view) - visible[0].cards[seat]
            assert not shown, f"seat {seat} is shown {sorted(shown)}, hidden from it"

    return check


# --- illegal actions ----------------------------------------------------------------------


def _picture(state: State) -> tuple[object, ...]:
    seats = range(state.game_info.num_seats)
    return (
        state.snapshot(),
        state.current_seat(),
        state.legal_actions(),
        list(state.events),
        [state.observation(seat) for seat in seats],
        state.scores(),
        state.is_terminal(),
    )


def illegal_actions_change_nothing(rate: float = SAMPLED) -> Check:
    """At a share ``rate`` of the steps (and always at the end): ids near the legal ones,
    far from them and out of range raise ``IllegalActionError`` and leave the state, the
    legal list, the events and every observation as they were."""

    def check(state: State, policy: random.Random) -> None:
        if not state.is_terminal() and policy.random() >= rate:
            return
        legal = state.legal_actions()
        top = max(legal, default=0)
        candidates = [-1, 2**63, 2**64, policy.randrange(2**63), policy.randrange(2 * top + 2)]
        candidates += [policy.randrange(2 * top + 2) for _ in range(2)]  # among the game's ids
        for action in policy.sample(legal, min(2, len(legal))):
            candidates += [action + 1, action - 1, action ^ (1 << policy.randrange(63))]
        before = _picture(state)
        for action in candidates:
            if action in legal:
                continue
            try:
                state.apply(action)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"illegal action {action} was accepted")
            assert _picture(state) == before, f"refusing action {action} changed the state"

    return check


# --- the wire -----------------------------------------------------------------------------


def converts_to_the_wire(rate: float = SAMPLED) -> Check:
    """At a share ``rate`` of the steps (and always at the end): the request for the seat
    to act has its observation and exactly the legal actions, each with its text and
    typed payload, reads back from its bytes, and is what ``wire_bytes`` sends; every
    seat's observation converts and shows on the wire no card the engine's does not."""

    def check(state: State, policy: random.Random) -> None:
        if not state.is_terminal() and policy.random() >= rate:
            return
        name = state.game_info.name
        try:
            wire.observation_message(name)
            wire.payload_message(name)
        except LookupError as missing:
            raise AssertionError(
                f"{name} needs its proto messages (a field of bot.proto's oneofs, or its "
                f"folder's messages part): {missing}"
            ) from None
        field = wire.OTHER if wire.packed(name) else wire.field_name(name)
        for seat in range(state.game_info.num_seats):
            view = state.observation(seat)
            message = wire.observation(name, view)
            extra = wire_card_codes(message) - card_codes(view)
            assert not extra, f"seat {seat}'s observation grows {sorted(extra)} on the wire"
        if state.is_terminal():
            return
        legal = state.legal_actions()
        seat = state.current_seat()
        args: dict[str, Any] = {"match_id": "m", "decision_index": 3, "deadline_s": 1.5}
        request = wire.act_request(state, legal=legal, **args)
        assert request.game == name and request.seat == seat
        assert request.team == state.game_info.seat_teams[seat]
        assert request.WhichOneof("observation") == field
        assert wire.observation_of(request) == wire.observation(name, state.observation(seat))
        assert [a.id for a in request.legal_actions] == legal
        for action, sent in zip(legal, request.legal_actions, strict=True):
            assert sent.text == state.action_text(action)
            assert sent.WhichOneof("payload") == field
            payload = wire.payload_of(name, sent)
            assert payload is not None
            kinds = [payload.WhichOneof(o.name) for o in payload.DESCRIPTOR.oneofs]
            assert state.action_payload(action)[0] in kinds, (action, kinds)
        data = request.SerializeToString()
        assert bot_pb2.ActRequest.FromString(data) == request
        fast = wire_bytes.act_request(state, legal=legal, **args)
        assert bot_pb2.ActRequest.FromString(fast) == request

    return check


# --- checks of whole matches --------------------------------------------------------------


def check_termination(game: Game, case: Case) -> None:
    """A random match ends within the step limit with every per-step check holding
    except the sampled ones, and ends properly: a ``game_end`` event last, nobody to act,
    one score per team, a winning team or a draw, and no action accepted after it."""
    state, actions = playout(game, case, legal_list_is_canonical)
    info = game.info
    assert state.events and state.events[-1].kind == "game_end", "no game_end at the end"
    assert len(state.scores()) == info.num_teams
    assert state.winner() in (None, *range(info.num_teams))
    illegal_actions_change_nothing(rate=1.0)(state, random.Random(case.policy_seed))
    assert len(actions) < STEP_LIMIT


def check_per_step(game: Game, case: Case, rate: float = SAMPLED) -> None:
    """Legal lists, hidden cards, illegal ids and the wire through one random match."""
    playout(
        game,
        case,
        every_step(
            legal_list_is_canonical,
            nothing_hidden_leaks(),
            illegal_actions_change_nothing(rate),
            converts_to_the_wire(rate),
        ),
    )


def check_hidden_cards(game: Game, case: Case) -> None:
    playout(game, case, nothing_hidden_leaks())


def check_illegal_actions(game: Game, case: Case, rate: float = SAMPLED) -> None:
    playout(game, case, illegal_actions_change_nothing(rate))


def check_wire(game: Game, case: Case, rate: float = SAMPLED) -> None:
    playout(game, case, converts_to_the_wire(rate))


def check_legal_lists(game: Game, case: Case) -> None:
    playout(game, case, legal_list_is_canonical)


def check_determinism(game: Game, case: Case) -> None:
    """The same seed and actions give the same match: the same observations, legal lists
    and events at every step, the same scores, winner and state at the end, whatever the
    process-wide random generator holds."""
    _, actions = playout(game, case)
    first = game.new_state(case.seed, case.options)
    random.seed(case.policy_seed)  # an engine must not draw from the shared generator
    second = game.new_state(case.seed, case.options)
    seats = range(game.info.num_seats)
    for step, action in enumerate([*actions, None]):
        where = f"after {step} actions"
        assert first.events == second.events, f"{where}: the events differ"
        assert first.legal_actions() == second.legal_actions(), f"{where}: legal lists differ"
        for seat in seats:
            assert first.observation(seat) == second.observation(seat), (
                f"{where}: seat {seat}'s observations differ"
            )
        if action is None:
            break
        random.seed(step)
        first.apply(action)
        random.seed(~step)
        second.apply(action)
    assert first.is_terminal() and second.is_terminal()
    assert first.scores() == second.scores() and first.winner() == second.winner()
    assert first.snapshot() == second.snapshot()


def recorded_log(
    game: Game, case: Case, match_id: str = "generic-1", faults: bool = False
) -> referee_pb2.MatchLog:
    """A random match's record as the referee keeps one (``arena.referee.match``): its
    choices, think times from 0.3 ms to 0.2 s and, with ``faults``, the odd timeout, the
    referee's substitute played in its place (two a team at most: never a forfeit)."""
    info = game.info
    state = game.new_state(case.seed, case.options)
    options = info.resolve_options(case.options)
    log = referee_pb2.MatchLog(
        match_id=match_id,
        game=info.name,
        seed=case.seed,
        deal_salt=new_salt(),
        seat_tokens=[f"seat-{s}-sees-this" for s in range(info.num_seats)],
        options_json=json.dumps(options, sort_keys=True) if options else "",
        seat_names=[f"bot {s}" for s in range(info.num_seats)],
        move_deadline=wire.duration(1.0),
        max_faults=3,
        end=referee_pb2.MATCH_END_COMPLETED,
        played=True,
    )
    log.started_at.FromMilliseconds(1_796_000_000_000)
    policy = random.Random(case.policy_seed)
    timing = random.Random(case.seed)
    team_faults = [0] * info.num_teams
    while not state.is_terminal():
        assert len(log.choices) < STEP_LIMIT, "the match does not end"
        seat, legal, index = state.current_seat(), state.legal_actions(), len(log.choices)
        team = info.seat_teams[seat]
        if faults and timing.random() < 0.03 and team_faults[team] < 2:
            team_faults[team] += 1
            log.faults.add(
                seat=seat, decision_index=index, kind=referee_pb2.FAULT_KIND_TIMEOUT, detail="late"
            )
            action, choice = substitute_action(case.seed, index, legal), 0
        else:
            action = policy.choice(legal)
            choice = legal.index(action)
        log.choices.append(choice)
        log.think_100us.append(timing.choice((3, 10, 90, 400, 2000)))
        state.apply(action)
    log.duration.FromMilliseconds(1500)
    return log


def recorded_replay(game: Game, case: Case, match_id: str = "generic-1") -> dict[str, Any]:
    """A random match's replay as the arena builds one from its record, read back from
    JSON as a reader would."""
    document = replay_document(recorded_log(game, case, match_id))
    loaded: dict[str, Any] = json.loads(json.dumps(document, separators=(",", ":")))
    return loaded


def check_replay(game: Game, case: Case) -> None:
    """A recorded match (with faults) re-runs from its record to a replay that verifies
    (``arena.replay.verify``; the game must be registered), the replay gives back the
    very record (``log_from_replay``), its decisions cost at most 4 bytes each, and the
    record or replay with one decision changed past the legal ones does not re-run."""
    log = recorded_log(game, case, faults=True)
    document = json.loads(json.dumps(replay_document(log)))
    verified = verify_text(json.dumps(document))
    assert verified.game == game.info.name and verified.end == "completed"
    assert verified.decisions == document["result"]["decisions"] == len(log.choices)
    assert log_from_replay(document) == log
    bare = referee_pb2.MatchLog()
    bare.CopyFrom(log)
    del bare.choices[:], bare.think_100us[:]
    decisions = len(log.choices)
    assert len(encode(log)) - len(encode(bare)) <= 4 * decisions, "a decision costs over 4 bytes"
    substituted = {fault.decision_index for fault in log.faults}
    last = max(set(range(decisions)) - substituted)  # a substitute's choice is not read
    log.choices[last] = 255
    try:
        replay_document(log)
    except ReplayMismatch as mismatch:
        assert f"decision {last} (seat " in str(mismatch)
    else:
        raise AssertionError("a record with a choice past the legal ones re-ran")
    entry = [
        line["decision"] for hand in document["hands"] for line in hand["log"] if "decision" in line
    ][-1]
    entry["action"] += 1
    try:
        verify_text(json.dumps(document))
    except ReplayMismatch:
        pass
    else:
        raise AssertionError("a replay with a changed action verified")


# --- chosen deals -------------------------------------------------------------------------


def _reshaped(deal: Deal, cards: Sequence[str]) -> Deal:
    """``deal`` with its cards, hands then rest, replaced by ``cards`` in the same places."""
    hands, at = [], 0
    for hand in deal.hands:
        hands.append(tuple(cards[at : at + len(hand)]))
        at += len(hand)
    return Deal(tuple(hands), deal.dealer, tuple(cards[at:]))


def check_chosen_deal(game: Game, case: Case) -> None:
    """The deal a fresh match started from (``State.initial_deal()``), given to
    ``new_state`` with other seeds, starts the same first hand: the same deal, legal list
    and observations for every seat. (After a redeal the seeded match also shows the
    thrown-in cards, which a chosen deal has no past for: it is then compared only with
    another chosen one.)"""
    fresh = game.new_state(case.seed, case.options)
    deal = fresh.initial_deal()
    assert len(deal.hands) == game.info.num_seats and deal.dealer is not None
    chosen = [game.new_state(seed, case.options, deal=deal) for seed in (case.seed ^ 1, 7)]
    redealt = sum(event.kind == "deal" for event in fresh.events) > 1
    for state in chosen if redealt else [fresh, *chosen]:
        assert state.initial_deal() == deal, "a chosen deal is not the deal the match starts from"
        assert state.legal_actions() == chosen[0].legal_actions(), (
            "a chosen deal's legal lists differ"
        )
        for seat in range(game.info.num_seats):
            assert state.observation(seat) == chosen[0].observation(seat), (
                f"a chosen deal shows seat {seat} another first hand"
            )
    dealt = next(event for event in chosen[0].events if event.kind == "deal")
    assert [sorted(hand) for hand in dealt.data["hands"]] == [sorted(h) for h in deal.hands]


def _second_hand(game: Game, case: Case) -> tuple[tuple[int, ...], int]:
    """The scores and deal number a seeded match reaches: those at the start of its second
    hand when the first was played out (not thrown in) and the match goes on; otherwise
    the start of the match, spelt out."""
    state = game.new_state(case.seed, case.options)
    policy = random.Random(case.policy_seed)
    while not state.is_terminal():
        kinds = [event.kind for event in state.events]
        if "throw_in" in kinds:
            break
        if kinds.count("deal") > 1:
            return tuple(state.scores()), 2
        state.apply(policy.choice(state.legal_actions()))
    return (0,) * game.info.num_teams, 1


def check_match_so_far(game: Game, case: Case) -> None:
    """A deal with the match's progress (``scores``, ``deal_number``) starts from it: a
    seeded match reports the start (None, 1); scores and a deal number a seeded match
    reaches, given with its first deal to two other seeds, come back from
    ``initial_deal()`` and ``scores()``, give the same legal list and observations, and
    the match still ends."""
    deal = game.new_state(case.seed, case.options).initial_deal()
    assert (deal.scores, deal.deal_number) == (None, 1), "a seeded match starts the match"
    scores, number = _second_hand(game, case)
    later = dataclasses.replace(deal, scores=scores, deal_number=number)
    states = [game.new_state(seed, case.options, deal=later) for seed in (case.seed ^ 1, 7)]
    for state in states:
        assert state.initial_deal() == later, "initial_deal() does not give the deal back"
        assert state.scores() == list(scores), "the match does not start from the scores"
        assert state.legal_actions() == states[0].legal_actions()
        for seat in range(game.info.num_seats):
            assert state.observation(seat) == states[0].observation(seat)
    policy = random.Random(case.policy_seed)
    state, steps = states[0], 0
    while not state.is_terminal():
        state.apply(policy.choice(state.legal_actions()))
        steps += 1
        assert steps < STEP_LIMIT, "a match from a chosen deal with its progress never ends"


def check_bad_deals(game: Game, case: Case) -> None:
    """A deal that does not fit raises ``DealError`` saying what is wrong: a card twice, a
    card missing, a card not in the pack, a hand too many or too few, a dealer that is no
    seat, scores not one whole number per team, a deal number below 1 or not a number."""
    deal = game.new_state(case.seed, case.options).initial_deal()
    cards = [card for hand in deal.hands for card in hand] + list(deal.rest)
    foreign = min(CARD_CODES - set(cards))
    short = Deal(deal.hands, deal.dealer, deal.rest[:-1]) if deal.rest else None
    if short is None:
        longest = max(range(len(deal.hands)), key=lambda seat: len(deal.hands[seat]))
        hands = list(deal.hands)
        hands[longest] = hands[longest][:-1]
        short = Deal(tuple(hands), deal.dealer, deal.rest)
    seats = game.info.num_seats
    bad = {
        "more than once": _reshaped(deal, [cards[0], cards[0], *cards[2:]]),
        "not a card": _reshaped(deal, [foreign, *cards[1:]]),
        "missing|must be dealt": short,
        "one per seat": Deal(deal.hands[:-1], deal.dealer, deal.rest),
        "one per seat ": Deal((*deal.hands, ()), deal.dealer, deal.rest),
        "dealer must be": Deal(deal.hands, seats, deal.rest),
        "one per team": dataclasses.replace(deal, scores=(0,) * (game.info.num_teams + 1)),
        "whole numbers": dataclasses.replace(deal, scores=(1.5,) * game.info.num_teams),  # type: ignore[arg-type]
        "deal_number": dataclasses.replace(deal, deal_number=0),
        "deal_number ": dataclasses.replace(deal, deal_number=True),
    }
    for words, wrong in bad.items():
        try:
            game.new_state(case.seed, case.options, deal=wrong)
        except DealError as error:
            assert re.search(words.strip(), str(error)), f"{error} does not say {words.strip()!r}"
            assert str(error).startswith(game.info.name), f"{error} does not name the game"
        else:
            raise AssertionError(f"a deal with a fault ({words.strip()}) was accepted")


MatchCheck = Callable[[Game, Case], None]

MATCH_CHECKS: dict[str, MatchCheck] = {
    "termination": check_termination,
    "legal lists": check_legal_lists,
    "determinism": check_determinism,
    "illegal actions": check_illegal_actions,
    "hidden cards": check_hidden_cards,
    "wire": check_wire,
    "replay": check_replay,
    "chosen deal": check_chosen_deal,
    "bad deals": check_bad_deals,
    "match so far": check_match_so_far,
}
"""Every check of the generic suite, by name."""
