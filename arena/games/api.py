"""The engine contract every game implements, after OpenSpiel's Game/State split.

A ``Game`` holds the facts of a game (seats, teams, options) and makes states; a
``State`` is one match in progress. Engines are pure: no I/O, no clock, and every
chance event comes from the ``random.Random`` the state seeds itself, so the same
seed and the same actions give the same match on every machine.

Actions are non-negative integers below 2**63 (a proto ``uint64`` on the wire) with a
meaning that is stable for the whole game (``play QH`` always has the same number), as in
OpenSpiel. They are not all small: Baloot, Bid Euchre and Bridgette number theirs densely
from 0 (``NUM_ACTIONS``, at most 1,336), Persian Rummy's stay below 2**25, and Seep's
encode the cards a play moves, so they are sparse and reach past 2**62 (``arena.openspiel``
renumbers them). Each game also gives an action its canonical text and a typed payload,
which ``arena.wire`` turns into proto messages.
"""

from __future__ import annotations

import abc
import pickle
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

OptionValue = bool | int
Options = dict[str, OptionValue]


class GameError(Exception):
    """Base of every error an engine raises on purpose."""


class IllegalActionError(GameError):
    """The action is not in ``legal_actions()``; the state is unchanged."""


class OptionError(GameError):
    """An option is unknown or has a value outside what the game allows."""


class UnknownGameError(GameError):
    """No game is registered under that name."""


class InconsistentView(GameError):
    """One seat's information cannot come from any real match: a determinization
    (``arena.games.worlds``) was asked of a corrupted observation; the message names what
    does not fit."""


class DealError(GameError):
    """A chosen deal (``Game.new_state(..., deal=...)``) does not fit the game."""


ProgressRule = Callable[[tuple[int, ...], int], str | None]
"""A game's own limits on a match's progress: given the scores so far and the deal
number, what is wrong with them (the end of a ``DealError`` message, saying what is
allowed), or None when the match can have reached them."""


def check_progress(
    game: str,
    scores: object,
    deal_number: object,
    teams: int,
    rule: ProgressRule | None = None,
) -> None:
    """Raise ``DealError`` unless ``scores`` (None, or one whole number per team) and
    ``deal_number`` (a whole number from 1) have the right form and fit the game's
    ``rule``."""
    if scores is not None and (
        not isinstance(scores, tuple)
        or len(scores) != teams
        or any(type(score) is not int for score in scores)
    ):
        raise DealError(
            f"{game}: scores are None (the start of the match) or a tuple of {teams} whole "
            f"numbers, one per team, not {scores!r}"
        )
    if type(deal_number) is not int or deal_number < 1:
        raise DealError(
            f"{game}: deal_number is a whole number from 1 (the match's first hand), "
            f"not {deal_number!r}"
        )
    problem = None if rule is None else rule(scores or (0,) * teams, deal_number)
    if problem is not None:
        raise DealError(f"{game}: {problem}")


