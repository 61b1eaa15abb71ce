// oms web (ADR 0041): draws the board from the server's stream of events (/api/events; polling
// /api/board when no stream can be had). Every string from the state is put in the page with
// textContent (never innerHTML), so a title cannot script the page. An action is a POST of JSON
// to /api/act carrying the page's CSRF token in a header (the server set it in a cookie too).
"use strict";
const token = new URLSearchParams(location.search).get("t") || "";
const csrf = document.querySelector('meta[name="oms-csrf"]').content;
const api = (path, id) =>
  path + "?t=" + encodeURIComponent(token) + (id ? "&id=" + encodeURIComponent(id) : "");

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function badge(text) {
  if (text === null || text === undefined) return el("span", "–", "dim");
  return el("span", text, "badge " + String(text).replace(/[^a-z-]/g, ""));
}

function age(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  if (seconds < 60) return seconds + " s";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min";
  return Math.floor(seconds / 3600) + " h " + Math.floor((seconds % 3600) / 60) + " min";
}

function row(cells, onPick, key) {
  const tr = el("tr");
  for (const cell of cells) {
    const td = el("td");
    if (cell instanceof Node) td.appendChild(cell);
    else td.textContent = cell === null || cell === undefined ? "–" : String(cell);
    tr.appendChild(td);
  }
  if (onPick) { // a row to pick: by a click, or from the keyboard (Tab to it, Enter or Space)
    tr.className = "pick";
    tr.tabIndex = 0;
    tr.dataset.key = key;
    tr.addEventListener("click", onPick);
    tr.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        onPick();
      }
    });
  }
  return tr;
}

function fill(id, nodes) {
  const box = document.getElementById(id);
  if (nodes.length === 0 && box.tagName === "TBODY") {
    const td = el("td", "none", "dim");
    td.colSpan = 9;
    const tr = el("tr", undefined, "empty");
    tr.appendChild(td);
    nodes = [tr];
  }
  // a redraw keeps the keyboard where it was: the row (or link) of the same key is focused again
  const focused = box.contains(document.activeElement) ? document.activeElement.dataset.key : null;
  box.replaceChildren(...nodes);
  if (focused) {
    const again = [...box.querySelectorAll("[data-key]")].find((n) => n.dataset.key === focused);
    if (again) again.focus();
  }
}

async function getJson(path, id) {
  const answer = await fetch(api(path, id), { cache: "no-store" });
  return answer.json();
}

async function act(action, id) {
  const said = document.getElementById("act-said");
  said.textContent = action + "…";
  try {
    const answer = await fetch(api("/api/act"), {
      method: "POST",
      cache: "no-store",
      headers: { "Content-Type": "application/json", "X-OMS-CSRF": csrf },
      body: JSON.stringify({ action, id, text: document.getElementById("act-text").value }),
    });
    const doc = await answer.json();
    if (doc.ok && doc.running) { // a verify: under way; its outcome comes with the board
      said.textContent = doc.said;
      verifying = doc.run;
      if (lastBoard) verified(lastBoard); // it may have ended before this answer came
      return;
    }
    said.textContent = doc.ok ? doc.said : "refused: " + doc.error + (doc.hint ? " (" + doc.hint + ")" : "");
    said.dataset.outcome = doc.ok ? "ok" : "refused";
  } catch (err) {
    said.textContent = "failed: " + err.message;
    said.dataset.outcome = "failed";
  }
}

let picked = null; // what the buttons act on: {kind, id, names}, offered again as its state moves
let verifying = null; // the number of the verify this page started and waits on, if any
let lastBoard = null; // the board last drawn

function verified(doc) { // the verify this page started has ended: say what it found
  if (verifying === null) return;
  const v = (doc.verifies || []).find((x) => x.run === verifying);
  if (!v || v.state === "running") return;
  verifying = null;
  const said = document.getElementById("act-said");
  said.textContent = v.said;
  said.dataset.outcome = v.state === "error" ? "refused" : "ok";
}

function buttons(id, names) {
  fill("act-buttons", names.map((name) => {
    const button = el("button", name);
    button.type = "button";
    button.dataset.action = name;
    button.dataset.key = name; // a redraw keeps the keyboard on the same button
    button.addEventListener("click", () => act(name, id));
    return button;
  }));
}

