'use strict';
// Picks one legal action for an ActRequest. Every strategy returns one of the request's
// own LegalAction objects; the answer is that action's `id` exactly as it arrived (a
// decimal string), so no id is ever parsed, rounded or rebuilt.

const GAMES = {
  'bid-euchre': require('./games/bid-euchre'),
  baloot: require('./games/baloot'),
  bridgette: require('./games/bridgette'),
  seep: require('./games/seep'),
  'persian-rummy': require('./games/persian-rummy'),
};

/**
 * The chosen LegalAction. A strategy that fails or returns something outside the legal
 * list (a bug) is reported on stderr and replaced by the first legal action, so the
 * bot still answers legally and in time.
 */
function chooseAction(request, log = console.error) {
  const legal = request.legal_actions || [];
  if (!legal.length) throw new Error('ActRequest has no legal actions');
  const game = GAMES[request.game];
  if (!game) return legal[0];
  try {
    const chosen = game.choose(request);
    if (legal.includes(chosen)) return chosen;
    log(`node-basic: strategy fallback in ${request.game}: no legal action chosen`);
  } catch (error) {
    const where = error && error.stack ? error.stack.split('\n').slice(0, 2).join(' ') : error;
    log(`node-basic: strategy fallback in ${request.game}: ${where}`);
  }
  return legal[0];
}

module.exports = { GAMES: Object.keys(GAMES), chooseAction };
