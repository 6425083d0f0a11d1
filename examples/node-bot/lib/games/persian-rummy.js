'use strict';
// Persian Rummy: take from the discard pile when what the take lets the hand lay down
// outweighs the cards it brings; meld or lay off the most valuable cards whenever
// possible; discard the highest card that belongs to no pair or sequence and that no
// table meld would take.

const { maxBy, minBy, byKind, codes } = require('../util');

const RANKS = '23456789TJQKA';
const TAKE_AT = 8; // least net points that make a take beat a draw from the stock
const BURDEN = 0.6; // how much a taken card that melds nothing is feared to cost

const isJoker = (c) => c[0] === 'X';
const rankOf = (c) => (isJoker(c) ? 13 : RANKS.indexOf(c[0]));
/** Points on the table (and against, left in hand): joker 20, ace 15, T-K 10, pips. */
const valueOf = (c) => (isJoker(c) ? 20 : c[0] === 'A' ? 15 : Math.min(10, rankOf(c) + 2));

function meldPoints(cards) {
  const points = cards.reduce((s, c) => s + valueOf(c), 0);
  const fourOfAKind = cards.length === 4 && new Set(cards.map(rankOf)).size === 1;
  return fourOfAKind ? 2 * points : points;
}

/** Cards that one lay-off could add to a table meld (given as card codes). */
function meldEnds(meld) {
  if (!meld.length) return new Set();
  if (isJoker(meld[0])) {
    if (meld.length !== 3) return new Set();
    return new Set(['X1', 'X2', 'X3', 'X4'].filter((x) => !meld.includes(x)));
  }
  const ranks = meld.map(rankOf);
  if (new Set(ranks).size === 1) {
    if (meld.length !== 3) return new Set();
    const suits = ['C', 'D', 'H', 'S'];
    return new Set(suits.map((s) => meld[0][0] + s).filter((c) => !meld.includes(c)));
  }
  const suit = meld[0][1];
  const low = Math.min(...ranks);
  const high = Math.max(...ranks);
  const ends = new Set();
  if (low > 0) ends.add(RANKS[low - 1] + suit);
  if (high < RANKS.length - 1) ends.add(RANKS[high + 1] + suit);
  return ends;
}

/** A greedy estimate of what `hand` can lay down now: sets, then runs, then lay-offs. */
function layable(hand, melds) {
  const used = new Set();
  let points = 0;
  const byRank = new Map();
  for (const c of hand) byRank.set(rankOf(c), [...(byRank.get(rankOf(c)) || []), c]);
  for (const cards of byRank.values()) {
    if (cards.length >= 3) {
      points += meldPoints(cards.slice(0, 4));
      cards.slice(0, 4).forEach((c) => used.add(c));
    }
  }
  for (const suit of 'CDHS') {
    const ranks = hand
      .filter((c) => !used.has(c) && !isJoker(c) && c[1] === suit)
      .map(rankOf)
      .sort((a, b) => a - b);
    let run = [];
    for (const r of [...ranks, 99]) {
      if (run.length && r === run[run.length - 1] + 1) {
        run.push(r);
        continue;
      }
      if (run.length >= 3) {
        const cards = run.map((x) => RANKS[x] + suit);
        points += meldPoints(cards);
        cards.forEach((c) => used.add(c));
      }
      run = [r];
    }
  }
  const table = melds.map((m) => [...m]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of hand) {
      if (used.has(c)) continue;
      const meld = table.find((m) => meldEnds(m).has(c));
      if (meld) {
        meld.push(c);
        used.add(c);
        points += valueOf(c);
        grew = true;
      }
    }
  }
  return { points, used };
}

function draw(obs, hand, melds, kinds) {
  const pile = obs.discard_pile.map((d) => d.card.code);
  const now = layable(hand, melds).points;
  let best;
  let bestGain = obs.stock_size > 0 ? TAKE_AT : 0;
  for (const action of kinds.take || []) {
    const taken = pile.slice(action.persian_rummy.take);
    const after = layable([...hand, ...taken], melds);
    const burden = taken.filter((c) => !after.used.has(c)).reduce((s, c) => s + valueOf(c), 0);
    const gain = after.points - now - BURDEN * burden;
    if (gain > bestGain) {
      best = action;
      bestGain = gain;
    }
  }
  if (best) return best;
  return (kinds.draw_stock || kinds.pass_turn || kinds.take)[0];
}

function discard(hand, melds, actions) {
  const givesAway = new Set();
  for (const m of melds) for (const c of meldEnds(m)) givesAway.add(c);
  const keep = (c) => {
    let score = 0;
    const sameRank = hand.filter((h) => rankOf(h) === rankOf(c)).length - 1;
    score += 12 * sameRank;
    if (!isJoker(c)) {
      for (const [d, weight] of [[1, 8], [2, 4]]) {
        for (const r of [rankOf(c) - d, rankOf(c) + d]) {
          if (r >= 0 && r < RANKS.length && hand.includes(RANKS[r] + c[1])) score += weight;
        }
      }
    }
    if (givesAway.has(c)) score += 30; // the next seat would lay it off
    return score - valueOf(c) / 2; // of the unmatched cards, drop the highest
  };
  return minBy(actions, (a) => keep(a.persian_rummy.discard.code));
}

function choose(request) {
  const obs = request.persian_rummy;
  const hand = codes(obs.hand);
  const melds = obs.melds.map((m) => m.cards.map((p) => p.card.code));
  const kinds = byKind(request, 'persian_rummy');
  if (obs.phase === 'PERSIAN_RUMMY_PHASE_DRAW') return draw(obs, hand, melds, kinds);
  const laydowns = [...(kinds.meld || []), ...(kinds.layoff || [])];
  if (laydowns.length) {
    return maxBy(laydowns, (a) => {
      const p = a.persian_rummy;
      if (p.kind === 'meld') return meldPoints(codes(p.meld.cards));
      return codes(p.layoff.cards).reduce((s, c) => s + valueOf(c), 0);
    });
  }
  if (kinds.discard) return discard(hand, melds, kinds.discard);
  return request.legal_actions[0];
}

module.exports = { choose };