@dataclass(frozen=True)
class Deal:
    """Who holds what when a hand starts, and how far the match has come, for
    ``Game.new_state(deal=...)``.

    Tests, bots and analysis use it to start a match from a chosen arrangement instead
    of the seed's shuffle; the seed still decides everything else (later hands, and the
    dealer when ``dealer`` is None). Cards are codes as in observations (``QH``, ``X1``).

    * ``hands``: one tuple of cards per seat, as the game deals them before anyone acts
      (the ``deal`` event's ``hands``); order within a hand does not matter.
    * ``dealer``: the dealer's seat, or None to draw the dealer as the seed would.
    * ``rest``: every card not in ``hands``, in the order the game turns it up, deals it
      or draws it later. Each game's ``new_state`` says what that order is.
    * ``scores``: the match so far, each team's score before this hand as
      ``State.scores()`` reports it (Seep: bazzis won); None is the start of the match.
    * ``deal_number``: which hand of the match this is, 1 for the first. Later hands,
      the safeguards that count hands and the end of a match of so many deals count on
      from it; each game's ``new_state`` says what else follows from it.

    Together ``hands`` and ``rest`` hold the game's whole pack (with these options)
    exactly once; anything else is a ``DealError``, and so are scores and a deal number
    the match could not have reached (one score per team, below the target that would
    have ended the match, a deal number from 1 within the game's limits: each game's
    ``new_state`` says which). ``State.initial_deal()`` gives back the deal a match
    started from, in this form.
    """

    hands: tuple[tuple[str, ...], ...]
    dealer: int | None = None
    rest: tuple[str, ...] = ()
    scores: tuple[int, ...] | None = None
    deal_number: int = 1

    @classmethod
    def of(
        cls,
        hands: Iterable[str | Iterable[str]],
        dealer: int | None = None,
        rest: str = "",
        *,
        scores: Iterable[int] | None = None,
        deal_number: int = 1,
    ) -> Deal:
        """A deal from text: each hand and ``rest`` may be one string of codes separated
        by spaces (``Deal.of(["AS KS", "QS JS"], dealer=1, rest="TS 9S")``)."""
        return cls(
            tuple(tuple(h.split()) if isinstance(h, str) else tuple(h) for h in hands),
            dealer,
            tuple(rest.split()),
            None if scores is None else tuple(scores),
            deal_number,
        )

    def start_scores(self, teams: int) -> tuple[int, ...]:
        """The scores this hand starts from: ``scores``, or zeros at the start of a match."""
        return (0,) * teams if self.scores is None else self.scores

    def check(
        self,
        game: str,
        pack: Sequence[str],
        hand_sizes: Callable[[int], Sequence[int]],
        seed_dealer: int,
        rest: str,
        *,
        teams: int,
        progress: ProgressRule | None = None,
    ) -> int:
        """Raise ``DealError`` unless this deal fits, and return its dealer (``seed_dealer``,
        the one the seed drew, when none is chosen). It fits with one hand per seat of the
        sizes ``hand_sizes(dealer)`` gives, the other cards of ``pack`` in ``rest`` (which
        the words ``rest`` describe, for the message), every card of ``pack`` once, and
        the match's progress as ``check_progress`` checks it."""
        check_progress(game, self.scores, self.deal_number, teams, progress)
        seats = len(hand_sizes(seed_dealer))
        if len(self.hands) != seats:
            raise DealError(
                f"{game}: a deal has {seats} hands, one per seat, not {len(self.hands)}"
            )
        dealer = seed_dealer if self.dealer is None else self.dealer
        if type(dealer) is not int or not 0 <= dealer < seats:
            raise DealError(f"{game}: the dealer must be a seat 0..{seats - 1}, not {dealer!r}")
        known = set(pack)
        everything = [card for hand in self.hands for card in hand] + list(self.rest)
        strange = [card for card in everything if card not in known]
        if strange:
            raise DealError(
                f"{game}: {', '.join(map(repr, strange))} "
                f"{'is not a card' if len(strange) == 1 else 'are not cards'} of this "
                f"game's pack with these options ({len(pack)} cards: {' '.join(pack)})"
            )
        seen: set[str] = set()
        twice: list[str] = []
        for card in everything:
            if card in seen and card not in twice:
                twice.append(card)
            seen.add(card)
        if twice:
            raise DealError(f"{game}: {' '.join(twice)} dealt more than once")
        sizes = hand_sizes(dealer)
        for seat, (hand, size) in enumerate(zip(self.hands, sizes, strict=True)):
            if len(hand) != size:
                raise DealError(
                    f"{game}: seat {seat} must be dealt {size} cards here, not {len(hand)}"
                )
        missing = [card for card in pack if card not in seen]
        if missing:
            raise DealError(
                f"{game}: a deal uses the whole pack; {' '.join(missing)} "
                f"{'is' if len(missing) == 1 else 'are'} missing from the hands and rest "
                f"({rest})"
            )
        return dealer


