// The Card Arena replay viewer: draws one frame of /api/replays/{t}/{m}/frames at a
// time on the card table of cards.js (which the live page draws too), and fetches what a
// chosen seat was sent at a frame from .../frames/{index}/sent (the frames leave it out:
// it is most of their size). Plain JavaScript, no build step, nothing loaded from
// elsewhere. Every text goes in through textContent or setAttribute, never as HTML: bot
// names are user input.
"use strict";

(function () {
  const FRAMES_FORMAT = "card-arena-replay-frames";
  const FRAMES_VERSION = 2;
  const PLAY_MS = 900;
  // A held arrow key steps many frames a second: what a seat was sent is fetched once the
  // viewer has stayed on a frame this long, for the frame it stopped at, not for each
  // frame it passed (the site lets a client read at a person's pace).
  const SETTLE_MS = 100;
  const CA = window.CardArena;
  const el = CA.el;

  const root = document.getElementById("viewer");
  if (!root) return;
  let data = null;
  let at = 0;
  let seatShown = -1; // -1: the full view only
  let timer = null;
  let sentTimer = null; // the fetch of what the chosen seat was sent, due once settled
  let fragmentDue = false; // the fragment's update, due once this task is done
  const ui = {};
  const sentCache = new Map(); // frame index -> {request} or {error}, or a pending fetch

  function seatLabel(seat) {
    const s = data.seats[seat];
    return "seat " + seat + " (" + s.name + ")";
  }

  function fail(message) {
    stop();
    root.replaceChildren(el("p", { class: "error", id: "viewer-error", role: "alert" }, message));
  }

  // Hands of no decision, thrown in before anybody played: nothing of theirs to show
  // (the next hand's first frame says how they ended).
  function thrownIn(hand) {
    return hand.decisions === 0 && hand.end === "throw_in";
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
    // One option per hand, valued by its number: several hands thrown in one after the
    // other start at the same frame, so a frame would not name one.
    ui.hand = el("select", { id: "hand-select", "aria-label": "Jump to hand" });
    for (const hand of data.hands) {
      const option = el("option", { value: hand.number }, "Hand " + hand.number + (thrownIn(hand) ? " (thrown in)" : ""));
      if (thrownIn(hand)) option.disabled = true;
      ui.hand.append(option);
    }
    ui.hand.addEventListener("change", () => {
      const hand = data.hands.find((h) => String(h.number) === ui.hand.value);
      if (hand) go(hand.frame);
    });
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
    ui.info = el("div", { id: "info" });
    ui.sent = el("aside", { id: "sent", "aria-label": "What the seat's bot was sent" });
    ui.log = el("div", { id: "log" });
    const keys = el(
      "p",
      { class: "muted keys" },
      "Keys: \u2190 \u2192 step, Home/End first/last, Space play/pause, PageUp/PageDown or [ ] previous/next hand.",
    );
    ui.side = el("div", { class: "side" }, ui.info, ui.sent, ui.log, keys);
    ui.views = el("div", { class: "views" }, ui.frame, ui.side);
    const app = el(
      "div",
      { id: "viewer-app", "data-game": data.game, "data-frames": frames.length },
      el("div", { class: "bar" }, ui.position, controls, pickers),
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

  // The engines deal the next hand in the step that ends one, so no frame shows a
  // finished hand: the first frame after it says how it ended (and how any hands thrown
  // in right after it did).
  function handEnd(frame) {
    const ended = data.hands.filter((h) => h.end_frame === frame.index);
    if (!ended.length) return null;
    const first = ended[0];
    const last = ended[ended.length - 1];
    // The engines' own words name the scores; the stored summary does not.
    const said = frame.events.filter((e) => e.hand_end).map((e) => e.text);
    const how = said.length
      ? said.join("; ")
      : first.end + " \u2014 scores after it " + last.scores.join(" : ");
    const which = ended.length === 1 ? "Hand " + first.number : "Hands " + first.number + " to " + last.number;
    return el("p", { class: "hand-end", id: "hand-end", role: "status", "data-hand": first.number },
      el("strong", {}, which + " ended: "), how);
  }

  function view(frame) {
    return {
      game: data.game,
      direction: data.direction,
      per_seat: data.per_seat,
      seats: data.seats,
      seat: frame.seat,
      scores: frame.scores,
      faulted: frame.faults.map((f) => f.seat),
      chosen: seatShown,
      table: frame.table,
    };
  }

  function infoView(frame) {
    const shown = view(frame);
    const parts = [];
    const ended = handEnd(frame);
    if (ended) parts.push(ended);
    if (frame.faults.length) parts.push(faultList(frame.faults, "Fault at this decision"));
    if (frame.action) {
      const a = frame.action;
      parts.push(
        el("p", { class: "action" + (a.substituted ? " substituted" : ""), id: "action" },
          seatLabel(frame.seat) + " \u2192 ", el("strong", {}, a.text),
          " (" + a.think_ms.toFixed(1) + " ms" + (a.substituted ? ", played by the referee after the fault" : "") + ")"),
      );
    } else {
      parts.push(el("p", { class: "action", id: "action" }, endText()));
    }
    parts.push(CA.scores(shown), CA.facts(shown));
    return parts;
  }

  function logView(frame) {
    if (!frame.events.length) return [];
    const list = el("ul", { class: "events" });
    for (const e of frame.events) {
      list.append(el("li", { class: (e.private ? "private" : "") + (e.hand_end ? " hand-end" : "") }, e.text + (e.private ? " (seen by " + (e.seat === null ? "nobody" : "its seat") + ")" : "")));
    }
    return [el("details", { class: "log", open: "" }, el("summary", {}, "What happened before this frame"), list)];
  }

  function endText() {
    const r = data.result;
    if (r.end === "forfeit") return "Team " + r.forfeit_team + " forfeits here: scores " + r.scores.join(" : ");
    if (r.end === "no_contest") return "No contest: the referee's decision limit ended the match here.";
    return "The match is over: " + (r.winner_team === null ? "a draw" : (data.per_seat ? "seat " : "team ") + r.winner_team + " wins") + ", scores " + r.scores.join(" : ") + ".";
  }

  function sentView(frame) {
    const box = [];
    if (seatShown < 0) {
      box.push(el("p", { class: "muted" }, "Choose a seat under \u201cView\u201d to see exactly what its bot was sent: its observation and legal actions."));
      return box;
    }
    const shown = lastRequest(frame);
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
      if (!got) fetchSoon();
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

  // The frame whose request the chosen seat's view shows at `frame`: the seat's last
  // decision so far, or null.
  function lastRequest(frame) {
    if (seatShown < 0) return null;
    for (let i = frame.index; i >= 0; i--) {
      if (data.frames[i].seat === seatShown && data.frames[i].kind === "decision") return data.frames[i];
    }
    return null;
  }

  // Fetches the request shown, once the viewer has settled on a frame.
  function fetchSoon() {
    clearTimeout(sentTimer);
    sentTimer = setTimeout(() => {
      sentTimer = null;
      const shown = lastRequest(data.frames[at]);
      if (shown) fetchSent(shown.index);
    }, SETTLE_MS);
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
        if (seatShown >= 0) renew(ui.sent, sentView(data.frames[at]));
      });
  }

  function show() {
    const frame = data.frames[at];
    ui.position.textContent = "Frame " + at + " of " + (data.frames.length - 1) + " \u00b7 hand " + frame.hand +
      (frame.kind === "decision" ? " \u00b7 decision " + frame.decision + ": " + seatLabel(frame.seat) + " to act" : " \u00b7 where the match stopped");
    ui.hand.value = String(frame.hand); // the hand the header names
    // The table and the facts beside it change by a card or a number a frame: only what
    // changed is redrawn. What a seat was sent and the log are drawn afresh when they
    // change (their lists scroll, and start at the top), and left alone when they do not.
    CA.patch(ui.frame, [CA.board(view(frame))]);
    CA.patch(ui.info, infoView(frame));
    renew(ui.sent, sentView(frame));
    renew(ui.log, logView(frame));
    ui.views.classList.toggle("full", seatShown < 0);
    ui.app.setAttribute("data-frame", String(at));
    ui.app.setAttribute("data-seat-shown", String(seatShown));
    // The fragment follows once the task that drew the frame is done (before any other
    // task, such as a navigation, can run), so many frames drawn in one task, by a
    // script, rewrite the address once: Chromium ignores history updates past 200 in 10
    // seconds, and each costs the browser process work.
    if (!fragmentDue) {
      fragmentDue = true;
      queueMicrotask(() => {
        fragmentDue = false;
        const fragment = "#d=" + at + (seatShown >= 0 ? "&seat=" + seatShown : "");
        if (location.hash !== fragment) history.replaceState(null, "", fragment);
      });
    }
  }

  // `parent`'s children become `nodes`, unless they are already the same.
  function renew(parent, nodes) {
    const kids = parent.childNodes;
    if (kids.length === nodes.length && nodes.every((n, i) => kids[i].isEqualNode(n))) return;
    parent.replaceChildren(...nodes);
  }

  function go(index) {
    const last = data.frames.length - 1;
    at = Math.max(0, Math.min(last, index));
    if (at === last) stop();
    show();
  }

  function handJump(step) {
    const starts = [...new Set(data.hands.map((h) => h.frame))];
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
    ui.play.textContent = "\u25ae\u25ae Pause";
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