function offer(kind, id, names) {
  const box = document.getElementById("actions");
  box.hidden = false;
  document.getElementById("act-said").textContent = "";
  picked = { kind, id, names: names.join() };
  verifying = null; // another pick: the verify's outcome shows in the list of verifies
  buttons(id, names);
}

function offerAgain(doc) { // a stopped worker offers no stop, a reopened ticket no reopen
  if (picked === null) return;
  let names = null;
  if (picked.kind === "worker") {
    const w = doc.workers.find((x) => x.id === picked.id);
    if (w) names = workerActions(w.health);
  } else if (picked.kind === "ticket") {
    const t = doc.queue.find((x) => x.id === picked.id);
    if (t) names = t.state === "blocked" ? ["reopen"] : [];
  } else if (picked.kind === "approval") { // approved, rejected or lapsed: nothing to decide
    names = doc.queue.some((x) => x.awaiting === picked.id) ? ["approve", "reject"] : [];
  }
  if (names === null || names.join() === picked.names) return;
  picked.names = names.join();
  buttons(picked.id, names);
}

// what a worker's health lets a person do beyond send and cancel: stop one not stopped yet,
// resume a parked (or stalled) one (what `oms worker stop|resume` accept)
function workerActions(health) {
  const names = ["send", "cancel"];
  if (health && health !== "stopped") names.push("stop");
  if (health === "parked" || health === "stalled") names.push("resume");
  return names;
}

let showing = 0; // the detail asked for last: an answer to an earlier pick is not drawn

function views(parts) { // the detail's views: [heading, id, text] each, drawn as text
  const nodes = [];
  for (const [heading, id, text] of parts) {
    nodes.push(el("h3", heading));
    const pre = el("pre", text || "(empty)");
    pre.id = id;
    nodes.push(pre);
  }
  const box = document.getElementById("views");
  box.replaceChildren(...nodes);
  if (parts.length === 0) delete box.dataset.shown;
}

async function showWorker(id, health) {
  const mine = ++showing;
  document.getElementById("detail-title").textContent = "Worker " + id;
  offer("worker", id, workerActions(health));
  document.getElementById("act-text").focus(); // the keyboard goes on to the message
  document.getElementById("detail").textContent = "";
  views([]);
  const doc = await getJson("/api/worker", id);
  if (mine !== showing) return;
  if (!doc.ok) {
    document.getElementById("detail").textContent = doc.error;
    return;
  }
  const timeline = doc.timeline.map((e) => e.at + "  " + e.kind + "  " + e.what);
  if (doc.timeline_fault) timeline.push("the ledger breaks here: " + doc.timeline_fault);
  views([
    ["Timeline (its last " + doc.timeline_limit + " entries, oldest first)", "timeline",
      timeline.join("\n")],
    ["Pane log (its last " + Math.round(doc.log_tail_bytes / 1024) + " KiB)", "panelog",
      doc.lines.map((l) => (l.at ? l.at + "  " : "") + l.text).join("\n")],
  ]);
  document.getElementById("views").dataset.shown = id;
}

function verifyText(v) { // the latest verification, each check with the tail of its output
  if (!v) return "not verified yet";
  const lines = [(v.passed ? "passed" : "failed") + (v.current ? ", current" : "")
    + (v.stale ? " (stale: " + v.stale + ")" : "") + "   evidence " + v.evidence];
  for (const c of v.checks) {
    lines.push("exit " + c.exit_code + "  " + (c.argv || []).join(" "));
    lines.push(c.output_tail);
  }
  return lines.join("\n");
}

async function showResult(id) {
  const mine = ++showing;
  document.getElementById("detail-title").textContent = "Result of dispatch " + id;
  offer("result", id, ["verify", "merge", "request-changes"]);
  document.getElementById("act-text").focus();
  document.getElementById("detail").textContent = "";
  views([]);
  const doc = await getJson("/api/result", id);
  if (mine !== showing) return;
  if (!doc.ok) {
    document.getElementById("detail").textContent = doc.error;
    return;
  }
  const lines = [
    doc.ticket_id + "  " + doc.ticket_title,
    "status: " + doc.status + "   branch: " + doc.branch
      + (doc.target ? "   into: " + doc.target.branch : ""),
    "summary: " + (doc.summary || ""),
  ];
  if (doc.target && doc.target.conflict) lines.push("conflict: " + doc.target.conflict);
  document.getElementById("detail").textContent = lines.join("\n");
  const parts = [["Verify output", "verify", verifyText(doc.verification)]];
  views(parts);
  if (!doc.target) return; // not a completed result: no diff
  const change = await getJson("/api/diff", id);
  if (mine !== showing) return;
  if (!change.ok) {
    parts.push(["Diff", "diff", change.error]);
  } else {
    parts.push(["Diff stat", "stat", change.stat]);
    parts.push(["Diff (into " + change.target + ")", "diff", change.diff]);
  }
  views(parts);
  document.getElementById("views").dataset.shown = id;
}

