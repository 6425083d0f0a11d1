'use strict';
// Bridgette: discard the weakest cards, bid the highest contract the hand should make
// (honours plus trump length), double a bid it expects to beat; in play win with the
// lowest card that takes the trick, else duck with the matching colon, else the lowest.

const { SUITS, suitLetter, minBy, maxBy, byKind, codes } = require('../util');

const RANKS = '23456789TJQKA';
const COLONS = ['LC', 'RC', 'GC'];
const STRAINS = {
  BRIDGETTE_STRAIN_CLUBS: 'C',
  BRIDGETTE_STRAIN_DIAMONDS: 'D',
  BRIDGETTE_STRAIN_HEARTS: 'H',
  BRIDGETTE_STRAIN_SPADES: 'S',
  BRIDGETTE_STRAIN_NO_TRUMP: 'NT',
};
const HONOURS = { A: 1, K: 0.7, Q: 0.35, J: 0.15 };
const COLON_TRICKS = { GC: 0.6, RC: 0.3, LC: 0.1 };
const COLON_KEEP = { GC: 9, RC: 4, LC: 1 };
const MARGIN = 0.5; // tricks to spare before bidding a contract

const isColon = (c) => COLONS.includes(c);
const suitOf = (c) => (isColon(c) ? '' : c[1]);
const rankOf = (c) => (isColon(c) ? -1 : RANKS.indexOf(c[0]));
const colonFor = (c) => (c[0] === 'A' ? 'GC' : 'KQJ'.includes(c[0]) ? 'RC' : 'LC');

/** Tricks the hand should take with `strain` trump ('NT': none). */
function handTricks(hand, strain) {
  let tricks = 0;
  for (const suit of SUITS) {
    const ranks = hand.filter((c) => suitOf(c) === suit).map(rankOf).sort((a, b) => b - a);
    ranks.slice(0, 3).forEach((r, i) => {
      let value = HONOURS[RANKS[r]] || 0;
      if (ranks.length < 3 && i === ranks.length - 1 && RANKS[r] !== 'A') value /= 2; // unguarded
      tricks += value;
    });
    if (suit === strain) tricks += Math.max(0, ranks.length - 2) * 0.8;
    else if (strain === 'NT') tricks += Math.max(0, ranks.length - 4) * 0.5;
  }
  for (const colon of COLONS) if (hand.includes(colon)) tricks += COLON_TRICKS[colon];
  return tricks;
}

/** Tricks the hand should take defending against `trump` (a suit letter). */
function defenceTricks(hand, trump) {
  let tricks = 0;
  for (const c of hand) {
    if (isColon(c)) continue;
    if (suitOf(c) === trump) tricks += { A: 1, K: 0.8, Q: 0.5 }[c[0]] || 0.2;
    else tricks += { A: 0.9, K: 0.5 }[c[0]] || 0;
  }
  return tricks;
}

function keepValue(card, hand) {
  if (isColon(card)) return COLON_KEEP[card];
  const length = hand.filter((c) => suitOf(c) === suitOf(card)).length;
  return rankOf(card) + 1.5 * length;
}

function call(obs, hand, actions) {
  const other = {};
  const bids = [];
  for (const a of actions) {
    const c = a.bridgette.call;
    if (c.kind === 'BRIDGETTE_CALL_KIND_BID') {
      bids.push({ action: a, level: c.level || 0, strain: STRAINS[c.strain] });
    } else {
      other[c.kind] = a;
    }
  }
  const estimate = {};
  for (const s of [...SUITS, 'NT']) estimate[s] = handTricks(hand, s);
  const pass = other.BRIDGETTE_CALL_KIND_PASS;
  const high = obs.high_bid;
  if (high && high.declarer !== obs.seat) {
    const strain = STRAINS[high.strain];
    const ours = strain === 'NT' ? estimate.NT : defenceTricks(hand, strain);
    if (ours >= 14 - high.tricks_needed) {
      if (other.BRIDGETTE_CALL_KIND_DOUBLE) return other.BRIDGETTE_CALL_KIND_DOUBLE;
      if (pass) return pass; // it should go down: let it stand
    }
  }
  const makeable = bids.filter((b) => estimate[b.strain] >= 6 + b.level + MARGIN);
  if (makeable.length) {
    return maxBy(makeable, (b) => [b.level, b.strain === 'NT', estimate[b.strain]]).action;
  }
  if (pass) return pass;
  // Forced to bid: the bid that falls least short.
  return minBy(bids, (b) => 6 + b.level - estimate[b.strain]).action;
}

function follow(led, trump, actions) {
  const card = (a) => a.bridgette.play.code;
  const cheapest = (list) => minBy(list, (a) => [suitOf(card(a)) === trump, rankOf(card(a))]);
  let winners;
  if (isColon(led)) {
    winners = actions.filter((a) => {
      const c = card(a);
      return !isColon(c) && ((trump && suitOf(c) === trump) || colonFor(c) === led);
    });
  } else {
    const suit = suitOf(led);
    winners = actions.filter((a) => suitOf(card(a)) === suit && rankOf(card(a)) > rankOf(led));
    if (trump && suit !== trump) winners.push(...actions.filter((a) => suitOf(card(a)) === trump));
  }
  if (winners.length) return cheapest(winners);
  if (!isColon(led)) {
    const colon = actions.find((a) => card(a) === colonFor(led));
    if (colon) return colon; // the trick is lost anyway: bar the leader's suit
  }
  const plain = actions.filter((a) => !isColon(card(a)));
  return cheapest(plain.length ? plain : actions);
}

function lead(obs, hand, trump, actions) {
  const card = (a) => a.bridgette.play.code;
  const gone = new Set(hand);
  for (const t of obs.tricks) for (const p of t.cards) gone.add(p.card.code);
  const isTop = (c) => [...RANKS.slice(rankOf(c) + 1)].every((r) => gone.has(r + suitOf(c)));
  const declarer = obs.contract && obs.contract.declarer === obs.seat;
  const trumps = actions.filter((a) => trump && suitOf(card(a)) === trump);
  if (declarer && trumps.length >= 3) return maxBy(trumps, (a) => rankOf(card(a)));
  const tops = actions.filter((a) => !isColon(card(a)) && isTop(card(a)));
  if (tops.length) return maxBy(tops, (a) => [suitOf(card(a)) !== trump, rankOf(card(a))]);
  const plain = actions.filter((a) => !isColon(card(a)) && suitOf(card(a)) !== trump);
  if (plain.length) {
    const longest = maxBy([...SUITS], (s) => plain.filter((a) => suitOf(card(a)) === s).length);
    return minBy(
      plain.filter((a) => suitOf(card(a)) === longest),
      (a) => rankOf(card(a)),
    );
  }
  return minBy(actions, (a) => [isColon(card(a)), rankOf(card(a))]);
}

function choose(request) {
  const obs = request.bridgette;
  const hand = codes(obs.hand);
  const kinds = byKind(request, 'bridgette');
  if (kinds.discard) return minBy(kinds.discard, (a) => keepValue(a.bridgette.discard.code, hand));
  if (kinds.call) return call(obs, hand, kinds.call);
  if (kinds.play) {
    const trump = suitLetter(obs.trump);
    if (obs.trick.length) return follow(obs.trick[0].card.code, trump, kinds.play);
    return lead(obs, hand, trump, kinds.play);
  }
  return request.legal_actions[0];
}

module.exports = { choose };
