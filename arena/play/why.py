"""Why a card the person typed may not be played: the rule that forbids it, in words.

The referee only ever offers legal actions, so a person who types ``play JD`` where it is
not legal deserves more than "not an action". ``explain`` finds the card in what was
typed and asks the game's function for the rule it breaks: must follow suit (with Bid
Euchre's left bower, a trump and not a card of its printed suit, and its optional joker,
a card of the trump suit), a locked Hokum's ban on trump leads, Bridgette's colons and
barred suit, Seep's compulsory captures and house rules, Bid Euchre's ASK return. For a
call: Bid Euchre's rule that a call beats the highest so far and that a stuck dealer
must call; Baloot's bidding (who may call Hokum or Ashkal, and when; the claim window;
the Hokum caller's trump; the doubling chain's order). Games whose actions carry several
cards get the whole typed text first (``ACTION_EXPLAINERS``): Persian Rummy's turn (draw
or take first, a taken card used at once, a pass only on an empty stock), its melds and
lay-offs; Seep's captures, builds, adds and breaks typed with cards that do not fit
(sums, maximal captures, house values, the card kept for a house). Each function reads
only the seat's own observation, so an explanation can never give away a hidden card;
when no rule is recognised the answer lists what is legal instead.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from arena.games.cards import pretty_text
from arena.play.screen import enum_text, observation_of
from arena.v1 import baloot_pb2, bid_euchre_pb2, bot_pb2, persian_rummy_pb2, seep_pb2

Card = str
Observation = Any
"""A game's observation message (``BidEuchreObservation`` and so on)."""
Explainer = Callable[[Observation, Card, str], "str | None"]

SUIT_LETTERS = {1: "C", 2: "D", 3: "H", 4: "S"}
"""The proto ``Suit`` enum to card-code letters."""
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SYMBOL_LETTERS = {"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"}
CARD_WORD = re.compile(
    r"^(?:(10|[2-9TJQKA])([CDHS\u2663\u2666\u2665\u2660])|(GC|RC|LC|X[1-4]))$", re.IGNORECASE
)
COLON_NAMES = {"GC": "Grand Colon", "RC": "Royal Colon", "LC": "Little Colon"}
SAME_COLOUR = {"C": "S", "S": "C", "D": "H", "H": "D"}
BID_EUCHRE_JOKER = "X1"
"""Bid Euchre's joker (option ``joker``): the highest trump, a card of the trump suit."""


def card_in(text: str) -> Card | None:
    """The card code a typed line names (``play jd``, ``J♦``, ``10h``), if any."""
    for word in text.split():
        match = CARD_WORD.match(word)
        if match is None:
            continue
        if match.group(3):
            return match.group(3).upper()
        rank = "T" if match.group(1) == "10" else match.group(1).upper()
        suit = match.group(2)
        return rank + SYMBOL_LETTERS.get(suit, suit.upper())
    return None


def show(card: Card) -> str:
    return COLON_NAMES.get(card, pretty_text(card))


def shown(cards: Sequence[Card]) -> str:
    return " ".join(show(c) for c in cards)


def codes(cards: Sequence[Any]) -> list[Card]:
    return [str(c.code) for c in cards]


def legal_texts(request: bot_pb2.ActRequest) -> list[str]:
    return [action.text for action in request.legal_actions]


