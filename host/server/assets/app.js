// The live parts of the pages and the game replay. Plain JavaScript, no library; every text from
// the server is set with textContent, never as HTML.
"use strict";

function follow(onChange) {
  // Server-Sent Events: one "change" per game or status change.
  const source = new EventSource("/api/events");
  let pending = false;
  const changed = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; onChange(); }, 300);
  };
  source.addEventListener("change", changed);
  // What changed between the page's rendering and the subscription is caught up once.
  source.addEventListener("open", changed);
}

// The server writes ratings in the project's one Elo format; the page shows them as they come.
function ratingText(row) {
  return row.rating_text || "unrated";
}

function cell(tr, text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  tr.appendChild(td);
  return td;
}

function liveLeaderboard(table) {
  // The logged-in entrant's name (absent for a visitor): its rows stay highlighted.
  const me = table.dataset.me;
  follow(async () => {
    const response = await fetch("/api/leaderboard");
    if (!response.ok) return;
    const rows = await response.json();
    const body = document.createElement("tbody");
    for (const row of rows) {
      const tr = document.createElement("tr");
      if (me !== undefined && row.entrant === me) tr.className = "mine";
      cell(tr, row.rank === null ? "–" : String(row.rank));
      const name = cell(tr, "", "name");
      const link = document.createElement("a");
      link.href = "/entries/" + row.entry;
      link.textContent = row.name;
      name.appendChild(link);
      cell(tr, row.entrant === null ? "(pool)" : row.entrant);
      const version = cell(tr, "v" + row.version + " ");
      const code = document.createElement("code");
      code.textContent = row.hash;
      version.appendChild(code);
      cell(tr, ratingText(row));
      cell(tr, String(row.games));
      cell(tr, row.score === null ? "" : (100 * row.score).toFixed(1) + " %");
      cell(tr, String(row.failures));
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
  });
}

// A part of the page drawn by the server, fetched again after each change: the same rendering
// as a reload (links, highlighting, buttons), without losing what is typed or chosen elsewhere.
function livePart(element) {
  follow(async () => {
    const response = await fetch(location.pathname + location.search, { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById(element.id);
    if (!fresh) { location.reload(); return; }
    element.replaceWith(fresh);
    element = fresh;
  });
}

function liveBot(dl) {
  const id = dl.dataset.id;
  follow(async () => {
    const response = await fetch("/api/bots/" + id);
    if (!response.ok) return;
    const bot = await response.json();
    if (bot.status !== dl.dataset.status) { location.reload(); return; }
    // Test games waiting: the page shows them once played.
    if (document.getElementById("test-pending")) {
      const games = await fetch("/api/bots/" + id + "/games");
      if (!games.ok) return;
      const played = (await games.json()).filter((g) => g.kind === "test").length;
      if (played !== document.querySelectorAll("#test-games-list tbody tr").length) { location.reload(); return; }
    }
    document.getElementById("rating").textContent = ratingText(bot);
    document.getElementById("games").textContent = String(bot.games);
    document.getElementById("points").textContent = String(bot.points);
    document.getElementById("failures").textContent = String(bot.failures);
  });
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svgElement(name, attributes) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

// Draws a board string (64 squares a1, b1 … h8 as X, O or -) and marks the last move.
function drawBoard(svg, board, lastMove) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.appendChild(svgElement("rect", { width: 8, height: 8, fill: "#2e7d4f" }));
  for (let i = 0; i <= 8; i++) {
    svg.appendChild(svgElement("line", { x1: i, y1: 0, x2: i, y2: 8, stroke: "#154a2c", "stroke-width": 0.03 }));
    svg.appendChild(svgElement("line", { x1: 0, y1: i, x2: 8, y2: i, stroke: "#154a2c", "stroke-width": 0.03 }));
  }
  for (let square = 0; square < 64; square++) {
    const c = board[square];
    if (c !== "X" && c !== "O") continue;
    svg.appendChild(svgElement("circle", {
      cx: (square % 8) + 0.5, cy: Math.floor(square / 8) + 0.5, r: 0.42, fill: c === "X" ? "#111" : "#f4f4f4",
    }));
  }
  if (lastMove && lastMove !== "pass") {
    svg.appendChild(svgElement("circle", {
      cx: lastMove.charCodeAt(0) - 97 + 0.5, cy: Number(lastMove[1]) - 1 + 0.5, r: 0.1, fill: "#e33",
    }));
  }
}

// Runs `work` at most once per `ms`, the last call included (bursts of events collapse).
function throttled(work, ms) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setTimeout(async () => { pending = false; await work(); }, ms);
  };
}

function seconds(ms) {
  return (ms / 1000).toFixed(1) + " s";
}

function evalText(move) {
  if (move.eval === null || move.eval === undefined) return "";
  let text = "  eval " + (move.eval > 0 ? "+" : "") + move.eval.toFixed(1);
  if (move.depth !== null && move.depth !== undefined) text += " (depth " + move.depth + ")";
  return text;
}

// The arena screen: the game being played now, move by move (the final's first), switching to
// another when it ends; the final's standings (or bracket) while a final runs and its winner
// after, else the leaderboard. With no game being played it replays the newest recorded one.
// The server draws all of it first (the page works without a script).
function arena() {
  const svg = document.getElementById("board-svg");
  const title = document.getElementById("arena-title");
  const players = document.getElementById("arena-players");
  const clocks = document.getElementById("arena-clocks");
  const moveText = document.getElementById("arena-move");
  const HOLD_MS = 4000; // an ended game stays this long before the screen moves on
  let shown = null, endedAt = 0;
  let replayGame = null, replayPly = 0, replayWaiting = false;

  function draw(board, lastMove) {
    drawBoard(svg, board, lastMove);
    svg.dataset.board = board;
  }

  // A bot is never shown without its entrant (the pool's bots have none).
  function withEntrant(name, entrant) {
    return entrant ? name + " (" + entrant + ")" : name;
  }

  function showLive(game) {
    const ply = game.positions.length - 1;
    const last = ply > 0 ? game.moves[ply - 1] : null;
    draw(game.positions[ply], last ? last.move : null);
    title.textContent = game.title;
    players.textContent = "● " + withEntrant(game.black, game.black_entrant) + "  –  ○ " + withEntrant(game.white, game.white_entrant);
    let clock = "● " + seconds(game.used_ms[0]) + "    ○ " + seconds(game.used_ms[1]);
    if (game.time_limit_ms) {
      const limit = game.time_limit_ms;
      clock += "    (" + (limit >= 10000 && limit % 1000 === 0 ? limit / 1000 + " s" : limit + " ms") + " a move)";
    }
    clocks.textContent = clock;
    if (game.result) moveText.textContent = game.result;
    else if (last) moveText.textContent = ply + ". " + (last.color === "X" ? "● " : "○ ") + last.move + "  " + last.ms + " ms" + evalText(last);
    else moveText.textContent = "From the opening…";
  }

  let holdTimer = null;
  function lookAgainIn(ms) {
    if (holdTimer !== null) return;
    holdTimer = setTimeout(() => { holdTimer = null; live(); }, ms);
  }

  async function live() {
    const response = await fetch("/api/live");
    if (!response.ok) return;
    const games = await response.json();
    const now = Date.now();
    let current = shown ? games.find((g) => g.live_id === shown.live_id) : undefined;
    if (current && current.result) {
      if (!endedAt) endedAt = now;
      const playing = games.find((g) => !g.result);
      if (now - endedAt >= HOLD_MS && playing) current = undefined;
      else lookAgainIn(Math.max(0, HOLD_MS - (now - endedAt)) + 100);
    }
    if (!current) {
      const next = games.find((g) => !g.result) || games[0];
      if (!next) { if (replayGame === null) newestReplay(); return; }
      current = next;
      endedAt = 0;
      if (current.result) { endedAt = now; lookAgainIn(HOLD_MS + 100); }
    }
    shown = current;
    replayGame = null;
    showLive(shown);
  }

  // No game being played: the newest recorded game, replayed move by move.
  async function newestReplay() {
    const response = await fetch("/api/games/latest");
    if (!response.ok || shown !== null) return;
    const latest = await response.json();
    if (replayGame === null || latest.id !== replayGame.id) {
      replayGame = latest;
      replayPly = 0;
      title.textContent = "Game #" + latest.id + " (replay)";
      players.textContent = "● " + withEntrant(latest.black, latest.black_entrant) + "  –  ○ " + withEntrant(latest.white, latest.white_entrant);
      clocks.textContent = "";
      draw(latest.positions[0], null);
    }
  }
  function replayStep() {
    if (replayGame === null || replayWaiting || shown !== null) return;
    if (replayPly < replayGame.positions.length - 1) {
      replayPly++;
      const move = replayGame.moves[replayPly - 1];
      draw(replayGame.positions[replayPly], move.move);
      moveText.textContent = replayPly + ". " + move.move + "  " + move.ms + " ms" + evalText(move);
    } else {
      moveText.textContent = replayGame.outcome + ", " + replayGame.ending;
      replayWaiting = true;
      setTimeout(async () => { await newestReplay(); replayWaiting = false; }, 3000);
    }
  }

  // The standings (the final's, with its winner once it ends, else the leaderboard) are drawn by
  // the server: the part is fetched again after each change, as a reload would show it.
  async function standings() {
    const response = await fetch("/arena", { headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("arena-side");
    const side = document.getElementById("arena-side");
    if (fresh && side) side.replaceWith(fresh);
  }

  const source = new EventSource("/api/events");
  source.addEventListener("change", throttled(async () => { await standings(); if (shown === null) await newestReplay(); }, 300));
  source.addEventListener("live", throttled(live, 100));
  standings();
  live();
  setInterval(replayStep, 400);
}

function replay(root) {
  const game = JSON.parse(root.dataset.game);
  const svg = document.getElementById("board-svg");
  const list = document.getElementById("moves");
  const plyText = document.getElementById("ply");
  let ply = 0;
  list.replaceChildren(); // the page's own list (for browsers without JavaScript) is redrawn here
  game.moves.forEach((move, i) => {
    const li = document.createElement("li");
    let text = (move.color === "X" ? "● " : "○ ") + move.move + "  " + move.ms + " ms";
    if (move.eval !== null && move.eval !== undefined) text += "  eval " + move.eval.toFixed(1);
    li.textContent = text;
    li.addEventListener("click", () => show(i + 1));
    list.appendChild(li);
  });
  function show(n) {
    ply = Math.max(0, Math.min(game.positions.length - 1, n));
    drawBoard(svg, game.positions[ply], ply > 0 ? game.moves[ply - 1].move : null);
    plyText.textContent = ply + " / " + game.moves.length;
    Array.from(list.children).forEach((li, i) => li.classList.toggle("current", i === ply - 1));
    if (ply > 0) list.children[ply - 1].scrollIntoView({ block: "nearest" });
  }
  // The controls are links to a page per position; here they step in place.
  const step = (id, to) =>
    document.getElementById(id).addEventListener("click", (e) => {
      e.preventDefault();
      show(to());
    });
  step("first", () => 0);
  step("prev", () => ply - 1);
  step("next", () => ply + 1);
  step("last", () => game.positions.length - 1);
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") show(ply - 1);
    if (e.key === "ArrowRight") show(ply + 1);
  });
  // A link may point at a move: /games/12#ply=30.
  const linked = /ply=(\d+)/.exec(location.hash) || /ply=(\d+)/.exec(location.search);
  show(linked ? Number(linked[1]) : 0);
}

// The rating-history plot is an SVG image drawn by the server: reloaded after changes, at most
// every few seconds (each reload is a refit on the server's side, cached per change).
function livePlot(img) {
  let last = 0;
  follow(() => {
    const now = Date.now();
    if (now - last < 5000) return;
    last = now;
    const url = new URL(img.src, location.href);
    url.searchParams.set("v", String(now));
    img.src = url.pathname + url.search;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["history-plot", "bot-history"]) {
    const plot = document.getElementById(id);
    if (plot) livePlot(plot);
  }
  const board = document.getElementById("board");
  if (board) liveLeaderboard(board);
  const bot = document.getElementById("bot");
  if (bot) liveBot(bot);
  // Your bots (/me) update as the leaderboard does.
  const versions = document.getElementById("versions");
  if (versions) livePart(versions);
  const game = document.getElementById("replay");
  if (game) replay(game);
  if (document.getElementById("arena")) arena();
  // The final's page reloads itself while the final is being played, and when another starts.
  const finalLive = document.getElementById("final-live");
  if (finalLive) {
    follow(async () => {
      if (finalLive.dataset.status === "running") { location.reload(); return; }
      const answer = await fetch("/api/final");
      const id = answer.ok ? String((await answer.json()).id) : "";
      if (id !== finalLive.dataset.final) location.reload();
    });
  }
  // The login link carries the token after `#token=` (never sent to the server in a URL).
  const token = document.getElementById("token");
  if (token && location.hash.startsWith("#token=")) {
    token.value = decodeURIComponent(location.hash.slice(7));
    history.replaceState(null, "", location.pathname);
  }
});
