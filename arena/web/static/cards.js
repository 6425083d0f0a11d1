// The card table both the replay viewer (viewer.js) and the live page (live.js) draw:
// cards, the seats around the table in the order play passes, the trick or floor or
// melds in the middle, the cards taken and the stock beside it, the scores and the
// hand's facts. Plain JavaScript, no build step. Every text goes in through text nodes
// or setAttribute, never as HTML: bot names are user input.
//
// A table is drawn from a "view":
//   {game, direction, per_seat (every seat its own team: scores per seat),
//    seats: [{seat, team, name}], seat (to act, or null),
//    scores, faulted: [seat], chosen (seat or -1), said: [text per seat] (optional),
//    table: {phase, hands: [codes, or null when hidden], held: [count or null],
//            piles: [{kind, label, cards, seats?, face_down?, count?}], facts, scores_are}}
// which is a replay frame (arena/replay/frames.py) or the public table of a match being
// played (MatchEvent.table_json, arena/replay/public_table.py).
"use strict";

(function () {
  const CA = (window.CardArena = window.CardArena || {});

  const RANKS = {
    A: "ace", K: "king", Q: "queen", J: "jack", T: "10", 9: "9", 8: "8", 7: "7",
    6: "6", 5: "5", 4: "4", 3: "3", 2: "2",
  };
  const SUITS = {
    C: ["clubs", "\u2663"], D: ["diamonds", "\u2666"], H: ["hearts", "\u2665"], S: ["spades", "\u2660"],
  };
  const SPECIALS = { GC: "Grand Colon", RC: "Royal Colon", LC: "Little Colon" };
  // Where each seat sits, seat 0 at the bottom, the others in the order play passes.
  const POSITIONS = {
    clockwise: ["south", "west", "north", "east"],
    "counter-clockwise": ["south", "east", "north", "west"],
    facing: ["south", "north"],
  };
  // Piles beside the table rather than in its middle: cards taken, the stock; and any
  // pile lying face down.
  const ASIDE = { won: true, stock: true };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined && value !== false) {
        node.setAttribute(name, String(value));
      }
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  // Redraws `parent` to hold `nodes` (freshly drawn, as replaceChildren would put them)
  // by changing only what differs: a node like the one already there (same tag, and the
  // same card for a card) is kept and brought up to date; a card that left or came is
  // removed or inserted where it was, the cards after it kept. Stepping a frame changes
  // a card or two, so the browser styles and lays out those alone rather than the whole
  // table again at every step.
  function keyOf(node) {
    return node.nodeType === 1 ? node.getAttribute("data-card") : null;
  }

  function alike(a, b) {
    return !!a && !!b && a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);
  }

  function update(old, fresh) {
    if (old.isEqualNode(fresh)) return;
    if (old.nodeType !== 1) {
      old.nodeValue = fresh.nodeValue;
      return;
    }
    for (const name of old.getAttributeNames()) {
      if (!fresh.hasAttribute(name)) old.removeAttribute(name);
    }
    for (const name of fresh.getAttributeNames()) {
      const value = fresh.getAttribute(name);
      if (old.getAttribute(name) !== value) old.setAttribute(name, value);
    }
    patch(old, [...fresh.childNodes]);
  }

  function patch(parent, nodes) {
    const fresh = nodes.map((n) => (typeof n === "string" ? document.createTextNode(n) : n));
    let old = parent.firstChild;
    fresh.forEach((node, i) => {
      if (old && !alike(old, node)) {
        if (alike(old.nextSibling, node)) {
          const gone = old; // left: the next one is this one
          old = old.nextSibling;
          gone.remove();
        } else if (!alike(old, fresh[i + 1])) {
          const gone = old; // changed: not the next one either
          old = old.nextSibling;
          parent.replaceChild(node, gone);
          return;
        } else {
          parent.insertBefore(node, old); // came: the one there is the next one
          return;
        }
      }
      if (old) {
        update(old, node);
        old = old.nextSibling;
      } else {
        parent.append(node);
      }
    });
    while (old) {
      const gone = old;
      old = old.nextSibling;
      gone.remove();
    }
  }

  function cardName(code) {
    if (SPECIALS[code]) return SPECIALS[code];
    if (code[0] === "X") return "joker " + code.slice(1);
    const suit = SUITS[code[1]];
    return suit ? RANKS[code[0]] + " of " + suit[0] : code;
  }

  // One card: its rank and suit in the top corner (what shows in a fanned hand) and a
  // large suit in the middle, in its suit's colour; `by` marks who played it.
  function card(code, seat, faceDown) {
    const suit = !SPECIALS[code] && code[0] !== "X" && SUITS[code[1]] ? code[1] : null;
    let label = cardName(code);
    if (seat !== null && seat !== undefined) label += ", from seat " + seat;
    if (faceDown) label += " (face down)";
    const face = el("span", { class: "face", "aria-hidden": "true" });
    if (suit) {
      const rank = code[0] === "T" ? "10" : code[0];
      face.append(
        el("span", { class: "corner" }, el("span", { class: "rank" }, rank), el("span", { class: "pip" }, SUITS[suit][1])),
        el("span", { class: "middle" }, SUITS[suit][1]),
      );
    } else if (code[0] === "X") {
      face.append(el("span", { class: "corner" }, el("span", { class: "rank" }, "\u2605"), el("span", { class: "pip" }, code.slice(1))),
        el("span", { class: "middle" }, "\u2605"));
    } else {
      face.append(el("span", { class: "corner" }, el("span", { class: "rank" }, code)), el("span", { class: "middle colon" }, code[0]));
    }
    const node = el(
      "span",
      {
        class: "card " + (suit ? "suit-" + suit : SPECIALS[code] ? "colon" : "joker") + (faceDown ? " down" : ""),
        role: "img",
        "aria-label": label,
        title: label,
        "data-card": code,
      },
      face,
    );
    if (seat !== null && seat !== undefined) {
      node.append(el("span", { class: "by", "aria-hidden": "true" }, "s" + seat));
    }
    return node;
  }

  // A row of cards; `fan` overlaps them, as a hand is held.
  function cards(codes, seats, faceDown, id, fan) {
    const row = el("div", { class: "cards", id: id || null });
    if (fan) row.classList.add("fan");
    if (!codes.length) row.append(el("span", { class: "muted none" }, "none"));
    codes.forEach((code, i) => row.append(card(code, seats ? seats[i] : null, faceDown)));
    return row;
  }

  // Cards whose faces nobody outside may see: their backs, and how many (null: not known).
  function backs(count, id, what) {
    if (count === null || count === undefined) {
      return el("div", { class: "backs unknown", id: id || null }, el("span", { class: "muted" }, "how many is not known here"));
    }
    const label = count + " card" + (count === 1 ? "" : "s") + (what ? " " + what : "") + ", face down";
    const row = el("div", { class: "backs", id: id || null, role: "img", "aria-label": label, title: label, "data-count": count });
    const shown = Math.min(count, 14);
    for (let i = 0; i < shown; i++) row.append(el("span", { class: "card back", "aria-hidden": "true" }));
    row.append(el("span", { class: "count", "aria-hidden": "true" }, String(count)));
    if (!count) row.replaceChildren(el("span", { class: "muted none" }, "none"));
    return row;
  }

  function positionOf(direction, seat) {
    const around = POSITIONS[direction] || POSITIONS.clockwise;
    return around[seat % around.length];
  }

  function seatPanel(view, seat) {
    const s = view.seats[seat];
    const t = view.table;
    const turn = view.seat === seat;
    const faulted = (view.faulted || []).includes(seat);
    const chosen = view.chosen === seat;
    const hand = t.hands ? t.hands[seat] : null;
    const held = t.held ? t.held[seat] : null;
    const panel = el(
      "section",
      {
        class: "seat" + (turn ? " turn" : "") + (faulted ? " faulted" : "") + (chosen ? " chosen" : ""),
        "data-seat": seat,
        "data-position": positionOf(view.direction, seat),
        "aria-label": "Seat " + seat + ", " + s.name + (turn ? ", to act" : ""),
      },
    );
    const head = el("div", { class: "seat-head" },
      el("h3", {}, "Seat " + seat + " ", el("span", { class: "name" }, s.name), " ",
        el("span", { class: "muted" }, (view.per_seat ? "" : "team " + s.team) + (turn ? " \u2014 to act" : ""))));
    // What the seat did last (the live table): beside its name, so the table stays low.
    const said = view.said ? view.said[seat] : null;
    if (said) head.append(el("p", { class: "said", "data-seat": seat, title: said }, said));
    panel.append(head);
    if (Array.isArray(hand)) panel.append(cards(hand, null, false, "hand-" + seat, true));
    else panel.append(backs(held, "hand-" + seat, "in hand"));
    return panel;
  }

  function pileView(pile, i) {
    const down = !!pile.face_down;
    const known = pile.cards.length || !("count" in pile);
    const box = el(
      "section",
      { class: "pile " + pile.kind + (pile.unsure ? " unsure" : ""), "data-kind": pile.kind, "aria-label": pile.label },
      el("h4", {}, pile.label + (down && pile.kind !== "stock" ? " (face down)" : "")),
    );
    const fan = pile.kind !== "trick" && pile.kind !== "last_trick";
    box.append(known ? cards(pile.cards, pile.seats || null, down, "pile-" + i, fan) : backs(pile.count, "pile-" + i));
    return box;
  }

  function aside(pile) {
    return ASIDE[pile.kind] || pile.face_down;
  }

  // The table: the seats around its middle, and beside it what lies aside.
  function board(view) {
    const t = view.table;
    const around = el("div", { class: "around seats-" + view.seats.length, role: "group", "aria-label": "The table" });
    view.seats.forEach((_, seat) => around.append(seatPanel(view, seat)));
    const centre = el("div", { class: "piles centre" });
    const beside = el("div", { class: "piles aside" });
    t.piles.forEach((pile, i) => (aside(pile) ? beside : centre).append(pileView(pile, i)));
    around.append(centre);
    const out = el("div", { class: "board" }, around);
    if (beside.childNodes.length) out.append(beside);
    return out;
  }

  function scores(view) {
    const t = view.table;
    const perSeat = !!view.per_seat;
    const table = el("table", { class: "scores", id: "scores" });
    const head = el("tr", {}, el("th", { scope: "col" }, perSeat ? "Seat" : "Team"), el("th", { scope: "col", class: "text" }, "Bots"), el("th", { scope: "col" }, "Score"));
    table.append(el("caption", {}, "Scores: " + t.scores_are), el("thead", {}, head));
    const body = el("tbody");
    (view.scores || []).forEach((score, side) => {
      const names = view.seats.filter((s) => (perSeat ? s.seat : s.team) === side).map((s) => s.name);
      const unique = names.filter((name, i) => names.indexOf(name) === i);
      body.append(el("tr", { "data-side": side }, el("td", {}, String(side)), el("td", { class: "text" }, unique.join(", ")), el("td", {}, String(score))));
    });
    table.append(body);
    return table;
  }

  function facts(view) {
    const t = view.table;
    const list = el("dl", { class: "facts" }, el("dt", {}, "Phase"), el("dd", {}, t.phase));
    for (const [label, text] of t.facts) list.append(el("dt", {}, label), el("dd", {}, text));
    return list;
  }

  CA.el = el;
  CA.patch = patch;
  CA.cardName = cardName;
  CA.card = card;
  CA.cards = cards;
  CA.backs = backs;
  CA.positionOf = positionOf;
  CA.board = board;
  CA.scores = scores;
  CA.facts = facts;
})();
