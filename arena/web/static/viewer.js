// The Card Arena replay viewer: draws one frame of /api/replays/{t}/{m}/frames at a
// time, seats around a table, and fetches what a chosen seat was sent at a frame from
// .../frames/{index}/sent (the frames leave it out: it is most of their size). Plain
// JavaScript, no build step, nothing loaded from elsewhere. Every text goes in through
// textContent or setAttribute, never as HTML: bot names are user input.
"use strict";

(function () {
  const FRAMES_FORMAT = "card-arena-replay-frames";
  const FRAMES_VERSION = 2;
  const PLAY_MS = 900;
  const RANKS = {
    A: "ace", K: "king", Q: "queen", J: "jack", T: "10", 9: "9", 8: "8", 7: "7",
    6: "6", 5: "5", 4: "4", 3: "3", 2: "2",
  };
  const SUITS = {
    C: ["clubs", "\u2663", "black"], D: ["diamonds", "\u2666", "red"],
    H: ["hearts", "\u2665", "red"], S: ["spades", "\u2660", "black"],
  };
  const SPECIALS = { GC: "Grand Colon", RC: "Royal Colon", LC: "Little Colon" };
  // Where each seat sits, seat 0 at the bottom, the others in the order play passes.
  const POSITIONS = {
    clockwise: ["south", "west", "north", "east"],
    "counter-clockwise": ["south", "east", "north", "west"],
    facing: ["south", "north"],
  };
  // Piles in the middle of the table; the rest (cards taken, the stock, cards put
  // aside face down) lie beside it.
  const ASIDE = { won: true, stock: true };

  const root = document.getElementById("viewer");
  if (!root) return;
  let data = null;
  let at = 0;
  let seatShown = -1; // -1: the full view only
  let timer = null;
  const ui = {};
  const sentCache = new Map(); // frame index -> {request} or {error}, or a pending fetch

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

  function cardName(code) {
    if (SPECIALS[code]) return SPECIALS[code];
    if (code[0] === "X") return "joker " + code.slice(1);
    const suit = SUITS[code[1]];
    return suit ? RANKS[code[0]] + " of " + suit[0] : code;
  }

  function card(code, seat, faceDown) {
    let face = code;
    let colour = "special";
    if (SUITS[code[1]] && code[0] !== "X") {
      face = (code[0] === "T" ? "10" : code[0]) + SUITS[code[1]][1];
      colour = SUITS[code[1]][2];
    }
    let label = cardName(code);
    if (seat !== null && seat !== undefined) label += ", from seat " + seat;
    if (faceDown) label += " (face down)";
    const node = el(
      "span",
      {
        class: "card " + colour + (faceDown ? " down" : ""),
        role: "img",
        "aria-label": label,
        title: label,
        "data-card": code,
      },
      el("span", { class: "face", "aria-hidden": "true" }, face),
    );
    if (seat !== null && seat !== undefined) {
      node.append(el("span", { class: "by", "aria-hidden": "true" }, "s" + seat));
    }
    return node;
  }

  function cards(codes, seats, faceDown, id) {
    const row = el("div", { class: "cards", id: id || null });
    if (!codes.length) row.append(el("span", { class: "muted" }, "none"));
    codes.forEach((code, i) => row.append(card(code, seats ? seats[i] : null, faceDown)));
    return row;
  }

  function seatLabel(seat) {
    const s = data.seats[seat];
    return "seat " + seat + " (" + s.name + ")";
  }

  function fail(message) {
    stop();
    root.replaceChildren(el("p", { class: "error", id: "viewer-error", role: "alert" }, message));
  }

  function build() {
    const frames = data.frames;
    ui.position = el("p", { id: "position", "aria-live": "polite" });
    const button = (id, text, label, keys, action) => {
      const b = el("button", { type: "button", id: id, "aria-label": label, "aria-keyshortcuts": keys, title: label + " (" + keys + ")" }, text);
      b.addEventListener("click", action);
      return b;
    };
    ui.play = button("play", "\u25b6 Play", "Play", "Space", toggle);
    const controls = el(
      "div",
      { class: "controls", role: "toolbar", "aria-label": "Replay controls" },
      button("first", "\u00ab First", "First decision", "Home", () => go(0)),
      button("back", "\u25c0 Back", "Previous decision", "ArrowLeft", () => go(at - 1)),
      ui.play,
      button("forward", "Forward \u25b6", "Next decision", "ArrowRight", () => go(at + 1)),
      button("last", "Last \u00bb", "Last frame", "End", () => go(frames.length - 1)),
    );
    ui.hand = el("select", { id: "hand-select", "aria-label": "Jump to hand" });
    for (const hand of data.hands) {
      ui.hand.append(el("option", { value: hand.frame }, "Hand " + hand.number));
    }
    ui.hand.addEventListener("change", () => go(Number(ui.hand.value)));
    ui.seat = el("select", { id: "seat-select", "aria-label": "Show what a seat was sent" });
    ui.seat.append(el("option", { value: "-1" }, "Full view"));
    for (const s of data.seats) {
      ui.seat.append(el("option", { value: s.seat }, "Seat " + s.seat + " (" + s.name + ")"));
    }
    ui.seat.addEventListener("change", () => { seatShown = Number(ui.seat.value); show(); });
    const pickers = el(
      "div",
      { class: "pickers" },
      el("label", { for: "hand-select" }, "Hand "), ui.hand,
      el("label", { for: "seat-select" }, " View "), ui.seat,
    );
    ui.frame = el("div", { id: "frame" });
    ui.sent = el("aside", { id: "sent", "aria-label": "What the seat's bot was sent" });
    ui.views = el("div", { class: "views" }, ui.frame, ui.sent);
    const keys = el(
      "p",
      { class: "muted keys" },
      "Keys: \u2190 \u2192 step, Home/End first/last, Space play/pause, PageUp/PageDown or [ ] previous/next hand.",
    );
    const app = el(
      "div",
      { id: "viewer-app", "data-game": data.game, "data-frames": frames.length },
      ui.position, controls, pickers, keys,
      ui.views,
    );
    if (data.faults_before_play.length) {
      app.prepend(faultList(data.faults_before_play, "Faults before play: the match never started."));
    }
    root.replaceChildren(app);
    ui.app = app;
  }

  function faultList(faults, heading) {
    const box = el("div", { class: "faults", role: "note" }, el("strong", {}, heading));
    const list = el("ul");
    for (const f of faults) {
      const took = f.substituted_action ? "; the referee played " + f.substituted_action : "";
      list.append(el("li", { class: "fault", "data-seat": f.seat }, seatLabel(f.seat) + ": " + f.kind + " (" + f.detail + ")" + took));
    }
    box.append(list);
    return box;
  }

  function seatPanel(frame, seat) {
    const s = data.seats[seat];
    const hand = frame.table.hands[seat];
    const turn = frame.seat === seat;
    const faulted = frame.faults.some((f) => f.seat === seat);
    const panel = el(
      "section",
      {
        class: "seat" + (turn ? " turn" : "") + (faulted ? " faulted" : "") + (seatShown === seat ? " chosen" : ""),
        "data-seat": seat,
        "data-position": position(seat),
        "aria-label": "Seat " + seat + ", " + s.name + (turn ? ", to act" : ""),
      },
      el("h3", {}, "Seat " + seat + " ", el("span", { class: "name" }, s.name), " ", el("span", { class: "muted" }, "team " + s.team + (turn ? " \u2014 to act" : ""))),
      cards(hand, null, false, "hand-" + seat),
    );
    return panel;
  }

  function position(seat) {
    const around = POSITIONS[data.direction] || POSITIONS.clockwise;
    return around[seat % around.length];
  }

  // The engines deal the next hand in the step that ends one, so no frame shows a
  // finished hand: the first frame after it says how it ended.
  function handEnd(frame) {
    const hand = data.hands.find((h) => h.end_frame === frame.index);
    if (!hand) return null;
    // The engines' own words name the scores; the stored summary does not.
    const said = frame.events.filter((e) => e.hand_end).map((e) => e.text);
    const how = said.length
      ? said.join("; ")
      : hand.end + " \u2014 scores after it " + hand.scores.join(" : ");
    return el("p", { class: "hand-end", id: "hand-end", role: "status", "data-hand": hand.number },
      el("strong", {}, "Hand " + hand.number + " ended: "), how);
  }

  function pileView(pile, i) {
    return el("section", { class: "pile " + pile.kind, "data-kind": pile.kind, "aria-label": pile.label },
      el("h4", {}, pile.label + (pile.face_down ? " (face down)" : "")),
      cards(pile.cards, pile.seats || null, !!pile.face_down, "pile-" + i));
  }

  function frameView(frame) {
    const view = el("div", { class: "table-view", "data-frame": frame.index });
    const t = frame.table;
    const scores = el("table", { id: "scores" });
    const head = el("tr", {}, el("th", { scope: "col" }, data.game === "bridgette" ? "Seat" : "Team"), el("th", { scope: "col" }, "Bots"), el("th", { scope: "col" }, "Score"));
    scores.append(el("caption", {}, "Scores: " + t.scores_are), el("thead", {}, head));
    const body = el("tbody");
    frame.scores.forEach((score, side) => {
      const names = data.seats.filter((s) => (data.game === "bridgette" ? s.seat : s.team) === side).map((s) => s.name);
      body.append(el("tr", { "data-side": side }, el("td", {}, String(side)), el("td", { class: "text" }, names.join(", ")), el("td", {}, String(score))));
    });
    scores.append(body);

    const around = el("div", { class: "around seats-" + t.hands.length, role: "group", "aria-label": "The table" });
    t.hands.forEach((_, seat) => around.append(seatPanel(frame, seat)));
    const centre = el("div", { class: "piles centre" });
    const aside = el("div", { class: "piles aside" });
    t.piles.forEach((pile, i) => {
      (ASIDE[pile.kind] || pile.face_down ? aside : centre).append(pileView(pile, i));
    });
    around.append(centre);
    const facts = el("dl", { class: "facts" }, el("dt", {}, "Phase"), el("dd", {}, t.phase));
    for (const [label, text] of t.facts) facts.append(el("dt", {}, label), el("dd", {}, text));

    view.append(el("div", { class: "strip" }, scores, facts));
    const ended = handEnd(frame);
    if (ended) view.append(ended);
    if (frame.faults.length) view.append(faultList(frame.faults, "Fault at this decision"));
    if (frame.action) {
      const a = frame.action;
      view.append(
        el("p", { class: "action" + (a.substituted ? " substituted" : ""), id: "action" },
          seatLabel(frame.seat) + " \u2192 ", el("strong", {}, a.text),
          " (" + a.think_ms.toFixed(1) + " ms" + (a.substituted ? ", played by the referee after the fault" : "") + ")"),
      );
    } else {
      view.append(el("p", { class: "action", id: "action" }, endText()));
    }
    view.append(around);
    if (aside.childNodes.length) view.append(aside);
    if (frame.events.length) {
      const list = el("ul", { class: "events" });
      for (const e of frame.events) {
        list.append(el("li", { class: (e.private ? "private" : "") + (e.hand_end ? " hand-end" : "") }, e.text + (e.private ? " (seen by " + (e.seat === null ? "nobody" : "its seat") + ")" : "")));
      }
      view.append(el("details", { class: "log", open: "" }, el("summary", {}, "What happened before this frame"), list));
    }
    return view;
  }

  function endText() {
    const r = data.result;
    if (r.end === "forfeit") return "Team " + r.forfeit_team + " forfeits here: scores " + r.scores.join(" : ");
    if (r.end === "no_contest") return "No contest: the referee's decision limit ended the match here.";
    return "The match is over: " + (r.winner_team === null ? "a draw" : (data.game === "bridgette" ? "seat " : "team ") + r.winner_team + " wins") + ", scores " + r.scores.join(" : ") + ".";
  }

  function sentView(frame) {
    const box = [];
    if (seatShown < 0) {
      box.push(el("p", { class: "muted" }, "Choose a seat under \u201cView\u201d to see exactly what its bot was sent: its observation and legal actions."));
      return box;
    }
    let shown = null;
    for (let i = frame.index; i >= 0; i--) {
      if (data.frames[i].seat === seatShown && data.frames[i].kind === "decision") { shown = data.frames[i]; break; }
    }
    box.push(el("h3", {}, "What " + seatLabel(seatShown) + " was sent"));
    if (!shown) {
      box.push(el("p", { class: "muted", id: "sent-none" }, "Nothing yet: this seat has not acted so far."));
      return box;
    }
    if (shown !== frame) {
      box.push(el("p", { class: "muted" }, "Not its turn now; its last request was at frame " + shown.index + " (decision " + shown.decision + ")."));
    }
    const got = sentCache.get(shown.index);
    if (!got || got.pending) {
      fetchSent(shown.index);
      box.push(el("p", { class: "muted", id: "sent-loading" }, "Loading the request of frame " + shown.index + "\u2026"));
      return box;
    }
    if (got.error) {
      sentCache.delete(shown.index); // asked again when the frame or seat changes
      box.push(el("p", { class: "error", id: "sent-error", role: "alert" }, "What " + seatLabel(seatShown) + " was sent at frame " + shown.index + " could not be loaded: " + got.error));
      return box;
    }
    const request = got.request;
    const legal = el("ol", { class: "legal", id: "sent-legal", start: "0" });
    for (const a of request.legal_actions) {
      const taken = shown.action && String(a.id) === shown.action.id;
      legal.append(el("li", { class: taken ? "taken" : null, "data-id": a.id }, a.text + (taken ? "  \u2190 played" : "")));
    }
    const obs = Object.assign({}, request);
    delete obs.legal_actions;
    box.push(
      el("h4", {}, "Legal actions (" + request.legal_actions.length + ")"), legal,
      el("h4", {}, "The request, legal actions left out"),
      el("pre", { class: "json", id: "sent-json" }, JSON.stringify(obs, null, 1)),
    );
    return box;
  }

  function fetchSent(index) {
    if (sentCache.has(index)) return;
    sentCache.set(index, { pending: true });
    const url = root.getAttribute("data-frames") + "/" + index + "/sent";
    fetch(url, { headers: { Accept: "application/json" } })
      .then((response) => response.json().then(
        (body) => (response.ok ? { request: body } : { error: body.error || "the server answered " + response.status }),
        () => ({ error: "the server answered " + response.status + " without JSON" })))
      .catch((error) => ({ error: String(error) }))
      .then((got) => {
        sentCache.set(index, got);
        if (seatShown >= 0) ui.sent.replaceChildren(...sentView(data.frames[at]));
      });
  }

  function show() {
    const frame = data.frames[at];
    const hand = data.hands.filter((h) => h.frame <= at).pop();
    ui.position.textContent = "Frame " + at + " of " + (data.frames.length - 1) + " \u00b7 hand " + frame.hand +
      (frame.kind === "decision" ? " \u00b7 decision " + frame.decision + ": " + seatLabel(frame.seat) + " to act" : " \u00b7 where the match stopped");
    if (hand) ui.hand.value = String(hand.frame);
    ui.frame.replaceChildren(frameView(frame));
    ui.sent.replaceChildren(...sentView(frame));
    ui.views.classList.toggle("full", seatShown < 0);
    ui.app.setAttribute("data-frame", String(at));
    ui.app.setAttribute("data-seat-shown", String(seatShown));
    const fragment = "#d=" + at + (seatShown >= 0 ? "&seat=" + seatShown : "");
    if (location.hash !== fragment) history.replaceState(null, "", fragment);
  }

  function go(index) {
    const last = data.frames.length - 1;
    at = Math.max(0, Math.min(last, index));
    if (at === last) stop();
    show();
  }

  function handJump(step) {
    const starts = data.hands.map((h) => h.frame);
    const current = starts.filter((f) => f <= at).length - 1;
    const target = starts[Math.max(0, Math.min(starts.length - 1, current + step))];
    if (target !== undefined) go(step < 0 && starts[current] < at ? starts[current] : target);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    if (ui.play) { ui.play.textContent = "\u25b6 Play"; ui.play.setAttribute("aria-label", "Play"); ui.play.setAttribute("aria-pressed", "false"); }
  }

  function toggle() {
    if (timer !== null) { stop(); return; }
    if (at >= data.frames.length - 1) go(0);
    timer = setInterval(() => go(at + 1), PLAY_MS);
    ui.play.textContent = "\u23f8 Pause";
    ui.play.setAttribute("aria-label", "Pause");
    ui.play.setAttribute("aria-pressed", "true");
  }

  function onKey(event) {
    if (!data || event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
    const actions = {
      ArrowLeft: () => go(at - 1), ArrowRight: () => go(at + 1),
      Home: () => go(0), End: () => go(data.frames.length - 1),
      PageUp: () => handJump(-1), PageDown: () => handJump(1),
      "[": () => handJump(-1), "]": () => handJump(1),
      " ": () => toggle(),
    };
    if (event.key === " " && tag === "BUTTON") return; // the button's own click
    const action = actions[event.key];
    if (action) { event.preventDefault(); action(); }
  }

  function fromFragment() {
    const params = new URLSearchParams(location.hash.slice(1));
    const d = Number(params.get("d"));
    const seat = Number(params.get("seat"));
    if (params.has("seat") && Number.isInteger(seat) && seat >= -1 && seat < data.seats.length) {
      seatShown = seat;
      ui.seat.value = String(seat);
    }
    if (params.has("d") && Number.isInteger(d)) go(d); else show();
  }

  fetch(root.getAttribute("data-frames"), { headers: { Accept: "application/json" } })
    .then((response) => response.json().then((body) => [response, body]))
    .then(([response, body]) => {
      if (!response.ok) { fail("The replay cannot be shown: " + (body.error || response.status)); return; }
      if (body.format !== FRAMES_FORMAT || body.version !== FRAMES_VERSION) {
        fail("The replay cannot be shown: this viewer reads frames version " + FRAMES_VERSION + ", the server sent " + body.format + " version " + body.version + ".");
        return;
      }
      data = body;
      if (!data.frames.length) {
        root.replaceChildren(faultList(data.faults_before_play, "This match was never played: faults before play."));
        return;
      }
      build();
      fromFragment();
      document.addEventListener("keydown", onKey);
      window.addEventListener("hashchange", fromFragment);
    })
    .catch((error) => fail("The replay viewer could not load its frames: " + error));
})();