@dataclass(frozen=True)
class OptionSpec:
    """One named rule variant or safeguard of a game."""

    name: str
    default: OptionValue
    help: str
    minimum: int | None = None
    maximum: int | None = None

    def parse(self, raw: object) -> OptionValue:
        """Accept a typed value or its text form (``true``, ``0``, ``150``)."""
        if isinstance(self.default, bool):
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("true", "1", "on", "yes"):
                return True
            if text in ("false", "0", "off", "no"):
                return False
            raise OptionError(f"option {self.name!r} takes true or false, not {raw!r}")
        try:
            value = int(str(raw).strip()) if not isinstance(raw, int) else raw
        except ValueError:
            raise OptionError(f"option {self.name!r} takes a whole number, not {raw!r}") from None
        if isinstance(value, bool):
            raise OptionError(f"option {self.name!r} takes a whole number, not {raw!r}")
        low = self.minimum if self.minimum is not None else "-inf"
        high = self.maximum if self.maximum is not None else "inf"
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            raise OptionError(f"option {self.name!r} must be in {low}..{high}, not {value}")
        return value


class _EventFields(NamedTuple):
    kind: str
    text: str
    seat: int | None
    data: Mapping[str, Any]
    visible_to: tuple[int, ...] | None


_new_tuple = tuple.__new__


class Event(_EventFields):
    """One entry of a match's event log, from which replays and watch streams are made.

    ``visible_to`` is ``None`` for a public event; otherwise only those seats may see it
    during play (a deal is ``()``: nobody but the replay).

    A named tuple, not a frozen dataclass: engines make one or more per decision, and a
    frozen dataclass's ``__init__`` (``object.__setattr__`` per field) was most of Bid
    Euchre's cost per decision; a tuple is as immutable and several times cheaper to
    make. Equal only to an ``Event`` with equal fields, never to a bare tuple.
    """

    __slots__ = ()

    def __new__(
        cls,
        kind: str,
        text: str,
        seat: int | None = None,
        data: Mapping[str, Any] | None = None,
        visible_to: tuple[int, ...] | None = None,
    ) -> Event:
        return _new_tuple(cls, (kind, text, seat, {} if data is None else data, visible_to))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = _EventFields.__hash__

    @property
    def public(self) -> bool:
        return self.visible_to is None


@dataclass(frozen=True)
class GameInfo:
    """Static facts of a game, declared once at the top of its module."""

    name: str
    title: str
    num_seats: int
    seat_teams: tuple[int, ...]
    options: tuple[OptionSpec, ...] = ()
    description: str = ""
    score_unit: str = "point"
    """What ``State.scores()`` counts, singular, for text ("1 bazzi", "54 points")."""
    former_texts: tuple[tuple[str, str], ...] = ()
    """Event texts as an earlier version of the engine wrote them, each a regular
    expression over today's text and the replacement that gives the old one: stored
    replays hold the old texts, and replay verification accepts them."""
    former_rules: tuple[tuple[str, str], ...] = ()
    """Rules an earlier version of the engine played by, each a name the engine reads
    from ``State.former`` and what the rule was, in words: a stored match played under
    one re-runs under it, and verification names it (``arena.replay``)."""
    refused_options: tuple[tuple[str, str], ...] = ()
    """Variants the rules name but the engine does not offer, each with the reason: asking
    for one is an ``OptionError`` that says why, not a bare "unknown option"."""

    @property
    def num_teams(self) -> int:
        return max(self.seat_teams) + 1

    def seats_of_team(self, team: int) -> tuple[int, ...]:
        return tuple(s for s, t in enumerate(self.seat_teams) if t == team)

    def resolve_options(self, raw: Mapping[str, object] | None = None) -> Options:
        """Defaults overlaid with ``raw``; unknown names and bad values raise ``OptionError``."""
        specs = {o.name: o for o in self.options}
        resolved: Options = {o.name: o.default for o in self.options}
        for name, value in (raw or {}).items():
            spec = specs.get(name)
            refused = dict(self.refused_options).get(name)
            if spec is None and refused is not None:
                raise OptionError(f"option {name!r} of {self.name} is not offered: {refused}")
            if spec is None:
                allowed = ", ".join(sorted(specs)) or "none"
                raise OptionError(
                    f"unknown option {name!r} for {self.name}; allowed options: {allowed}"
                )
            resolved[name] = spec.parse(value)
        return resolved


