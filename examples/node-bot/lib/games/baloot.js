'use strict';
// Baloot: Hokum on the jack or nine of trump with length, Sun on aces; never raise the
// doubling; declare the best projects; in play win with the cheapest card that takes
// the trick, hand points to a partner who has it, else throw the least valuable card.

const { SUITS, suitLetter, minBy, maxBy, byKind, codes } = require('../util');

const PLAIN = '789JQKTA'; // low to high: every suit in Sun, plain suits in Hokum
const TRUMP = '78QKTA9J'; // low to high: trump in Hokum
const PLAIN_POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 };
const TRUMP_POINTS = { J: 20, 9: 14, A: 11, T: 10, K: 4, Q: 3, 8: 0, 7: 0 };
const TRUMP_WORTH = { J: 2, 9: 1.6, A: 1.1, T: 0.9, K: 0.6, Q: 0.5, 8: 0.4, 7: 0.4 };
const PROJECT_POINTS = {
  // [Sun, Hokum]
  BALOOT_PROJECT_KIND_SIRA: [4, 2],
  BALOOT_PROJECT_KIND_FIFTY: [10, 5],
  BALOOT_PROJECT_KIND_HUNDRED: [20, 10],
  BALOOT_PROJECT_KIND_FOUR_ACES: [40, 10],
};
const HOKUM_AT = 4.0;
const SUN_AT = 3.2;

function hokumStrength(cards, trump) {
  const trumps = cards.filter((c) => c[1] === trump);
  if (!trumps.some((c) => c[0] === 'J' || c[0] === '9')) return 0;
  let worth = trumps.reduce((sum, c) => sum + TRUMP_WORTH[c[0]], 0);
  worth += 0.8 * cards.filter((c) => c[0] === 'A' && c[1] !== trump).length;
  return worth;
}

function sunStrength(cards) {
  let worth = 0;
  for (const c of cards) {
    const ace = cards.includes(`A${c[1]}`);
    if (c[0] === 'A') worth += 1;
    else if (c[0] === 'T' && ace) worth += 0.8;
    else if (c[0] === 'K' && ace) worth += 0.3;
  }
  return worth;
}

function bid(obs, hand, actions) {
  const options = new Map(actions.map((a) => [a.baloot.bid, a]));
  const up = obs.up_card ? obs.up_card.code : '';
  const cards = up ? [...hand, up] : hand;
  if (sunStrength(cards) >= SUN_AT && options.has('BALOOT_BID_SUN')) {
    return options.get('BALOOT_BID_SUN');
  }
  if (options.has('BALOOT_BID_HOKUM')) {
    const upSuit = up ? up[1] : '';
    const strength =
      obs.bidding_round === 1
        ? hokumStrength(cards, upSuit)
        : Math.max(...[...SUITS].filter((s) => s !== upSuit).map((s) => hokumStrength(hand, s)));
    if (strength >= HOKUM_AT) return options.get('BALOOT_BID_HOKUM');
  }
  return options.get('BALOOT_BID_PASS') || actions[0];
}

function chooseContract(obs, hand, actions) {
  const cards = obs.bidding_round === 2 || !obs.up_card ? hand : [...hand, obs.up_card.code];
  return maxBy(actions, (a) => {
    const choice = a.baloot.choose;
    if (choice.contract === 'BALOOT_CONTRACT_SUN') return sunStrength(cards) + 0.5;
    return hokumStrength(cards, suitLetter(choice.trump));
  });
}

function play(obs, hand, actions) {
  const trump = suitLetter(obs.trump);
  const card = (a) => a.baloot.play.code;
  const power = (c, led) => {
    if (trump && c[1] === trump) return 100 + TRUMP.indexOf(c[0]);
    return c[1] === led ? 1 + PLAIN.indexOf(c[0]) : 0;
  };
  const points = (c) => (c[1] === trump ? TRUMP_POINTS : PLAIN_POINTS)[c[0]];
  const seen = new Set(hand);
  for (const t of obs.tricks) for (const p of t.cards) seen.add(p.card.code);
  for (const p of obs.trick) seen.add(p.card.code);
  // No card of the suit still out beats it.
  const isMaster = (c) => {
    const order = c[1] === trump ? TRUMP : PLAIN;
    return [...order.slice(order.indexOf(c[0]) + 1)].every((r) => seen.has(r + c[1]));
  };

  if (!obs.trick.length) {
    const buyers = obs.buyer !== undefined && obs.buyer !== null && obs.buyer % 2 === obs.seat % 2;
    const trumps = actions.filter((a) => card(a)[1] === trump);
    const top = maxBy(trumps, (a) => TRUMP.indexOf(card(a)[0]));
    if (buyers && top && isMaster(card(top))) return top; // draw the defenders' trumps
    const masters = actions.filter((a) => card(a)[1] !== trump && isMaster(card(a)));
    if (masters.length) return maxBy(masters, (a) => points(card(a)));
    const plain = actions.filter((a) => card(a)[1] !== trump);
    return minBy(plain.length ? plain : actions, (a) => [points(card(a)), card(a)]);
  }
  const led = obs.trick[0].card.code[1];
  const winning = maxBy(obs.trick, (p) => power(p.card.code, led));
  const best = power(winning.card.code, led);
  const cheapest = minBy(actions, (a) => [points(card(a)), power(card(a), led)]);
  const last = obs.trick.length === 3;
  if (winning.seat % 2 === obs.seat % 2) {
    if (last || isMaster(winning.card.code)) {
      // Partner takes it: give it points, but keep trumps and master cards.
      const gifts = actions.filter((a) => card(a)[1] !== trump && !isMaster(card(a)));
      if (gifts.length) return maxBy(gifts, (a) => points(card(a)));
    }
    return cheapest;
  }
  const beaters = actions.filter((a) => power(card(a), led) > best);
  if (beaters.length) {
    if (last) return minBy(beaters, (a) => [power(card(a), led) >= 100, points(card(a))]);
    const masters = beaters.filter((a) => isMaster(card(a)));
    return minBy(masters.length ? masters : beaters, (a) => power(card(a), led));
  }
  return cheapest;
}

function choose(request) {
  const obs = request.baloot;
  const hand = codes(obs.hand);
  const kinds = byKind(request, 'baloot');
  if (kinds.bid) return bid(obs, hand, kinds.bid);
  if (kinds.choose) return chooseContract(obs, hand, kinds.choose);
  if (kinds.doubling) {
    return kinds.doubling.find((a) => a.baloot.doubling === 'BALOOT_DOUBLING_DECLINE') ||
      kinds.doubling[0];
  }
  if (kinds.declare) {
    const column = obs.contract === 'BALOOT_CONTRACT_HOKUM' ? 1 : 0;
    return maxBy(kinds.declare, (a) =>
      a.baloot.declare.projects.reduce((sum, p) => sum + PROJECT_POINTS[p.kind][column], 0),
    );
  }
  if (kinds.play) return play(obs, hand, kinds.play);
  return request.legal_actions[0];
}

module.exports = { choose };
