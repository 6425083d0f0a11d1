'use strict';
// Seep: bid the house value held most often; then score every legal play by the points
// it takes now (a capture of the most points first, sweeps above all), by what a house
// it builds should bring, and by the sweep it may leave the next opponent.

const { maxBy, byKind, codes } = require('../util');

const RANKS = 'A23456789TJQK';
const SWEEP = 50;
const SWEEP_RISK = 0.35; // chance the next seat can clear a floor that one card could clear
const HOUSE_SAFE = 0.8; // share of a house's points its builders can count on
const HOUSE_OPEN = 0.55; // the same while an opponent may still break it

const valueOf = (c) => RANKS.indexOf(c[0]) + 1;

/** Points: spades their value, other aces 1, the ten of diamonds 6. */
function pointsOf(c) {
  if (c[1] === 'S') return valueOf(c);
  if (c[0] === 'A') return 1;
  return c === 'TD' ? 6 : 0;
}
const points = (cards) => cards.reduce((sum, c) => sum + pointsOf(c), 0);

/** Could one card take every loose card: all of one value, or adding up to at most 13? */
function clearable(loose) {
  if (!loose.length) return false;
  const values = loose.map(valueOf);
  return new Set(values).size === 1 || values.reduce((a, b) => a + b, 0) <= 13;
}

function scorer(obs, seat) {
  const team = seat % 2;
  const playNumber = obs.play_number + 1;
  const loose = codes(obs.loose);
  const houses = new Map(obs.houses.map((h) => [h.value, h]));
  const ours = (house) => house.owners.some((s) => s % 2 === team);
  // What a floor left like this may give the next opponent: a sweep and its cards.
  const risk = (left, houseCount) => {
    if (houseCount || !left.length || !clearable(left) || playNumber >= 47) return 0;
    return SWEEP_RISK * (SWEEP + points(left));
  };
  const without = (taken) => loose.filter((c) => !taken.includes(c));

  return (payload) => {
    switch (payload.kind) {
      case 'capture': {
        const card = payload.capture.card.code;
        const taken = [card, ...codes(payload.capture.loose)];
        let houseCount = houses.size;
        const house = houses.get(valueOf(card));
        if (house) {
          taken.push(...codes(house.cards));
          houseCount -= 1;
        }
        const left = without(taken);
        let gain = 3 + points(taken) + 0.2 * taken.length; // a capture beats a quiet play
        if (!left.length && !houseCount) {
          gain += playNumber === 1 ? 25 : playNumber === 48 ? 0 : SWEEP; // a sweep's bonus
        }
        return gain - risk(left, houseCount);
      }
      case 'throw': {
        const card = payload.throw.code;
        // Keep cards that capture later; shed pointless high cards first.
        return -pointsOf(card) - risk([...loose, card], houses.size) - 0.05 * (13 - valueOf(card));
      }
      case 'build': {
        const moved = [payload.build.card.code, ...codes(payload.build.loose)];
        const sum = moved.reduce((s, c) => s + valueOf(c), 0);
        const safe = payload.build.value === 13 || sum > payload.build.value;
        const share = safe ? HOUSE_SAFE : HOUSE_OPEN;
        return share * points(moved) + 1 - risk(without(moved), houses.size + 1);
      }
      case 'add': {
        const house = houses.get(payload.add.value);
        const moved = [payload.add.card.code, ...codes(payload.add.loose)];
        let gain = HOUSE_SAFE * points(moved) + 0.5;
        const inside = house ? points(codes(house.cards)) : 0;
        if (house && !house.cemented && ours(house)) gain += (HOUSE_SAFE - HOUSE_OPEN) * inside;
        else if (house && !ours(house)) gain += 0.3 * inside;
        return gain - risk(without(moved), houses.size);
      }
      case 'break_house': {
        const house = houses.get(payload.break_house.house);
        const moved = [payload.break_house.card.code, ...codes(payload.break_house.loose)];
        if (!house || ours(house)) return -1 - risk(without(moved), houses.size);
        const merged = houses.has(payload.break_house.value) ? 1 : 0;
        const taken = points(codes(house.cards)) + points(moved);
        return HOUSE_OPEN * taken + 2 - risk(without(moved), houses.size - merged);
      }
      default:
        return -1000;
    }
  };
}

function choose(request) {
  const obs = request.seep;
  const kinds = byKind(request, 'seep');
  if (kinds.bid) {
    const held = codes(obs.hand).map(valueOf);
    const count = (v) => held.filter((h) => h === v).length;
    return maxBy(kinds.bid, (a) => [count(a.seep.bid), a.seep.bid]);
  }
  const score = scorer(obs, request.seat);
  return maxBy(request.legal_actions, (a) => score(a.seep));
}

module.exports = { choose };
