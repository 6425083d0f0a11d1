'use strict';
// Bid Euchre: count trumps and bowers to bid, name the suit that counts best, and in
// play take a trick as cheaply as possible, else follow with the lowest card.
//
// Option joker (observation `joker`): one more card, X1, the highest trump whatever the
// suit (above the right bower) and a card of the trump suit, so it follows a trump lead
// and never a plain one. The dealer holds 7 cards and answers the DISCARD phase first:
// it lays down the card that least helps the suit its hand would name trump.

const { SUITS, suitLetter, minBy, maxBy, byKind, codes } = require('../util');

const PLAIN = '9TJQKA'; // low to high in a plain suit
const TRUMP = '9TQKA'; // low to high in trump, below the two bowers
const SAME_COLOUR = { C: 'S', S: 'C', D: 'H', H: 'D' };
const JOKER = 'X1';
const JOKER_POWER = 210; // above the right bower (200) and the left (190)
const CALL_TRICKS = {
  BID_EUCHRE_CALL_THREE: 3,
  BID_EUCHRE_CALL_FOUR: 4,
  BID_EUCHRE_CALL_FIVE: 5,
};
const CALL_ORDER = [
  'BID_EUCHRE_CALL_PASS',
  'BID_EUCHRE_CALL_THREE',
  'BID_EUCHRE_CALL_FOUR',
  'BID_EUCHRE_CALL_FIVE',
  'BID_EUCHRE_CALL_ASK',
  'BID_EUCHRE_CALL_MOON',
];
const PARTNER_HELP = 1; // a trick expected from partner
const ASK_AT = 4.7; // tricks the hand should take alone
const MOON_AT = 5.6;

/** The suit a card follows: the left bower (jack of trump's colour) and the joker are
 * trumps. Before trump is named the joker has no suit of its own (''). */
function suitOf(card, trump) {
  if (card === JOKER) return trump || '';
  if (trump && card[0] === 'J' && card[1] === SAME_COLOUR[trump]) return trump;
  return card[1];
}

/** Printed rank, 9 lowest; the joker above the ace. */
function rank(card) {
  return card === JOKER ? PLAIN.length : PLAIN.indexOf(card[0]);
}

/** How strongly a card plays in a trick led in `led`; 0 when it cannot win. */
function power(card, trump, led) {
  const suit = suitOf(card, trump);
  if (suit === trump) {
    if (card === JOKER) return JOKER_POWER;
    if (card[0] === 'J') return card[1] === trump ? 200 : 190;
    return 100 + TRUMP.indexOf(card[0]);
  }
  return suit === led ? 1 + PLAIN.indexOf(card[0]) : 0;
}

/** Tricks the hand should take with `trump`: bowers, high trumps, other trumps, side aces. */
function handTricks(hand, trump) {
  let tricks = 0;
  for (const card of hand) {
    const p = power(card, trump, trump);
    if (p >= 200) tricks += 1; // the joker or the right bower
    else if (p === 190) tricks += 0.9;
    else if (p === 100 + TRUMP.indexOf('A')) tricks += 0.8;
    else if (p === 100 + TRUMP.indexOf('K')) tricks += 0.6;
    else if (p >= 100) tricks += 0.4;
    else if (card[0] === 'A') tricks += 0.7;
  }
  return tricks;
}

function bestSuit(hand) {
  return maxBy([...SUITS], (s) => handTricks(hand, s));
}

function call(hand, actions) {
  const alone = handTricks(hand, bestSuit(hand));
  const options = new Map(actions.map((a) => [a.bid_euchre.call, a]));
  if (alone >= MOON_AT && options.has('BID_EUCHRE_CALL_MOON')) {
    return options.get('BID_EUCHRE_CALL_MOON');
  }
  if (alone >= ASK_AT && options.has('BID_EUCHRE_CALL_ASK')) {
    return options.get('BID_EUCHRE_CALL_ASK');
  }
  const makeable = Object.keys(CALL_TRICKS).filter(
    (c) => options.has(c) && CALL_TRICKS[c] <= alone + PARTNER_HELP,
  );
  if (makeable.length) return options.get(maxBy(makeable, (c) => CALL_TRICKS[c]));
  if (options.has('BID_EUCHRE_CALL_PASS')) return options.get('BID_EUCHRE_CALL_PASS');
  // The dealer may be stuck: the cheapest call there is.
  return minBy(actions, (a) => CALL_ORDER.indexOf(a.bid_euchre.call));
}

