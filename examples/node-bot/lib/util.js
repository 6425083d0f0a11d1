'use strict';
// Small helpers shared by the game strategies. Actions are the LegalAction objects of
// the request, kept whole: a strategy returns one of them and the server answers with
// its `id` string untouched.

const SUITS = 'CDHS';

/** 'SUIT_HEARTS' -> 'H'; '' for SUIT_UNSPECIFIED or a missing value. */
function suitLetter(suit) {
  switch (suit) {
    case 'SUIT_CLUBS':
      return 'C';
    case 'SUIT_DIAMONDS':
      return 'D';
    case 'SUIT_HEARTS':
      return 'H';
    case 'SUIT_SPADES':
      return 'S';
    default:
      return '';
  }
}

/** Compares two sort keys: numbers, booleans or strings, or arrays of them. */
function compareKeys(a, b) {
  if (Array.isArray(a)) {
    for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
      const c = compareKeys(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (typeof a === 'boolean') return Number(a) - Number(b);
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

/** The item with the smallest key; the first one on ties; undefined when empty. */
function minBy(items, key) {
  let best;
  let bestKey;
  for (const item of items) {
    const k = key(item);
    if (best === undefined || compareKeys(k, bestKey) < 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
}

/** The item with the largest key; the first one on ties; undefined when empty. */
function maxBy(items, key) {
  let best;
  let bestKey;
  for (const item of items) {
    const k = key(item);
    if (best === undefined || compareKeys(k, bestKey) > 0) {
      best = item;
      bestKey = k;
    }
  }
  return best;
}

/** Legal actions grouped by the kind of their payload: {play: [...], call: [...]}. */
function byKind(request, game) {
  const groups = {};
  for (const action of request.legal_actions) {
    const payload = action[game];
    const kind = (payload && payload.kind) || '';
    (groups[kind] = groups[kind] || []).push(action);
  }
  return groups;
}

function codes(cards) {
  return (cards || []).map((c) => c.code);
}

module.exports = { SUITS, suitLetter, compareKeys, minBy, maxBy, byKind, codes };
