// Follows one match on /live/{tournament}/{match}: reads its public events from the
// site's server-sent events (data-events), draws the table as the public sees it after
// each (the referee sends it with the event, `table_json`, from the engine itself:
// arena/replay/public_table.py; drawn by cards.js, as the replay viewer draws its
// tables), and lists every event beside it. It follows the newest event as the match is
// played; Pause holds the table where it is (the log goes on filling) and the arrows
// step through the events so far. EventSource reconnects by itself after a dropped
// connection, sending the last event's id; the server resumes after it, so no event is
// lost or shown twice (the sequence is checked here too). Every text goes in through
// text nodes or setAttribute: bot names are user input.
"use strict";

(function () {
  const root = document.getElementById("live");
  if (!root || !root.dataset.events) return;
  const CA = window.CardArena;
  const el = CA.el;
  const entries = JSON.parse(root.dataset.entries || "[]");
  const seats = root.dataset.seats ? JSON.parse(root.dataset.seats) : null;
  const game = root.dataset.game;
  const direction = root.dataset.direction;
  const perSeat = root.dataset.perSeat === "true"; // every seat its own team
  const status = document.getElementById("live-status");
  const result = document.getElementById("live-result");
  const app = document.getElementById("live-app");
  const events = []; // every event received, in order
  const items = []; // their entries in the log
  const HAND_ENDS = /^(hand_end|throw_in)$/;
  const parsed = new Map(); // event index -> its table, parsed once
  let last = -1;
  let ended = false;
  let following = true;
  let shown = -1; // the event whose table is drawn
  let pending = false;
  let currentItem = null; // the log's entry of the event drawn
  const ui = {};

  function say(text) {
    if (status) status.textContent = text;
  }

  function teamName(team) {
    return entries[team] !== undefined ? entries[team] : "team " + team;
  }

  function resultText(event) {
    const r = event.result;
    if (!r) return event.text || "The match was abandoned.";
    const scores = r.teams.map((t) => teamName(t.team) + " " + t.score).join(" : ");
    let outcome = "draw";
    if (r.end === "MATCH_END_NO_CONTEST") outcome = "no contest";
    else if (r.end === "MATCH_END_FORFEIT" && r.forfeit_team !== undefined)
      outcome = teamName(r.forfeit_team) + " forfeits";
    else if (r.winner_team !== undefined) outcome = teamName(r.winner_team) + " wins";
    return "Final: " + scores + ", " + outcome + ".";
  }

  function kindOf(event) {
    return event.kind.replace("MATCH_EVENT_KIND_", "").toLowerCase();
  }

  function build() {
    const button = (id, text, label, keys, action) => {
      const b = el("button", { type: "button", id: id, "aria-label": label, "aria-keyshortcuts": keys, title: label + " (" + keys + ")" }, text);
      b.addEventListener("click", action);
      return b;
    };
    // Not a live region: a match posts several events a second, too many to announce.
    ui.position = el("p", { id: "live-position" }, "Waiting for the first event\u2026");
    ui.follow = button("live-follow", "\u25ae\u25ae Pause", "Pause", "Space", () => setFollowing(!following));
    ui.follow.setAttribute("aria-pressed", "false");
    const controls = el(
      "div",
      { class: "controls", role: "toolbar", "aria-label": "Live match controls" },
      ui.follow,
      button("live-back", "\u25c0 Back", "Previous event", "ArrowLeft", () => step(-1)),
      button("live-forward", "Forward \u25b6", "Next event", "ArrowRight", () => step(1)),
      button("live-latest", "Latest \u00bb", "Newest event, following the match", "End", () => setFollowing(true)),
    );
    ui.table = el("div", { id: "live-table" });
    if (!seats) ui.table.append(el("p", { class: "muted" }, "This game's table cannot be drawn here; its events are listed beside."));
    ui.info = el("div", { id: "live-info" });
    ui.score = el("p", { id: "live-score", class: "num" });
    ui.list = el("ol", { id: "live-events", start: "0", "aria-label": "The match's events" });
    ui.list.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-sequence]");
      if (!item) return;
      setFollowing(false);
      show(items.indexOf(item));
    });
    const log = el("div", { id: "live-log" }, el("h3", {}, "Events"), ui.list);
    const keys = el("p", { class: "muted keys" }, "Keys: Space pause/follow, \u2190 \u2192 step, Home/End first/newest event.");
    ui.views = el("div", { class: "views" }, ui.table, el("div", { class: "side" }, ui.info, ui.score, log, keys));
    app.replaceChildren(el("div", { class: "bar" }, ui.position, controls), ui.views);
    document.addEventListener("keydown", onKey);
  }

  function setFollowing(on) {
    following = on;
    ui.follow.textContent = on ? "\u25ae\u25ae Pause" : "\u25b6 Follow";
    ui.follow.setAttribute("aria-label", on ? "Pause" : "Follow the match");
    ui.follow.setAttribute("aria-pressed", on ? "false" : "true");
    app.setAttribute("data-following", String(on));
    if (on) show(events.length - 1);
    else schedule();
  }

  function step(by) {
    if (!events.length) return;
    const target = Math.max(0, Math.min(events.length - 1, shown + by));
    if (target === events.length - 1 && by > 0 && following) return;
    if (following) setFollowing(false);
    show(target);
  }

  function show(index) {
    shown = index;
    schedule();
  }

  // Drawn once a frame at most: a finished match sends all its events at once.
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      render();
    });
  }

  function isGame(event, kinds) {
    return event.kind === "MATCH_EVENT_KIND_GAME" && kinds.test(event.game_kind);
  }

  // What the page shows at event `index`: the table sent with the newest event up to it,
  // and from the events themselves the scores, the hand, what each seat last did in
  // this hand, who faulted and how the last hand ended.
  function viewAt(index) {
    if (!seats || index < 0) return null;
    let at = index;
    while (at >= 0 && !events[at].table_json) at -= 1;
    if (at < 0) return null;
    if (!parsed.has(at)) parsed.set(at, JSON.parse(events[at].table_json));
    const sent = parsed.get(at);
    const v = { seat: sent.seat, table: sent.table, scores: [], said: new Array(seats.length).fill(null), faulted: [], ended: false, result: null, hand: 1 };
    let handStart = -1;
    for (let i = 0; i <= index; i++) {
      const e = events[i];
      if (e.scores && e.scores.length) v.scores = e.scores.slice();
      if (e.kind === "MATCH_EVENT_KIND_ENDED" || isGame(e, /^game_end$/)) {
        v.ended = true;
        if (e.kind === "MATCH_EVENT_KIND_GAME") v.result = e.text;
      } else if (isGame(e, HAND_ENDS)) {
        v.result = e.text;
        v.hand += 1;
        handStart = i;
      }
    }
    if (v.ended && v.hand > 1 && handStart >= 0) v.hand -= 1; // no hand after the last
    for (let i = index; i > handStart; i--) {
      const e = events[i];
      if (e.kind !== "MATCH_EVENT_KIND_GAME" || e.seat === undefined || e.seat >= seats.length) continue;
      if (v.said[e.seat] === null && !/^(trick|hand_end|throw_in)$/.test(e.game_kind)) v.said[e.seat] = e.text.replace(/^Seat \d+ /, "");
    }
    const event = events[index];
    if (event.kind === "MATCH_EVENT_KIND_FAULT" && event.fault) v.faulted = [event.fault.seat];
    if (v.ended) v.seat = null;
    return v;
  }

  function render() {
    if (following) shown = events.length - 1;
    if (shown < 0) return;
    const v = viewAt(shown);
    const event = events[shown];
    const newer = events.length - 1 - shown;
    let where = "Event " + shown + " of " + (events.length - 1);
    if (v) {
      where += " \u00b7 hand " + v.hand;
      if (v.seat !== null) where += " \u00b7 " + "seat " + v.seat + " (" + seats[v.seat].name + ") to act";
      else if (!v.ended) where += " \u00b7 a seat decides in private";
    }
    ui.position.replaceChildren(
      where + " \u00b7 ",
      following
        ? el("span", { class: "following" }, ended ? "the end" : "following the match")
        : el("span", { class: "paused" }, "paused" + (newer ? ", " + newer + " newer event" + (newer === 1 ? "" : "s") : "")),
    );
    if (v) {
      const shownView = {
        game: game,
        direction: direction,
        per_seat: perSeat,
        seats: seats,
        seat: v.seat,
        scores: v.scores,
        faulted: v.faulted,
        chosen: -1,
        said: v.said,
        table: v.table,
      };
      ui.table.replaceChildren(CA.board(shownView));
      const info = [];
      if (event && event.kind === "MATCH_EVENT_KIND_GAME" && /^(hand_end|throw_in)$/.test(event.game_kind)) {
        info.push(el("p", { class: "hand-end", id: "hand-end", role: "status" }, el("strong", {}, "Hand ended: "), event.text));
      } else if (v.result) {
        info.push(el("p", { class: "muted", id: "last-hand" }, (v.ended ? "The end: " : "Last hand: ") + v.result));
      }
      if (event) info.push(el("p", { class: "action", id: "live-action" }, event.text || ""));
      info.push(CA.scores(shownView), CA.facts(shownView));
      ui.info.replaceChildren(...info);
    } else if (seats) {
      ui.table.replaceChildren(
        el("p", { class: "muted", id: "no-table" },
          "No table for this event: the referee sends the table while a match is watched, " +
            "and keeps only the last once it has ended. The replay shows every step."),
      );
    }
    const item = items[shown];
    if (item !== currentItem) {
      if (currentItem) {
        currentItem.classList.remove("current");
        currentItem.removeAttribute("aria-current");
      }
      item.classList.add("current");
      item.setAttribute("aria-current", "step");
      currentItem = item;
    }
    reveal(item);
    app.setAttribute("data-shown", String(shown));
    app.setAttribute("data-events", String(events.length));
    app.setAttribute("data-following", String(following));
  }

  // Scrolls the log, not the page, so that `item` is in sight.
  function reveal(item) {
    if (!item) return;
    const list = ui.list;
    const top = item.offsetTop;
    if (following || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = following ? list.scrollHeight : top + item.offsetHeight - list.clientHeight;
    } else if (top < list.scrollTop) {
      list.scrollTop = top;
    }
  }

  function append(event) {
    const item = document.createElement("li");
    item.dataset.sequence = String(event.sequence);
    item.dataset.kind = kindOf(event);
    let text = event.text;
    if (event.kind === "MATCH_EVENT_KIND_FAULT" && event.fault) {
      const kind = event.fault.kind.replace("FAULT_KIND_", "").toLowerCase();
      text = "fault (" + kind + ") by seat " + event.fault.seat + ": " + (text || event.fault.detail);
      item.className = "fault";
    }
    item.textContent = text;
    ui.list.appendChild(item);
    items.push(item);
    events.push(event);
    if (event.scores && event.scores.length) {
      ui.score.textContent = event.scores.map((s, side) => (perSeat && seats ? seats[side].name : teamName(side)) + " " + s).join(" : ");
    }
    schedule();
  }

  function onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
    if (event.key === " " && tag === "BUTTON") return; // the button's own click
    const actions = {
      " ": () => setFollowing(!following),
      ArrowLeft: () => step(-1),
      ArrowRight: () => step(1),
      Home: () => { setFollowing(false); show(0); },
      End: () => setFollowing(true),
    };
    const action = actions[event.key];
    if (action) { event.preventDefault(); action(); }
  }

  build();
  const source = new EventSource(root.dataset.events);
  say("Following the match as it is played\u2026");
  source.onmessage = function (message) {
    const event = JSON.parse(message.data);
    if (event.sequence <= last) return; // never shown twice
    last = event.sequence;
    append(event);
    if (event.kind === "MATCH_EVENT_KIND_ENDED") {
      ended = true;
      source.close();
      result.textContent = resultText(event);
      say("The match has ended.");
    }
  };
  source.onerror = function () {
    if (ended) return;
    if (source.readyState === EventSource.CLOSED) {
      say(
        last < 0
          ? "This match's events cannot be shown: the referee no longer keeps them, " +
              "or the match is not being played."
          : "The connection was closed; reload the page to follow the match again."
      );
    } else {
      say("Connection lost; reconnecting\u2026");
    }
  };
})();