def explain(request: bot_pb2.ActRequest, text: str) -> str | None:
    """Why the card in ``text`` cannot be played now; None when ``text`` names no card
    or names a legal action. Uses the request's observation and legal actions only."""
    card = card_in(text)
    observation = observation_of(request)
    if observation is None:
        return None
    legal = legal_texts(request)
    if " ".join(text.split()).casefold() in (t.casefold() for t in legal):
        return None
    whole = ACTION_EXPLAINERS.get(request.game)
    if whole is not None and (reason := whole(observation, text, legal)) is not None:
        return reason
    if card is None:
        calls = CALL_EXPLAINERS.get(request.game)
        return None if calls is None else calls(observation, text)
    with_card = [t for t in legal if card in t.split()]
    hand = codes(getattr(observation, "hand", ()))
    if card not in hand:
        if with_card:
            return f"{show(card)} can be played as: {', '.join(with_card)}"
        return f"you do not hold {show(card)}; your hand: {shown(hand)}"
    words = text.split()
    verb = words[0].casefold() if len(words) > 1 else ""
    reason = EXPLAINERS.get(request.game, _no_rule)(observation, card, verb)
    if reason is not None:
        return reason
    if with_card:  # the card is playable, but not as typed
        return f"{show(card)} can be played as: {', '.join(with_card)}"
    listed = ", ".join(legal[:8]) + (", ..." if len(legal) > 8 else "")
    return f"{show(card)} is not legal now; legal: {listed}"


def _no_rule(observation: Observation, card: Card, verb: str) -> str | None:
    return None


# --- trick games ----------------------------------------------------------------------


def _follow(
    led: str, holding: Sequence[Card], card: Card, note: str = "", trump: str | None = None
) -> str:
    suit = f"trumps ({SUIT_WORDS[led]})" if led == trump else SUIT_WORDS[led]
    return f"you must follow {suit}: you hold {shown(holding)}{note}"