class State(abc.ABC):
    """One match in progress. Mutated only through ``apply``."""

    game_info: GameInfo
    events: list[Event]
    former: frozenset[str] = frozenset()
    """Former rules (``GameInfo.former_rules``) this state plays by: set only to re-run a
    match stored before the rule changed, never for a match being played."""

    @abc.abstractmethod
    def current_seat(self) -> int:
        """Seat to act, or -1 once the match is over."""

    @abc.abstractmethod
    def legal_actions(self) -> list[int]:
        """Every legal action of the seat to act, in canonical (ascending) order."""

    @abc.abstractmethod
    def _apply(self, action: int) -> None:
        """Apply an action already known to be legal."""

    @abc.abstractmethod
    def action_text(self, action: int) -> str:
        """Canonical short text, e.g. ``play QH``; unique among the legal actions."""

    @abc.abstractmethod
    def action_payload(self, action: int) -> tuple[str, object]:
        """The typed form ``(kind, value)``: the proto oneof field and its value."""

    @abc.abstractmethod
    def observation(self, seat: int) -> Any:
        """What ``seat`` may know now, as the game's observation dataclass; nothing more."""

    @abc.abstractmethod
    def is_terminal(self) -> bool: ...

    @abc.abstractmethod
    def scores(self) -> list[int]:
        """Running game score of each team."""

    @abc.abstractmethod
    def winner(self) -> int | None:
        """Winning team at the end, or ``None`` for a draw (or while the match runs)."""

    def apply(self, action: int) -> None:
        """Apply ``action`` for the seat to act; an illegal one raises and changes nothing."""
        if self.is_terminal():
            raise IllegalActionError(f"{self.game_info.name}: the match is over")
        if action not in self.legal_actions():
            raise IllegalActionError(
                f"{self.game_info.name}: action {action} is not legal for seat "
                f"{self.current_seat()}"
            )
        self._apply(action)

    def public_table(self) -> str | None:
        """A one-line picture of what lies face up (Seep's floor, say), written into
        replays after each decision; None for games whose events already tell it."""
        return None

    _first_deal: Deal | None = None

    def initial_deal(self) -> Deal:
        """The deal the match's first hand started from, dealer, scores and deal number
        included, in the form ``Game.new_state(deal=...)`` takes: given to another seed,
        it reproduces the first hand (the seed still shuffles the later ones)."""
        if self._first_deal is None:
            raise GameError(f"{self.game_info.name}: this engine does not record its deal")
        return self._first_deal

    def snapshot(self) -> bytes:
        """A byte image of the whole state, for checking that nothing changed."""
        return pickle.dumps(self.__dict__)


GAME_OVER = "game_over"
"""The phase of a match that has ended, in every engine built on ``PhaseState``."""


class PhaseState(State):
    """The State the five engines build on: each keeps the seat to act in ``current``
    (-1 once over), its legal list in ``_legal`` (computed once after every change, so
    asking is cheap and changes nothing), the phase in ``phase`` (``GAME_OVER`` at the
    end), each team's running score in ``team_scores`` and the winner in
    ``winning_team``; the contract's five questions are answered here, once."""

    current: int
    phase: str
    _legal: list[int]
    team_scores: list[int]
    winning_team: int | None

    def current_seat(self) -> int:
        return self.current

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def apply(self, action: int) -> None:
        """``State.apply`` without copying the legal list: every decision passes here.
        Anything else goes the base class's way, to the same error, changing nothing."""
        if self.phase != GAME_OVER and action in self._legal:
            self._apply(action)
        else:
            super().apply(action)

    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    def scores(self) -> list[int]:
        return list(self.team_scores)

    def winner(self) -> int | None:
        return self.winning_team


class Game(abc.ABC):
    """Makes states; holds no per-match data."""

    info: GameInfo

    @abc.abstractmethod
    def new_state(
        self, seed: int, options: Mapping[str, object] | None = None, *, deal: Deal | None = None
    ) -> State:
        """A fresh match dealt from ``seed``; options are validated with ``resolve_options``.

        With ``deal``, the first hand starts from that arrangement, and the match from the
        deal's scores and deal number, instead of the seed's shuffle and the match's start
        (a ``DealError`` says what does not fit); the seed deals the rest."""
