// Follows one match on /live/{tournament}/{match}: reads its public events from the
// site's server-sent events (data-events), appends each to #live-events, keeps the
// running score in #live-score and writes the final result in #live-result. EventSource
// reconnects by itself after a dropped connection, sending the last event's id; the
// server resumes after it, so no event is lost or shown twice (the sequence is checked
// here too).
"use strict";

(function () {
  const root = document.getElementById("live");
  if (!root || !root.dataset.events) return;
  const entries = JSON.parse(root.dataset.entries || "[]");
  const list = document.getElementById("live-events");
  const status = document.getElementById("live-status");
  const score = document.getElementById("live-score");
  const result = document.getElementById("live-result");
  let last = -1;
  let ended = false;

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

  function show(event) {
    const item = document.createElement("li");
    item.dataset.sequence = String(event.sequence);
    item.dataset.kind = event.kind.replace("MATCH_EVENT_KIND_", "").toLowerCase();
    let text = event.text;
    if (event.kind === "MATCH_EVENT_KIND_FAULT" && event.fault) {
      const kind = event.fault.kind.replace("FAULT_KIND_", "").toLowerCase();
      text = "fault (" + kind + ") by seat " + event.fault.seat + ": " + (text || event.fault.detail);
      item.className = "fault";
    }
    item.textContent = text;
    list.appendChild(item);
    if (event.scores && event.scores.length) {
      score.textContent = event.scores.map((s, team) => teamName(team) + " " + s).join(" : ");
    }
  }

  const source = new EventSource(root.dataset.events);
  say("Following the match as it is played…");
  source.onmessage = function (message) {
    const event = JSON.parse(message.data);
    if (event.sequence <= last) return; // never shown twice
    last = event.sequence;
    show(event);
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
      say("Connection lost; reconnecting…");
    }
  };
})();
