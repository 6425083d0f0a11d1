// The table as the public sees it while a match is played, built from the match's
// public events (what /api/live/{t}/{m}/events relays): the cards played, the trick or
// Seep's floor and houses or Persian Rummy's discard pile and melds, the cards each side
// has taken, the auction and contract, how many cards each seat holds and whose turn it
// is. No hand is ever shown: the events carry none.
//
// The events are the engines' public log lines (text, seat, kind), so each game's rules
// of the deal and the turn are written here once more, for the public part only: how
// many cards a deal gives each seat, who bids and leads first. Where the log does not
// tell (the first deal's dealer before anybody has bid, cards being discarded face down
// between two events), the count or the seat to act is null and shown as unknown, never
// guessed. tests/web/test_live.py checks every step of real matches of every game
// against the engine's own table.
//
// CardArena.PublicTable.create(game, seats) -> {apply(event), view()}: `seats` is
// [{seat, team, name}]; `event` a MatchEvent as JSON (kind, game_kind, seat, text,
// scores); `view()` the table in the replay frames' shape (arena/replay/tables.py), with
// `held` (cards in each hand, or null) where the frames have hands.
"use strict";

(function () {
  const CA = (window.CardArena = window.CardArena || {});

  const SYMBOL_SUIT = { "\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S" };
  const SUIT_WORDS = { clubs: "C", diamonds: "D", hearts: "H", spades: "S" };
  const CARD = /(10|[2-9AKQJ])([\u2663\u2666\u2665\u2660])|\b(X[1-4]|GC|RC|LC)\b/g;

  // Every card a log line names, as card codes, in the order it names them.
  function cardsIn(text) {
    const found = [];
    for (const m of text.matchAll(CARD)) {
      found.push(m[3] ? m[3] : (m[1] === "10" ? "T" : m[1]) + SYMBOL_SUIT[m[2]]);
    }
    return found;
  }

  function number(text, pattern) {
    const m = pattern.exec(text);
    return m ? Number(m[1]) : null;
  }

  function said(text) {
    // "Seat 3 plays 10♥" -> "plays 10♥": what a seat did, shown by its place.
    return text.replace(/^Seat \d+ /, "");
  }

  function remove(list, cards) {
    // Takes each of `cards` out of `list` (codes); true if every one was there.
    let all = true;
    for (const code of cards) {
      const i = list.indexOf(code);
      if (i < 0) all = false;
      else list.splice(i, 1);
    }
    return all;
  }

  function plural(n, word) {
    return n + " " + word + (n === 1 ? "" : "s");
  }

  // ---- what every game shares: seats, scores, hands held, tricks ------------------------

  function base(game, seats) {
    const n = seats.length;
    return {
      game: game,
      seats: seats,
      n: n,
      hand: 1,
      phase: "deal",
      dealer: null,
      held: new Array(n).fill(null),
      said: new Array(n).fill(null),
      toAct: null,
      scores: [],
      ended: false,
      facts: [],
      trick: [],
      lastTrick: null,
      won: [[], []],
      tricksWon: [0, 0],
      // Which side a seat's tricks count for: its team (Bridgette: the seat itself).
      side: (seat) => seats[seat].team,
      next: (seat) => (seat + 1) % n,
    };
  }

  function newTricks(st) {
    st.trick = [];
    st.lastTrick = null;
    st.won = [[], []];
    st.tricksWon = [0, 0];
    st.said = new Array(st.n).fill(null);
  }

  function play(st, seat, card) {
    st.trick.push({ card: card, seat: seat });
    st.lastTrick = null;
    if (st.held[seat] !== null) st.held[seat] -= 1;
  }

  function takeTrick(st, winner) {
    const side = st.side(winner);
    st.won[side].push(...st.trick);
    st.tricksWon[side] += 1;
    st.lastTrick = { cards: st.trick, winner: winner };
    st.trick = [];
    st.toAct = winner;
  }

  function pile(kind, label, cards, seats, extra) {
    const out = { kind: kind, label: label, cards: cards };
    if (seats) out.seats = seats;
    return Object.assign(out, extra || {});
  }

  function played(kind, label, list) {
    return pile(kind, label, list.map((p) => p.card), list.map((p) => p.seat));
  }

  function trickPiles(st, word) {
    const piles = [];
    if (st.trick.length || !st.lastTrick) piles.push(played("trick", "Trick", st.trick));
    else piles.push(played("last_trick", "Last trick, taken by seat " + st.lastTrick.winner, st.lastTrick.cards));
    for (const side of [0, 1]) {
      const taken = st.tricksWon[side];
      piles.push(played("won", word + " " + side + " took " + plural(taken, "trick"), st.won[side]));
    }
    return piles;
  }

  function faceDown(kind, label, count) {
    return pile(kind, label, [], null, { face_down: true, count: count });
  }

  function auction(calls) {
    return calls.length ? calls.map(([seat, call]) => "seat " + seat + " " + call).join(", ") : "none yet";
  }

  // ---- Bid Euchre: 24 cards, six each (the joker variant: a seventh to the dealer, who
  // discards one face down); bidding from the dealer's left; the declarer leads; a MOON or
  // ASK declarer plays alone --------------------------------------------------------------

  const bidEuchre = {
    scoresAre: "points per team, game to 32",
    deal(st) {
      newTricks(st);
      st.held = [6, 6, 6, 6];
      if (st.joker && st.dealer !== null) st.held[st.dealer] = 7;
      st.calls = [];
      st.high = null;
      st.declarer = st.trump = st.contract = st.sittingOut = null;
      st.exchange = false;
      st.discarded = false;
      st.phase = st.joker ? "discard" : "bidding";
      st.toAct = st.dealer === null ? null : st.joker ? st.dealer : st.next(st.dealer);
    },
    on: {
      discard(st, e) {
        st.dealer = e.seat;
        st.joker = true;
        st.discarded = true;
        st.held[e.seat] = 6;
        st.phase = "bidding";
        st.toAct = st.next(e.seat);
      },
      call(st, e) {
        // The dealer's left always calls first (after any ace-no-face questions, asked
        // in private), so the first call names the dealer.
        if (st.dealer === null && !st.calls.length) st.dealer = (e.seat + 3) % 4;
        const call = said(e.text);
        st.calls.push([e.seat, call]);
        if (call !== "passes") st.high = { seat: e.seat, call: call.replace(/^calls /, "") };
        st.phase = "bidding";
        st.toAct = e.seat !== st.dealer ? st.next(e.seat) : st.high ? st.high.seat : null;
      },
      trump(st, e) {
        const m = / names (\w+) trump/.exec(e.text);
        st.trump = m ? SUIT_WORDS[m[1]] || m[1] : null;
        st.declarer = e.seat;
        st.contract = st.high ? st.high.call : null;
        st.toAct = e.seat;
        st.phase = "play";
        const partner = (e.seat + 2) % 4;
        if (st.contract === "MOON") st.sittingOut = partner;
        if (st.contract === "ASK") {
          // A card goes to partner and one comes back, both face down: until the first
          // lead the two counts and the seat to act are not public.
          st.sittingOut = partner;
          st.exchange = true;
          st.phase = "exchange";
          st.held[e.seat] = st.held[partner] = null;
          st.toAct = null;
        }
      },
      play(st, e) {
        if (st.exchange) {
          st.exchange = false;
          st.held[st.declarer] = st.held[st.sittingOut] = 6;
          st.phase = "play";
        }
        play(st, e.seat, cardsIn(e.text)[0]);
        let next = st.next(e.seat);
        if (next === st.sittingOut) next = st.next(next);
        st.toAct = next;
      },
      trick(st, e) {
        takeTrick(st, e.seat);
      },
      hand_end(st, e) {
        st.result = e.text;
        bidEuchre.newHand(st);
      },
      throw_in(st, e) {
        st.result = e.text;
        bidEuchre.newHand(st);
      },
    },
    newHand(st) {
      st.hand += 1;
      if (st.dealer !== null) st.dealer = st.next(st.dealer);
      bidEuchre.deal(st);
    },
    facts(st) {
      const facts = [
        ["Dealer", st.dealer === null ? "not known yet" : "seat " + st.dealer],
        ["Auction", auction(st.calls)],
        ["Contract", st.contract ? st.contract + " by seat " + st.declarer : "none yet"],
        ["Trump", st.trump || "none yet"],
      ];
      if (st.sittingOut !== null) facts.push(["Sitting out", "seat " + st.sittingOut + " (the hand is dead)"]);
      if (st.exchange) facts.push(["Exchange", "seat " + st.declarer + " gives a card to partner face down, and gets one back"]);
      return facts;
    },
    piles(st) {
      const piles = trickPiles(st, "Team");
      if (st.discarded) piles.push(faceDown("discard", "Seat " + st.dealer + " discarded (out of play)", 1));
      return piles;
    },
  };

  // ---- Baloot: 32 cards; five each and an up-card, then the buyer takes the up-card and
  // two more, everyone else three; bidding from the dealer's right in play order; the
  // buyer leads ---------------------------------------------------------------------------

  const BALOOT_DOUBLING_AT = 100; // arena.games.baloot.SUN_DOUBLING_THRESHOLD

  const baloot = {
    scoresAre: "game points per team, game to 152",
    deal(st) {
      newTricks(st);
      st.held = [5, 5, 5, 5];
      st.upCard = null;
      st.stock = 11;
      st.calls = [];
      st.doublings = [];
      st.round = 1;
      st.hokumCaller = null;
      st.claimed = null;
      st.stage = "bidding";
      st.contract = st.trump = st.buyer = st.doubler = null;
      st.multiplier = 1;
      st.gahwa = false;
      st.projects = [];
      st.startScores = st.scores.slice();
      st.toCall = st.dealer === null ? null : baloot.order(st);
      st.toAct = st.toCall ? st.toCall[0] : null;
      st.phase = "bidding";
    },
    order(st) {
      return [1, 2, 3, 4].map((k) => (st.dealer + k) % 4);
    },
    settled(st) {
      st.toCall = [];
      st.toAct = null; // the contract event, in the same step, says who acts
    },
    ask(st) {
      st.toAct = st.toCall && st.toCall.length ? st.toCall[0] : null;
    },
    on: {
      up_card(st, e) {
        st.upCard = cardsIn(e.text)[0];
      },
      bid(st, e) {
        const b = baloot;
        if (st.dealer === null && !st.calls.length) {
          st.dealer = (e.seat + 3) % 4; // the dealer's right bids first
          st.toCall = b.order(st);
        }
        const call = said(e.text);
        st.calls.push([e.seat, call + (st.round === 2 ? " (round 2)" : "")]);
        const bid = call === "passes" ? "pass" : call.replace(/^calls /, "");
        if (!st.toCall) return;
        st.toCall.shift();
        const stage = st.stage;
        const order = b.order(st);
        if (stage === "claim") {
          if (bid === "sun" || !st.toCall.length) b.settled(st);
          else b.ask(st);
          return;
        }
        if (st.round === 2) {
          if (bid === "sun") return b.settled(st);
          if (bid === "hokum") st.hokumCaller = e.seat;
        } else if (bid === "sun" || bid === "ashkal") {
          st.toCall = order.slice(0, order.indexOf(e.seat));
          if (!st.toCall.length) return b.settled(st);
          st.stage = "claim";
          return b.ask(st);
        } else if (bid === "hokum") {
          st.hokumCaller = e.seat;
        }
        if (st.toCall.length) return b.ask(st);
        if (st.hokumCaller === null) {
          st.toAct = null; // a second round or a throw-in, in the same step
        } else if (stage === "bidding" && st.round === 1) {
          st.toCall = order.slice(0, order.indexOf(st.hokumCaller));
          if (st.toCall.length) {
            st.stage = "second turn";
            b.ask(st);
          } else {
            st.toAct = st.hokumCaller;
          }
        } else {
          st.toAct = st.hokumCaller;
        }
      },
      second_round(st) {
        st.round = 2;
        st.stage = "bidding";
        st.toCall = st.dealer === null ? null : baloot.order(st);
        baloot.ask(st);
      },
      choose(st, e) {
        st.calls.push([e.seat, said(e.text)]);
      },
      contract(st, e) {
        const m = /^Seat (\d+) buys: (.*)$/.exec(e.text);
        const buyer = m ? Number(m[1]) : null;
        st.buyer = buyer;
        st.contract = m ? m[2] : e.text;
        const trump = / (\w+) trump/.exec(e.text);
        st.trump = trump ? SUIT_WORDS[trump[1]] : null;
        st.held = [8, 8, 8, 8];
        st.upCard = null;
        st.stock = 0;
        const hokum = st.trump !== null;
        const team = buyer === null ? 0 : buyer % 2;
        const before = st.startScores;
        const doubling =
          hokum ||
          (before.length === 2 && before[team] > BALOOT_DOUBLING_AT && before[1 - team] < BALOOT_DOUBLING_AT);
        st.phase = doubling ? "doubling" : "play";
        st.toAct = buyer === null ? null : doubling ? (buyer + 1) % 4 : buyer;
      },
      doubling(st, e) {
        const call = said(e.text);
        st.doublings.push([e.seat, call]);
        const buyer = st.buyer;
        if (buyer === null) return;
        const name = call === "declines" ? "decline" : call.replace(/^calls /, "");
        st.phase = "doubling";
        if (name === "decline") {
          if (st.doubler === null && e.seat === (buyer + 1) % 4) {
            st.toAct = (buyer + 3) % 4;
            return;
          }
          st.phase = "play";
          st.toAct = buyer;
        } else if (name === "double") {
          st.doubler = e.seat;
          st.multiplier = 2;
          st.toAct = buyer;
        } else if (name === "triple") {
          st.multiplier = 3;
          st.toAct = st.doubler;
        } else if (name === "four") {
          st.multiplier = 4;
          st.toAct = buyer;
        } else {
          st.gahwa = true;
          st.phase = "play";
          st.toAct = buyer;
        }
      },
      play(st, e) {
        st.phase = "play";
        play(st, e.seat, cardsIn(e.text)[0]);
        st.toAct = st.next(e.seat);
      },
      trick(st, e) {
        takeTrick(st, e.seat);
      },
      projects(st, e) {
        st.projects.push(e.text.replace(/^Projects: /, ""));
      },
      hand_end(st, e) {
        st.result = e.text;
        baloot.newRound(st);
      },
      throw_in(st, e) {
        st.result = e.text;
        baloot.newRound(st);
      },
    },
    newRound(st) {
      st.hand += 1;
      if (st.dealer !== null) st.dealer = st.next(st.dealer);
      baloot.deal(st);
    },
    facts(st) {
      const facts = [
        ["Dealer", st.dealer === null ? "not known yet" : "seat " + st.dealer],
        ["Round", String(st.hand)],
        ["Bids", auction(st.calls)],
        [
          "Contract",
          st.contract === null
            ? "none yet"
            : st.contract + " bought by seat " + st.buyer + ", x" + st.multiplier + (st.gahwa ? " (gahwa)" : ""),
        ],
        ["Trump", st.trump || "none"],
      ];
      if (st.doublings.length) facts.push(["Doublings", auction(st.doublings)]);
      if (st.projects.length) facts.push(["Projects", st.projects.join("; ")]);
      return facts;
    },
    piles(st) {
      const piles = [];
      if (st.upCard) {
        piles.push(pile("up_card", "Up-card", [st.upCard]));
        piles.push(faceDown("stock", "Still to deal", st.stock));
      }
      return piles.concat(trickPiles(st, "Team"));
    },
  };

  // ---- Bridgette: 55 cards, thirteen each; the non-dealer takes the up-card and the card
  // under it and discards two, then the dealer draws 4, 8 or 12 and discards as many,
  // face down; the dealer opens the auction; the declarer's opponent leads ----------------

  const bridgette = {
    scoresAre: "points per seat",
    deal(st) {
      newTricks(st);
      st.side = (seat) => seat;
      st.held = [13, 13];
      st.stock = 29;
      st.upCard = null;
      st.draws = null;
      st.discards = [0, 0];
      st.discarding = null; // [seat, how many] while a seat discards face down
      st.draws_seen = 0;
      st.calls = [];
      st.contract = st.declarer = st.trump = st.barred = null;
      st.phase = "discard";
      st.toAct = null;
    },
    discarded(st) {
      // The discards are private, one decision each: they are over by the next public
      // event, whatever it is.
      if (st.discarding === null) return;
      const [seat, count] = st.discarding;
      st.held[seat] = 13;
      st.discards[seat] = count;
      st.discarding = null;
    },
    on: {
      up_card(st, e) {
        st.upCard = cardsIn(e.text)[0];
        st.draws = number(e.text, /will draw (\d+)/);
      },
      draw(st, e) {
        const count = number(e.text, /draws (\d+) cards/);
        bridgette.discarded(st);
        if (st.draws_seen === 0) st.dealer = 1 - e.seat;
        st.draws_seen += 1;
        st.held[e.seat] = null; // 13 + count, less the discards made so far: not public
        st.stock -= count;
        st.discarding = [e.seat, count];
        st.toAct = e.seat;
      },
      call(st, e) {
        bridgette.discarded(st);
        st.calls.push([e.seat, said(e.text)]);
        st.phase = "auction";
        st.toAct = 1 - e.seat;
      },
      contract(st, e) {
        bridgette.discarded(st);
        const m = /^Contract (\d)(NT|[CDHS])(.*) by seat (\d+)$/.exec(e.text);
        st.contract = e.text.replace(/^Contract /, "");
        st.declarer = m ? Number(m[4]) : e.seat;
        st.trump = m && m[2] !== "NT" ? m[2] : null;
        st.phase = "play";
        st.toAct = 1 - st.declarer;
      },
      play(st, e) {
        bridgette.discarded(st);
        st.barred = null;
        play(st, e.seat, cardsIn(e.text)[0]);
        st.toAct = 1 - e.seat;
      },
      trick(st, e) {
        takeTrick(st, e.seat);
        const m = /may not lead (\w+) next/.exec(e.text);
        st.barred = m ? m[1] : null;
      },
      hand_end(st, e) {
        st.result = e.text;
        st.hand += 1;
        if (st.dealer !== null) st.dealer = 1 - st.dealer;
        bridgette.deal(st);
      },
    },
    facts(st) {
      const facts = [
        ["Dealer", st.dealer === null ? "not known yet" : "seat " + st.dealer],
        ["Deal", String(st.hand)],
        ["Up-card", st.upCard === null ? "-" : st.upCard + " (the non-dealer took it; the dealer draws " + st.draws + ")"],
        ["Auction", auction(st.calls)],
        ["Contract", st.contract || "none yet"],
        ["Trump", st.contract ? st.trump || "none (no trump)" : "none yet"],
      ];
      if (st.discarding) facts.push(["Discarding", "seat " + st.discarding[0] + " drew " + st.discarding[1] + " and discards as many, face down"]);
      if (st.barred) facts.push(["Barred", "seat " + st.toAct + " may not lead " + st.barred]);
      return facts;
    },
    piles(st) {
      const piles = trickPiles(st, "Seat");
      for (const seat of [0, 1]) {
        const now = st.discarding !== null && st.discarding[0] === seat;
        piles.push(faceDown("discard", "Seat " + seat + " discarded", now ? null : st.discards[seat]));
      }
      piles.push(faceDown("stock", "Stock (" + st.stock + ")", st.stock));
      return piles;
    },
  };

  // ---- Persian Rummy: 56 cards, seven each; the stock's top card turned up starts the
  // discard pile; a turn draws (or takes from the pile), melds and lays off, discards -----

  const rummy = {
    scoresAre: "points per team",
    deal(st) {
      st.held = [7, 7, 7, 7];
      st.stock = 27;
      st.pile = [];
      st.melds = [];
      st.chosen = null;
      st.passes = 0;
      st.said = [null, null, null, null];
      st.phase = "draw";
      st.toAct = st.dealer === null ? null : st.next(st.dealer);
    },
    on: {
      dealer_draw(st, e) {
        st.dealer = st.firstDealer = number(e.text, /seat (\d+) deals$/);
        st.toAct = st.dealer === null ? null : st.next(st.dealer);
      },
      turn_up(st, e) {
        if (st.dealt) {
          st.hand += 1;
          st.dealer = st.firstDealer === null ? null : st.next(st.firstDealer);
        }
        st.dealt = true;
        rummy.deal(st);
        st.pile = [{ card: cardsIn(e.text)[0], seat: null }];
      },
      draw(st, e) {
        st.stock = number(e.text, /\((\d+) left\)/);
        if (st.held[e.seat] !== null) st.held[e.seat] += 1;
        st.passes = 0;
        st.phase = "meld";
        st.toAct = e.seat;
      },
      take(st, e) {
        const cards = cardsIn(e.text);
        st.pile.splice(st.pile.length - cards.length, cards.length);
        if (st.held[e.seat] !== null) st.held[e.seat] += cards.length;
        st.chosen = cards[0];
        st.passes = 0;
        st.phase = "meld";
        st.toAct = e.seat;
      },
      meld(st, e) {
        const cards = cardsIn(e.text);
        st.melds.push({
          cards: cards.map((card) => ({ card: card, seat: e.seat })),
          seat: e.seat,
          kind: rummy.kind(cards),
          doubled: / double\)$/.test(e.text),
        });
        rummy.laid(st, e.seat, cards.length);
      },
      layoff(st, e) {
        const cards = cardsIn(e.text);
        const meld = st.melds[number(e.text, / on meld (\d+)$/)];
        if (meld) meld.cards.push(...cards.map((card) => ({ card: card, seat: e.seat })));
        rummy.laid(st, e.seat, cards.length);
      },
      discard(st, e) {
        st.pile.push({ card: cardsIn(e.text)[0], seat: e.seat });
        if (st.held[e.seat] !== null) st.held[e.seat] -= 1;
        st.phase = "draw";
        st.toAct = st.next(e.seat);
      },
      pass(st, e) {
        st.passes += 1;
        st.phase = "draw";
        st.toAct = st.next(e.seat);
      },
      hand_end(st, e) {
        st.result = e.text;
        st.toAct = null;
      },
    },
    kind(cards) {
      const ranks = new Set(cards.map((c) => (c[0] === "X" ? "X" : c[0])));
      return ranks.size === 1 ? "set" : "run";
    },
    laid(st, seat, count) {
      if (st.held[seat] !== null) st.held[seat] -= count;
      st.chosen = null;
      st.phase = "meld";
      st.toAct = seat;
    },
    facts(st) {
      const facts = [
        ["Dealer", st.dealer === null ? "not known yet" : "seat " + st.dealer],
        ["Deal", st.hand + " of 2"],
      ];
      if (st.chosen) facts.push(["Must meld", st.chosen]);
      if (st.passes) facts.push(["Passes in a row", String(st.passes)]);
      return facts;
    },
    piles(st) {
      const piles = [played("discard", "Discard pile", st.pile)];
      st.melds.forEach((meld, i) => {
        const label = "Meld " + (i + 1) + ": " + meld.kind + " by seat " + meld.seat + (meld.doubled ? ", doubled" : "");
        piles.push(played("meld", label, meld.cards));
      });
      piles.push(faceDown("stock", "Stock (" + st.stock + ")", st.stock));
      return piles;
    },
  };

  // ---- Seep: 52 cards; four to the bidder (the dealer's right) and four face down to the
  // floor; after the first play the rest are dealt, twelve to each seat in all. Houses are
  // built on the floor and captured with a card of their value ---------------------------

  const SEEP_VALUE = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
  const seepValue = (card) => SEEP_VALUE[card[0]] || Number(card[0]);
  const seepPoints = (card) =>
    card[1] === "S" ? seepValue(card) : card === "TD" ? 6 : card[0] === "A" ? 1 : 0;

  const seep = {
    scoresAre: "bazzis won per team",
    deal(st) {
      st.bidder = st.dealer === null ? null : st.next(st.dealer);
      st.held = [0, 0, 0, 0];
      if (st.bidder === null) st.held = [null, null, null, null];
      else st.held[st.bidder] = 4;
      st.faceDown = 4;
      st.stock = 44;
      st.loose = [];
      st.houses = new Map(); // value -> {cards, owners, times}
      st.captured = [[], []];
      st.sweeps = [0, 0];
      st.unsure = null; // the house a break may have put unnamed floor cards in
      st.bid = null;
      st.plays = 0;
      st.said = [null, null, null, null];
      st.phase = "bidding";
      st.toAct = st.bidder;
    },
    after(st, seat) {
      st.plays += 1;
      if (st.held[seat] !== null) st.held[seat] -= 1;
      if (st.plays === 1) {
        // The rest of the pack: eight more to the bidder, twelve to each other seat.
        for (let s = 0; s < 4; s++) {
          if (st.held[s] !== null) st.held[s] += s === st.bidder ? 8 : 12;
        }
        st.stock = 0;
      }
      st.toAct = st.plays < 48 ? st.next(seat) : null;
    },
    take(st, team, cards) {
      st.captured[team].push(...cards);
    },
    on: {
      throw_in(st, e) {
        // The bidder shows four cards none above 8: the same dealer deals again.
        st.result = e.text;
        st.dealer = (e.seat + 3) % 4;
        seep.deal(st);
      },
      bid(st, e) {
        if (st.bidder !== e.seat) {
          st.dealer = (e.seat + 3) % 4;
          seep.deal(st);
        }
        st.bid = number(e.text, /bids (\d+)/);
        st.phase = "play";
        st.toAct = e.seat;
      },
      floor(st, e) {
        st.loose = cardsIn(e.text);
        st.faceDown = 0;
      },
      throw(st, e) {
        st.loose.push(cardsIn(e.text)[0]);
        seep.after(st, e.seat);
      },
      build(st, e) {
        const value = number(e.text, /builds a (\d+)-house/);
        const cards = cardsIn(e.text);
        remove(st.loose, cards.filter((c) => st.loose.includes(c)));
        const total = cards.reduce((sum, c) => sum + seepValue(c), 0);
        st.houses.set(value, { cards: cards, owners: [e.seat], times: Math.max(1, Math.round(total / value)) });
        seep.after(st, e.seat);
      },
      add(st, e) {
        const value = number(e.text, /to the (\d+)-house/);
        const moved = cardsIn(e.text);
        remove(st.loose, moved.filter((c) => st.loose.includes(c)));
        const house = st.houses.get(value) || { cards: [], owners: [], times: 1 };
        house.cards.push(...moved);
        house.times = number(e.text, /now (\d+) x/) || house.times;
        const owners = /owners ([\d, ]+)$/.exec(e.text);
        if (owners) house.owners = owners[1].split(", ").map(Number);
        st.houses.set(value, house);
        seep.after(st, e.seat);
      },
      break(st, e) {
        // The log names the broken house, the card and the new value, not the loose
        // cards that went with them: those are floor cards whose values make the house
        // come out whole. When several sets would, the first is shown and the floor and
        // that house are marked unsure until a capture names their cards.
        const m = /breaks the (\d+)-house with .* into (a|the) (\d+)-house/.exec(e.text);
        const card = cardsIn(e.text)[0];
        if (!m) return seep.after(st, e.seat);
        const old = Number(m[1]);
        const value = Number(m[3]);
        const broken = st.houses.get(old) || { cards: [], owners: [], times: 1 };
        st.houses.delete(old);
        const target = st.houses.get(value);
        const have = broken.times * old + seepValue(card) + (target ? target.times * value : 0);
        const sets = seep.making(st.loose, value, have);
        const taken = sets.length ? sets[0] : [];
        if (sets.length > 1 || st.unsure === old) st.unsure = value;
        remove(st.loose, taken);
        const total = have + taken.reduce((sum, c) => sum + seepValue(c), 0);
        const cards = [...broken.cards, card, ...taken];
        const house = target || { cards: [], owners: [] };
        house.cards.push(...cards);
        house.times = Math.max(1, Math.round(total / value));
        if (!house.owners.includes(e.seat)) house.owners.push(e.seat);
        st.houses.set(value, house);
        seep.after(st, e.seat);
      },
      capture(st, e) {
        const cards = cardsIn(e.text);
        const card = cards.pop(); // "captures ... with <card>"
        const value = seepValue(card);
        st.houses.delete(value);
        if (st.unsure === value) st.unsure = null;
        remove(st.loose, cards.filter((c) => st.loose.includes(c)));
        // A house's cards the model lost track of (after a break) are named here.
        for (const [v, house] of st.houses) {
          remove(house.cards, cards.filter((c) => house.cards.includes(c)));
          if (!house.cards.length) st.houses.delete(v);
        }
        const team = st.seats[e.seat].team;
        seep.take(st, team, [card, ...cards]);
        if (/a sweep/.test(e.text)) st.sweeps[team] += 1;
        seep.after(st, e.seat);
      },
      leftover(st, e) {
        const team = number(e.text, /^Team (\d)/);
        seep.take(st, team, cardsIn(e.text));
        st.loose = [];
      },
      hand_end(st, e) {
        // "Deal N: team 0 scores A, team 1 scores B; difference D": the next dealer
        // follows from the scores and who deals now (a bazzi_end, next, may change it).
        st.result = e.text;
        const m = /team 0 scores (-?\d+), team 1 scores (-?\d+); difference ([-+]?\d+)/.exec(e.text);
        st.ending = m ? { a: Number(m[1]), b: Number(m[2]), difference: Number(m[3]), dealer: st.dealer } : null;
        st.difference = m ? Number(m[3]) : null;
        st.hand += 1;
        seep.nextDeal(st, null);
      },
      bazzi_end(st, e) {
        const m = /^Team (\d) wins bazzi/.exec(e.text);
        seep.nextDeal(st, m ? Number(m[1]) : -1);
      },
    },
    // Every set of loose cards that, with `have` points already in the house, makes a
    // whole number of `value`s.
    making(loose, value, have) {
      const n = Math.min(loose.length, 16);
      const sets = [];
      for (let mask = 0; mask < 1 << n; mask++) {
        let sum = have;
        const set = [];
        for (let i = 0; i < n; i++) {
          if (mask & (1 << i)) {
            sum += seepValue(loose[i]);
            set.push(loose[i]);
          }
        }
        if (sum % value === 0) sets.push(set);
      }
      return sets;
    },
    nextDeal(st, winner) {
      // arena.games.seep.SeepState._settle: winner is a team (the bazzi is over), -1 (a
      // void bazzi), or null (not known to be over: no bazzi_end yet).
      const end = st.ending;
      if (!end || end.dealer === null) {
        st.dealer = null;
      } else {
        const dealer = end.dealer;
        const dealerTeam = dealer % 2;
        let over = winner !== null;
        let won = winner !== null && winner >= 0 ? winner : null;
        if (!over && (end.a < 9 || end.b < 9)) {
          over = true;
          won = end.a < 9 ? 1 : 0;
        }
        if (over && won !== null) {
          st.dealer = won === dealerTeam ? (dealer + 3) % 4 : (dealer + 2) % 4;
        } else {
          const lead = over ? 0 : dealerTeam === 0 ? end.difference : -end.difference;
          st.dealer = lead > 0 ? (dealer + 1) % 4 : dealer;
        }
      }
      seep.deal(st);
    },
    facts(st) {
      const facts = [
        ["Dealer", st.dealer === null ? "not known yet" : "seat " + st.dealer],
        ["Bid", st.bid === null ? "none yet" : st.bid + " by seat " + st.bidder],
        ["Deal", st.hand + " (play " + st.plays + " of 48)"],
      ];
      if (st.difference !== null && st.difference !== undefined) {
        facts.push(["Difference", (st.difference > 0 ? "+" : "") + st.difference + " (team 0 minus team 1, bazzi at 100)"]);
      }
      return facts;
    },
    piles(st) {
      const piles = [];
      if (st.faceDown) piles.push(faceDown("floor", "Floor, face down until the bid", st.faceDown));
      const unsure = st.unsure !== null && st.houses.has(st.unsure);
      const floor = pile("floor", "Floor", st.loose.slice());
      if (unsure) Object.assign(floor, { unsure: true, label: "Floor (some of these may be in house " + st.unsure + ")" });
      piles.push(floor);
      for (const value of [...st.houses.keys()].sort((a, b) => a - b)) {
        const house = st.houses.get(value);
        const cemented = house.times > 1 ? ", cemented" : "";
        const owners = house.owners.slice().sort().join("+");
        const shown = pile("house", "House " + value + cemented + ", of seat " + owners, house.cards.slice());
        if (unsure && value === st.unsure) {
          Object.assign(shown, { unsure: true, label: shown.label + " (with floor cards the log does not name)" });
        }
        piles.push(shown);
      }
      for (const team of [0, 1]) {
        const points = st.captured[team].reduce((sum, c) => sum + seepPoints(c), 0);
        const label = "Team " + team + " captured (" + points + " points, " + plural(st.sweeps[team], "sweep") + ")";
        piles.push(pile("won", label, st.captured[team].slice()));
      }
      if (st.stock) piles.push(faceDown("stock", "Still to deal", st.stock));
      return piles;
    },
  };

  const GAMES = { "bid-euchre": bidEuchre, baloot: baloot, bridgette: bridgette, "persian-rummy": rummy, seep: seep };

  function create(game, seats) {
    const rules = GAMES[game];
    if (!rules) throw new Error("no public table for the game " + game);
    const st = base(game, seats);
    rules.deal(st);
    let events = 0;
    let faulted = [];
    let lastHand = null;
    let final = null;

    function apply(event) {
      events += 1;
      faulted = [];
      if (event.scores && event.scores.length) st.scores = event.scores.slice();
      if (event.kind === "MATCH_EVENT_KIND_FAULT") {
        if (event.fault) faulted = [event.fault.seat];
        return;
      }
      if (event.kind === "MATCH_EVENT_KIND_ENDED") {
        st.ended = true;
        st.toAct = null;
        st.phase = "over";
        return;
      }
      if (event.kind !== "MATCH_EVENT_KIND_GAME") return;
      const seat = event.seat === undefined ? null : event.seat;
      const e = { kind: event.game_kind, seat: seat, text: event.text || "" };
      if (e.kind === "game_end") {
        final = lastHand;
        st.ended = true;
        st.result = e.text;
        st.toAct = null;
        st.phase = "over";
        return;
      }
      if (e.kind === "hand_end") {
        // The engines deal the next hand in the step that ends one; if the match ends
        // there instead, its last hand stays on the table as it was.
        lastHand = { held: st.held.slice(), piles: rules.piles(st), facts: rules.facts(st) };
      }
      const handler = rules.on[e.kind];
      if (handler) handler(st, e);
      if (seat !== null && seat < st.n && !/^(trick|hand_end|throw_in)$/.test(e.kind)) st.said[seat] = said(e.text);
    }

    function view() {
      return {
        game: game,
        hand: st.hand,
        seat: st.ended ? null : st.toAct,
        scores: st.scores.slice(),
        said: st.said.slice(),
        faulted: faulted.slice(),
        ended: st.ended,
        result: st.result || null,
        events: events,
        table: {
          phase: st.phase,
          hands: new Array(st.n).fill(null),
          held: final ? final.held.slice() : st.held.slice(),
          piles: final ? final.piles : rules.piles(st),
          facts: final ? final.facts : rules.facts(st),
          scores_are: rules.scoresAre,
        },
      };
    }

    return { apply: apply, view: view };
  }

  CA.PublicTable = { create: create, cardsIn: cardsIn, games: Object.keys(GAMES) };
})();