/** DISCARD (option joker, dealer only): keep the suit that would make the best trump,
 * and lay down the weakest card for it; never the joker while another card will do. */
function discard(hand, actions) {
  const trump = bestSuit(hand);
  const card = (a) => a.bid_euchre.discard.code;
  return minBy(actions, (a) => [power(card(a), trump, trump), rank(card(a))]);
}

function play(obs, trump, actions) {
  const card = (a) => a.bid_euchre.play.code;
  if (!obs.trick.length) {
    const trumps = actions.filter((a) => suitOf(card(a), trump) === trump);
    const top = maxBy(trumps, (a) => power(card(a), trump, trump));
    // Lead the top trump with three of them, or when no card left can beat it: the
    // joker, or the right bower once the joker is played (or this dealer laid it down).
    const topPower = top ? power(card(top), trump, trump) : 0;
    const laidDown = obs.discarded && obs.discarded.code === JOKER;
    const jokerGone = !obs.joker || laidDown || seen(obs).has(JOKER);
    const master = topPower === JOKER_POWER || (topPower === 200 && jokerGone);
    if (top && (trumps.length >= 3 || master)) return top;
    const ace = actions.find((a) => card(a)[0] === 'A' && suitOf(card(a), trump) !== trump);
    if (ace) return ace;
    return minBy(actions, (a) => [power(card(a), trump, card(a)[1]), card(a)]);
  }
  const led = suitOf(obs.trick[0].card.code, trump);
  const winning = maxBy(obs.trick, (p) => power(p.card.code, trump, led));
  const best = power(winning.card.code, trump, led);
  const cheapest = minBy(actions, (a) => [power(card(a), trump, led), rank(card(a))]);
  if (winning.seat % 2 === obs.seat % 2) return cheapest; // partner has it
  const beaters = actions.filter((a) => power(card(a), trump, led) > best);
  if (beaters.length) return minBy(beaters, (a) => power(card(a), trump, led));
  return cheapest;
}

function choose(request) {
  const obs = request.bid_euchre;
  const hand = codes(obs.hand);
  const kinds = byKind(request, 'bid_euchre');
  if (kinds.ace_no_face) {
    return kinds.ace_no_face.find((a) => !a.bid_euchre.ace_no_face) || kinds.ace_no_face[0];
  }
  if (kinds.discard) return discard(hand, kinds.discard);
  if (kinds.call) return call(hand, kinds.call);
  if (kinds.trump) {
    return maxBy(kinds.trump, (a) => handTricks(hand, suitLetter(a.bid_euchre.trump)));
  }
  const trump = suitLetter(obs.trump);
  if (kinds.give) {
    // Keep trumps and high cards: hand partner the weakest.
    return minBy(kinds.give, (a) => {
      const c = a.bid_euchre.give.code;
      return [suitOf(c, trump) === trump, power(c, trump, trump), rank(c)];
    });
  }
  if (kinds.return_card) {
    return maxBy(kinds.return_card, (a) => power(a.bid_euchre.return_card.code, trump, trump));
  }
  if (kinds.play) return play(obs, trump, kinds.play);
  return request.legal_actions[0];
}

/** Cards played in this hand so far: finished tricks and the trick in progress. */
function seen(obs) {
  const cards = new Set();
  for (const trick of obs.tricks || []) {
    for (const p of trick.cards || []) cards.add(p.card.code);
  }
  for (const p of obs.trick || []) cards.add(p.card.code);
  return cards;
}

module.exports = { choose };