def bid_euchre(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow the led suit, the left bower and the joker counting as trumps; the ASK
    return."""
    trump = SUIT_LETTERS.get(observation.trump)
    phase = observation.phase
    hand = codes(observation.hand)
    if trump is None:
        return None
    left = "J" + SAME_COLOUR[trump]

    def suit(c: Card) -> str:
        return trump if c in (left, BID_EUCHRE_JOKER) else c[1]

    if phase == bid_euchre_pb2.BID_EUCHRE_PHASE_ASK_RETURN:
        trumps = [c for c in hand if suit(c) == trump]
        joker = " and the joker" if BID_EUCHRE_JOKER in trumps else ""
        return (
            f"in an ASK you must return your highest trump (bowers{joker} included): "
            f"of {shown(trumps)}, that is not {show(card)}"
            if trumps
            else None
        )
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        return None
    led = suit(trick[0])
    holding = [c for c in hand if suit(c) == led]
    if not holding or suit(card) == led:
        return None
    notes = []
    if trick[0] in (left, BID_EUCHRE_JOKER):
        led_card = "joker" if trick[0] == BID_EUCHRE_JOKER else show(left)
        notes.append(f"the {led_card} led is a trump, so trumps were led")
    if card == left:
        notes.append(f"the {show(left)} is a trump in a {SUIT_WORDS[trump]} hand")
    elif card == BID_EUCHRE_JOKER:
        notes.append(f"the joker is a trump ({SUIT_WORDS[trump]}), not a card of the led suit")
    elif left in holding:
        notes.append(f"your {show(left)} counts as a trump")
    if BID_EUCHRE_JOKER in holding and card != BID_EUCHRE_JOKER:
        notes.append("your joker counts as a trump")
    return _follow(led, holding, card, "".join(f"; {n}" for n in notes), trump)


def baloot(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow the led suit; no trump lead while holding another suit in a locked Hokum."""
    hand = codes(observation.hand)
    trick = [str(p.card.code) for p in observation.trick]
    if trick:
        led = trick[0][1]
        holding = [c for c in hand if c[1] == led]
        trump = SUIT_LETTERS.get(observation.trump)
        return _follow(led, holding, card, trump=trump) if holding and card[1] != led else None
    trump = SUIT_LETTERS.get(observation.trump)
    if observation.locked and trump and card[1] == trump:
        return (
            f"this Hokum is doubled (locked): you may not lead a trump ({SUIT_WORDS[trump]}) "
            f"while you hold another suit"
        )
    return None


BRIDGETTE_GROUPS = {"GC": "A", "RC": "KQJ", "LC": "23456789T"}


def _colon_of(card: Card) -> Card:
    return next(colon for colon, ranks in BRIDGETTE_GROUPS.items() if card[0] in ranks)


def bridgette(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow suit or play the led card's own colon; a barred suit may not be led."""
    hand = codes(observation.hand)
    trick = [str(p.card.code) for p in observation.trick]
    if not trick:
        barred = SUIT_LETTERS.get(observation.barred_suit)
        if barred and card not in COLON_NAMES and card[1] == barred:
            return (
                f"{SUIT_WORDS[barred]} are barred: a colon was played on your "
                f"{SUIT_WORDS[barred]} lead, so you may not lead {SUIT_WORDS[barred]} again "
                f"while you hold another card"
            )
        return None
    led = trick[0]
    if led in COLON_NAMES:
        return None
    holding = [c for c in hand if c not in COLON_NAMES and c[1] == led[1]]
    matching = _colon_of(led)
    if card in COLON_NAMES:
        return (
            f"a colon may follow only a card of its group: {show(led)} takes the "
            f"{show(matching)}, and another colon only when nothing else can be played"
        )
    if holding:
        return _follow(led[1], holding, card, f" (or the {show(matching)})")
    return None


# --- Seep -----------------------------------------------------------------------------

SEEP_VALUES = {rank: value for value, rank in enumerate("A23456789TJQK", start=1)}


def _sums_to(cards: Sequence[Card], value: int) -> list[Card] | None:
    """Some loose cards adding up to ``value`` (a capture), smallest first."""
    for size in range(1, len(cards) + 1):
        for group in itertools.combinations(cards, size):
            if sum(SEEP_VALUES[c[0]] for c in group) == value:
                return list(group)
    return None


def seep(observation: Observation, card: Card, verb: str) -> str | None:
    """Seep's house rules for a throw: the opening bid, compulsory capture, houses,
    and keeping a card of your own house's value."""
    if verb not in ("", "throw"):
        return None
    hand = codes(observation.hand)
    value = SEEP_VALUES[card[0]]
    loose = codes(observation.loose)
    houses = {house.value: house for house in observation.houses}
    if not observation.plays and observation.HasField("bid") and value != observation.bid:
        return (
            f"the opening play must use your bid of {observation.bid}: throw or capture a "
            f"card of value {observation.bid}, or build with any card"
        )
    if value in houses:
        return f"a house of {value} is on the floor: a card of value {value} must capture it"
    group = _sums_to(loose, value)
    if group is not None:
        return f"capturing is compulsory: {show(card)} can take {shown(group)}"
    for house_value, house in houses.items():
        owned = observation.seat in house.owners
        others = [c for c in hand if c != card and SEEP_VALUES[c[0]] == house_value]
        if owned and value == house_value and not others:
            return (
                f"you own the house of {house_value}: you must keep a card of that value "
                f"until the house is taken or broken"
            )
    return None


SEEP_ORDER = {r + u: i for i, (r, u) in enumerate(itertools.product("A23456789TJQK", "CDHS"))}
"""Seep's canonical card order (by value, then suit): how actions list cards."""


def _packs(values: Sequence[int], target: int) -> bool:
    """Whether ``values`` split into groups that each add up to ``target`` (the first
    value's group found first)."""
    if not values:
        return True
    first, rest = values[0], list(values[1:])
    for size in range(len(rest) + 1):
        for picked in itertools.combinations(range(len(rest)), size):
            if first + sum(rest[i] for i in picked) == target:
                left = [v for i, v in enumerate(rest) if i not in picked]
                if _packs(left, target):
                    return True
    return False


def _seep_value(card: Card) -> int:
    return SEEP_VALUES[card[0]]


def seep_play(observation: Observation, text: str, legal: Sequence[str]) -> str | None:
    """A capture, build, add or break typed with cards that do not fit: the sums, the
    houses on the floor, maximal captures and keeping a card of a house's value."""
    words = text.split()
    verb = words[0].casefold() if words else ""
    if verb not in ("capture", "build", "add", "break") or len(words) < 2:
        return None
    if observation.phase == seep_pb2.SEEP_PHASE_BID:
        return "you must bid first: name a house value from 9 to 13 that you hold a card of"
    card = card_in(words[1])
    hand = codes(observation.hand)
    if card is None or card not in hand:
        return None
    valued = verb != "capture"
    if valued and (len(words) < 3 or not words[2].isdigit()):
        return f"a {verb} names its house value after the card: {verb} {card} <value> <loose cards>"
    typed = [card_in(w) for w in words[3 if valued else 2 :]]
    if any(c is None for c in typed):
        return None
    taken = [c for c in typed if c is not None]
    loose = codes(observation.loose)
    if any(c not in loose for c in taken) or len(set(taken)) < len(taken):
        return f"you may only take or move loose cards, each once; loose: {shown(loose) or 'none'}"
    value = _seep_value(card)
    houses = {house.value: house for house in observation.houses}
    seat = observation.seat
    opening = not observation.plays and observation.HasField("bid")
    rest = [c for c in loose if c not in taken]
    if verb == "capture":
        if opening and value != observation.bid:
            bid = observation.bid
            return f"the opening play must use your bid of {bid}: capture only with a {bid}"
        if not taken and value not in houses:
            return f"a capture must take something: no house of {value}, so name loose cards"
        if not _packs([_seep_value(c) for c in taken], value):
            return (
                f"the cards captured must make groups that each add up to {value}, the value "
                f"of {show(card)}"
            )
        left = _sums_to(rest, value)
        if left is not None:
            return (
                f"a capture must be maximal: {shown(left)} also add up to {value} and must go too"
            )
        return _seep_ordered(verb, words, taken, legal)
    number = int(words[2])
    if verb == "break":
        house = houses.get(number)
        if house is None:
            return f"you may only break a house on the floor, and there is no house of {number}"
        if house.cemented:
            return f"the house of {number} is cemented: it may not be broken"
        if seat in house.owners:
            return f"you own the house of {number}: you may not break your own house"
        target = number + value
        if target > 13:
            return f"a house may not go above 13: {number} + {value} is {target}"
        group: list[Card] = []
    else:
        target = number
        if not 9 <= target <= 13:
            return "a house must have a value from 9 to 13"
        if verb == "build" and target in houses:
            return f"a house of {target} is on the floor already: you may only add to it"
        if verb == "add" and target not in houses:
            return f"you may only add to a house on the floor, and there is no house of {target}"
        if verb == "build" and not taken:
            return "a build must use loose cards with your card"
        group = [card]
    if opening and target != observation.bid:
        bid = observation.bid
        return f"the opening play must use your bid of {bid}: a house of {bid} only"
    if not _packs([_seep_value(c) for c in [*group, *taken]], target):
        with_card = f"{show(card)} and the loose cards" if group else "the loose cards"
        return f"{with_card} must make groups that each add up to {target}"
    same = [c for c in rest if _seep_value(c) == target]
    if same:
        return f"loose cards of value {target} must join the house: {shown(same)}"
    keeps = [c for c in hand if c != card and _seep_value(c) == target]
    house = houses.get(target)
    partner = (seat + 2) % 4
    helped = house is not None and (seat in house.owners or partner in house.owners)
    if not keeps and not (verb == "add" and helped):
        return (
            f"you may make a house of {target} only if you keep a card of value {target} "
            f"in hand to capture it"
        )
    for owned_value, owned in houses.items():
        others = [c for c in hand if c != card and _seep_value(c) == owned_value]
        if seat in owned.owners and value == owned_value and not others:
            return (
                f"you own the house of {owned_value}: you must keep a card of that value "
                f"until the house is taken or broken"
            )
    return _seep_ordered(verb, words, taken, legal)


def _seep_ordered(
    verb: str, words: Sequence[str], taken: Sequence[Card], legal: Sequence[str]
) -> str | None:
    head = words[: len(words) - len(taken)]
    ordered = " ".join([*head, *sorted(taken, key=SEEP_ORDER.__getitem__)])
    if ordered.casefold() in (t.casefold() for t in legal):
        return f"the cards must be listed in order: {ordered}"
    return None


# --- Persian Rummy --------------------------------------------------------------------

RUMMY_RANKS = "23456789TJQKA"
RUMMY_ORDER = {
    card: i
    for i, card in enumerate(
        [*(r + s for r in RUMMY_RANKS for s in "CDHS"), "X1", "X2", "X3", "X4"]
    )
}
"""Persian Rummy's canonical card order (rank-major, jokers last): how actions list cards."""
USE_CHOSEN = persian_rummy_pb2.PERSIAN_RUMMY_PHASE_USE_CHOSEN


def _rummy_cards(words: Sequence[str]) -> list[Card] | None:
    found = [card_in(word) for word in words]
    return None if any(c is None for c in found) else [c for c in found if c is not None]


def _is_joker(card: Card) -> bool:
    return card.startswith("X")


def _rummy_rank(card: Card) -> int:
    return RUMMY_RANKS.index(card[0])


def _rummy_meld_fault(cards: Sequence[Card]) -> str | None:
    """Why these cards are no set or run; None when they are one."""
    if len(cards) < 3:
        return "a meld must have at least three cards"
    jokers = [c for c in cards if _is_joker(c)]
    if jokers:
        if len(jokers) == len(cards):
            return None
        return "jokers are not wild: they may only meld with other jokers, as a set"
    if len({c[0] for c in cards}) == 1:
        return None
    if len({c[1] for c in cards}) == 1:
        ranks = sorted(_rummy_rank(c) for c in cards)
        if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
            return None
        return (
            "a run must be consecutive ranks of one suit, aces high only "
            "(Q-K-A is a run, A-2-3 is not)"
        )
    return (
        "a meld must be a set (three or four cards of one rank) or a run (three or more "
        "consecutive ranks of one suit)"
    )


def _rummy_layoff_fault(table_meld: Any, cards: Sequence[Card]) -> str | None:
    """Why these cards may not be laid off on this table meld; None when they may."""
    on_table = [str(p.card.code) for p in table_meld.cards]
    number = table_meld.id
    if table_meld.kind == persian_rummy_pb2.PERSIAN_RUMMY_MELD_KIND_SET:
        if len(on_table) >= 4:
            return f"meld {number} is a full set of four: you may not lay off anything on it"
        kind = "joker" if _is_joker(on_table[0]) else on_table[0][0]
        same = all(_is_joker(c) if kind == "joker" else c[0] == kind for c in cards)
        if len(cards) != 1 or not same:
            return f"only the fourth {kind} may be laid off on the set meld {number}"
        return None
    suit = on_table[0][1]
    if any(_is_joker(c) or c[1] != suit for c in cards):
        return f"only {SUIT_WORDS[suit]} may be laid off on the run meld {number}"
    ranks = sorted(_rummy_rank(c) for c in [*on_table, *cards])
    if ranks != list(range(ranks[0], ranks[0] + len(ranks))):
        low = min(on_table, key=_rummy_rank)
        high = max(on_table, key=_rummy_rank)
        return (
            f"a lay-off on the run meld {number} must extend it without a gap, below "
            f"{show(low)} or above {show(high)} (aces high only)"
        )
    return None


def _not_held(observation: Observation, cards: Sequence[Card]) -> str | None:
    hand = codes(observation.hand)
    missing = [c for c in cards if c not in hand]
    return f"you do not hold {shown(missing)}; your hand: {shown(hand)}" if missing else None


def persian_rummy(observation: Observation, text: str, legal: Sequence[str]) -> str | None:
    """The turn's order (one draw or take, then melds and lay-offs, then one discard),
    the taken card that must be used at once, and what makes a meld or a lay-off."""
    words = text.split()
    if not words:
        return None
    verb = words[0].casefold()
    phase = observation.phase
    stock = observation.stock_size
    pile = [str(d.card.code) for d in observation.discard_pile]
    chosen = str(observation.chosen_card.code) if observation.HasField("chosen_card") else ""
    drawing = verb in ("draw", "take", "pass")
    if phase == persian_rummy_pb2.PERSIAN_RUMMY_PHASE_DRAW:
        if not drawing and verb in ("meld", "layoff", "discard"):
            return (
                "you must draw first: "
                + ("draw from the stock or take" if stock else "take")
                + " from the discard pile"
                + ("" if stock else ", or pass")
            )
        if verb == "draw" and len(words) == 1 and not stock:
            return (
                "the stock is empty and the pile never becomes a new stock: "
                "you may only take from the pile or pass"
            )
        if verb == "pass" and len(words) == 1 and stock:
            return f"you may pass only when the stock is empty ({stock} left): draw or take"
        if verb == "take" and len(words) == 2 and words[1].isdigit():
            index = int(words[1])
            if index >= len(pile):
                return (
                    f"the discard pile has {len(pile)} cards: you may only take 0..{len(pile) - 1}"
                )
            above = pile[index + 1 :]
            with_above = f" and {shown(above)}, taken with it" if above else ""
            return (
                f"you may take {show(pile[index])} only to meld it or lay it off at once, "
                f"and your hand{with_above} could not"
            )
        return None
    if drawing:
        if phase in (USE_CHOSEN, persian_rummy_pb2.PERSIAN_RUMMY_PHASE_MELD):
            done = "not pass after drawing" if verb == "pass" else "draw only once a turn"
            return f"you may {done}: now meld, lay off or discard"
        return None
    if phase == USE_CHOSEN and verb == "discard":
        return (
            f"you took {show(chosen)} from the pile: you must meld it or lay it off before "
            f"anything else"
        )
    if verb == "meld":
        cards = _rummy_cards(words[1:])
        if cards is None:
            return None
        if held := _not_held(observation, cards):
            return held
        fault = _rummy_meld_fault(cards)
    elif verb == "layoff":
        if len(words) < 3 or not words[1].isdigit():
            return None
        cards = _rummy_cards(words[2:])
        if cards is None:
            return None
        if held := _not_held(observation, cards):
            return held
        table = {m.id: m for m in observation.melds}
        if int(words[1]) not in table:
            ids = ", ".join(str(i) for i in sorted(table)) or "none yet"
            return f"you may lay off only on a meld on the table (melds: {ids})"
        fault = _rummy_layoff_fault(table[int(words[1])], cards)
    else:
        return None
    if fault is not None:
        return fault
    if phase == USE_CHOSEN and chosen not in cards:
        return f"the card you took, {show(chosen)}, must be in your next meld or lay-off"
    ordered = sorted(cards, key=RUMMY_ORDER.__getitem__)
    typed = " ".join([verb, *words[1 : len(words) - len(cards)], *ordered])
    if typed.casefold() in (t.casefold() for t in legal):
        return f"the cards must be listed in order: {typed}"
    return None


# --- calls ----------------------------------------------------------------------------

BID_EUCHRE_CALLS = {
    "pass": bid_euchre_pb2.BID_EUCHRE_CALL_PASS,
    "3": bid_euchre_pb2.BID_EUCHRE_CALL_THREE,
    "three": bid_euchre_pb2.BID_EUCHRE_CALL_THREE,
    "4": bid_euchre_pb2.BID_EUCHRE_CALL_FOUR,
    "four": bid_euchre_pb2.BID_EUCHRE_CALL_FOUR,
    "5": bid_euchre_pb2.BID_EUCHRE_CALL_FIVE,
    "five": bid_euchre_pb2.BID_EUCHRE_CALL_FIVE,
    "ask": bid_euchre_pb2.BID_EUCHRE_CALL_ASK,
    "moon": bid_euchre_pb2.BID_EUCHRE_CALL_MOON,
}
"""A typed call (``call 4``, ``four``, ``pass``) to the proto's call; the enum runs from
the weakest call to the strongest."""


def bid_euchre_call(observation: Observation, text: str) -> str | None:
    """A call must beat the highest so far; the dealer stuck after three passes must call."""
    if observation.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING:
        return None
    words = text.casefold().split()
    if words[:1] == ["call"]:
        words = words[1:]
    call = BID_EUCHRE_CALLS.get(words[0]) if len(words) == 1 else None
    if call is None:
        return None
    made = [c for c in observation.calls if c.call != bid_euchre_pb2.BID_EUCHRE_CALL_PASS]
    if call == bid_euchre_pb2.BID_EUCHRE_CALL_PASS:
        if not made and observation.seat == observation.dealer:
            return "the dealer may not pass after three passes (stick the dealer): you must call"
        return None
    highest = max(made, key=lambda c: c.call, default=None)
    if highest is not None and call <= highest.call:
        name = enum_text(bid_euchre_pb2.BidEuchreCall.DESCRIPTOR, highest.call)
        return f"a call must be higher than the highest so far: seat {highest.seat} called {name}"
    return None


BALOOT_BIDS = ("pass", "hokum", "sun", "ashkal")
BALOOT_DOUBLINGS = ("decline", "double", "triple", "four", "gahwa")
BALOOT_BIDDING_PHASES = (
    baloot_pb2.BALOOT_PHASE_BIDDING,
    baloot_pb2.BALOOT_PHASE_CLAIM_WINDOW,
    baloot_pb2.BALOOT_PHASE_SECOND_TURN,
)
BALOOT_DOUBLER = {
    "double": "a defender (the first to act after the buyer, or the other if that one declines)",
    "triple": "the buyer, after a double",
    "four": "the doubler, after a triple",
    "gahwa": "the buyer, after a four",
}


def _baloot_bid_name(bid: int) -> str:
    return enum_text(baloot_pb2.BalootBid.DESCRIPTOR, bid)


def _baloot_phase_rule(observation: Observation) -> str:
    """What the seat must do in this phase, for a call that belongs to another phase."""
    phase = observation.phase
    if phase in BALOOT_BIDDING_PHASES:
        return "the bidding is on: you may only pass or make a bid now"
    if phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
        return (
            "the bidding is over and you called hokum: you must choose now "
            "(choose sun, or choose hokum with its trump)"
        )
    if phase == baloot_pb2.BALOOT_PHASE_DOUBLING:
        return "the bidding is over: you may only decline or take the next doubling step"
    if phase == baloot_pb2.BALOOT_PHASE_DECLARING:
        return "bidding and doubling are over: you must declare your projects (or none) now"
    return "bidding and doubling are over: you must play a card now"


def baloot_call(observation: Observation, text: str) -> str | None:
    """Baloot's bidding, the Hokum caller's choice and the doubling chain: who may make
    which call, in which round, and in what order."""
    words = text.casefold().split()
    if not words:
        return None
    phase = observation.phase
    seat = observation.seat
    up_suit = str(observation.up_card.code)[1:] if observation.HasField("up_card") else ""
    if words[0] == "choose":
        if phase in BALOOT_BIDDING_PHASES:
            return (
                "only the hokum caller may choose, once the others have passed: "
                + _baloot_phase_rule(observation)
            )
        if phase != baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
            return "the contract is settled: " + _baloot_phase_rule(observation)
        if words[1:2] != ["hokum"] or len(words) != 3:
            return None
        suit = words[2].upper()
        if suit not in SUIT_WORDS or not up_suit:
            return None
        if observation.bidding_round == 1:
            return (
                f"a first-round hokum's trump must be the up-card's suit, "
                f"{SUIT_WORDS[up_suit]}: choose hokum {up_suit} or choose sun"
            )
        return (
            f"in the second round the trump may not be the up-card's suit "
            f"({SUIT_WORDS[up_suit]}): name another suit, or choose sun"
        )
    if len(words) != 1:
        return None
    word = words[0]
    if word in BALOOT_BIDS:
        if phase not in BALOOT_BIDDING_PHASES:
            return "you may not bid now: " + _baloot_phase_rule(observation)
        this_round = [b for b in observation.bids if b.bidding_round == observation.bidding_round]
        if phase == baloot_pb2.BALOOT_PHASE_CLAIM_WINDOW:
            claim = next(
                b
                for b in reversed(this_round)
                if b.bid in (baloot_pb2.BALOOT_BID_SUN, baloot_pb2.BALOOT_BID_ASHKAL)
            )
            return (
                f"seat {claim.seat} called {_baloot_bid_name(claim.bid)}: an earlier bidder "
                f"may only pass or take the contract as sun"
            )
        if word == "ashkal":
            if observation.bidding_round != 1:
                return "ashkal is a first-round call only: in the second round you may not call it"
            b3, b4 = (observation.dealer + 3) % 4, observation.dealer
            return (
                f"only the third and fourth bidders (seats {b3} and {b4}, the dealer) may call "
                f"ashkal; you are seat {seat}"
            )
        if word == "hokum":
            caller = next((b for b in this_round if b.bid == baloot_pb2.BALOOT_BID_HOKUM), None)
            if caller is not None:
                return (
                    f"seat {caller.seat} has called hokum: you may only pass or call sun "
                    f"over it" + (" (or ashkal)" if observation.bidding_round == 1 else "")
                )
        return None
    if word in BALOOT_DOUBLINGS:
        if phase != baloot_pb2.BALOOT_PHASE_DOUBLING:
            if phase in BALOOT_BIDDING_PHASES or phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
                return "doubling comes only after the bidding: " + _baloot_phase_rule(observation)
            if not observation.doubling_allowed:
                return (
                    "this round may not be doubled: only a hokum, or a sun bought by a team "
                    "over 100 against a team under 100, may be doubled"
                )
            return "doubling is only allowed before the first lead: " + _baloot_phase_rule(
                observation
            )
        made = [d.doubling for d in observation.doublings]
        steps = [d for d in made if d != baloot_pb2.BALOOT_DOUBLING_DECLINE]
        next_step = BALOOT_DOUBLINGS[1 + len(steps)]
        if word == "decline":
            return None
        if BALOOT_DOUBLINGS.index(word) > BALOOT_DOUBLINGS.index(next_step):
            return (
                f"the doubling goes one step at a time (double, triple, four, gahwa): "
                f"you may only call {next_step} or decline"
            )
        return (
            f"{word} has been called already, and only {BALOOT_DOUBLER[next_step]} may "
            f"call {next_step}: you may only call {next_step} or decline"
        )
    return None


CALL_EXPLAINERS: dict[str, Callable[[Observation, str], str | None]] = {
    "bid-euchre": bid_euchre_call,
    "baloot": baloot_call,
}

ACTION_EXPLAINERS: dict[str, Callable[[Observation, str, Sequence[str]], str | None]] = {
    "persian-rummy": persian_rummy,
    "seep": seep_play,
}
"""Games whose whole typed action matters (several cards, a pile index): asked first,
with the text and the legal actions' texts."""

EXPLAINERS: dict[str, Explainer] = {
    "bid-euchre": bid_euchre,
    "baloot": baloot,
    "bridgette": bridgette,
    "seep": seep,
}