// a blocked (or quarantined) ticket: a person may reopen it; one whose dispatch waits for a
// person: they approve or reject that very dispatch (not whatever the ticket proposes next)
function showTicket(t) {
  showing++;
  views([]);
  document.getElementById("detail-title").textContent = "Ticket " + t.id + " (" + t.state + ")";
  if (t.awaiting) offer("approval", t.awaiting, ["approve", "reject"]);
  else offer("ticket", t.id, ["reopen"]);
  document.getElementById("act-text").focus(); // the reason
  document.getElementById("detail").textContent = t.title + "\n" + (t.reason || "");
}

function draw(doc) {
  fill("warnings", doc.warnings.map((w) => el("li", w)));
  document.getElementById("workers-count").textContent = "(" + doc.workers.length + ")";
  fill("workers", doc.workers.map((w) => row(
    [w.id, w.ticket_id, w.title, badge(w.dispatch_state), badge(w.health), w.reason,
      age(w.heartbeat_age_s),
      age(w.running_s)],
    () => showWorker(w.id, w.health), w.id)));
  offerAgain(doc);
  document.getElementById("queue-count").textContent = doc.queue.length < doc.queue_total
    ? "(the first " + doc.queue.length + " of " + doc.queue_total + ")"
    : "(" + doc.queue.length + ")";
  fill("queue", doc.queue.map((t) => row([t.id, badge(t.state), t.title, t.reason],
    t.state === "blocked" || t.awaiting ? () => showTicket(t) : null, t.id)));
  const pool = doc.pool;
  if (pool.error) fill("pool", [el("span", pool.error, "dim")]);
  else fill("pool", (pool.slots || []).map((s) =>
    el("span", s.name + " · " + s.state, "slot " + String(s.state).replace(/[^a-z-]/g, ""))));
  fill("verifies", (doc.verifies || []).slice().reverse().map((v) =>
    el("li", v.said, "verify " + String(v.state).replace(/[^a-z]/g, ""))));
  verified(doc);
  fill("results", doc.results.map((r) => {
    const li = el("li");
    const link = el("a", r.dispatch_id + " (" + r.ticket_id + ", " + r.state + ")");
    link.href = "#";
    link.dataset.key = r.dispatch_id;
    link.addEventListener("click", (e) => { e.preventDefault(); showResult(r.dispatch_id); });
    li.appendChild(link);
    return li;
  }));
}

async function drawAudit() {
  const doc = await getJson("/api/audit");
  if (!doc.ok) return;
  fill("audit", doc.entries.slice().reverse().map((e) => row([e.at, "#" + e.seq, e.kind, e.what])));
}

function shown(doc, how) {
  if (!doc.ok) throw new Error(doc.error);
  lastBoard = doc;
  draw(doc);
  drawAudit();
  document.getElementById("status").textContent = "updated " + doc.now + " (" + how + ")";
  document.body.dataset.updated = doc.now;
  document.body.dataset.live = how;
}

async function tick() {
  let wait = 1000;
  try {
    const doc = await getJson("/api/board");
    wait = doc.poll_ms || wait;
    shown(doc, "polled");
  } catch (err) {
    document.getElementById("status").textContent = "cannot read the board: " + err.message;
  }
  setTimeout(tick, wait);
}

function live() {
  const stream = new EventSource(api("/api/events"));
  let opened = false;
  stream.onmessage = (e) => {
    opened = true;
    try {
      shown(JSON.parse(e.data), "live");
    } catch (err) {
      document.getElementById("status").textContent = "cannot read the board: " + err.message;
    }
  };
  stream.addEventListener("end", () => {
    stream.close();
    document.getElementById("status").textContent = "the server ended (oms web stopped)";
    document.body.dataset.live = "ended";
  });
  stream.onerror = () => {
    if (!opened) { // no stream to be had (too many open): ask instead
      stream.close();
      tick();
    }
  };
}

live();
