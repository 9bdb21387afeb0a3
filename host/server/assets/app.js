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
  follow(async () => {
    const response = await fetch("/api/leaderboard");
    if (!response.ok) return;
    const rows = await response.json();
    const body = document.createElement("tbody");
    for (const row of rows) {
      const tr = document.createElement("tr");
      cell(tr, row.rank === null ? "–" : String(row.rank));
      cell(tr, row.name, "name");
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
      if (played !== document.querySelectorAll("#games-list tr.test").length) { location.reload(); return; }
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

function arena() {
  const svg = document.getElementById("board-svg");
  const players = document.getElementById("arena-players");
  const moveText = document.getElementById("arena-move");
  const table = document.getElementById("arena-standings");
  let game = null, ply = 0, waiting = false;
  async function standings() {
    const response = await fetch("/api/leaderboard");
    if (!response.ok) return;
    const body = document.createElement("tbody");
    for (const row of (await response.json()).slice(0, 12)) {
      const tr = document.createElement("tr");
      cell(tr, row.rank === null ? "–" : String(row.rank));
      cell(tr, row.name, "name");
      cell(tr, row.entrant === null ? "(pool)" : row.entrant);
      cell(tr, ratingText(row));
      cell(tr, String(row.games));
      body.appendChild(tr);
    }
    table.replaceChild(body, table.tBodies[0]);
  }
  async function newest() {
    const response = await fetch("/api/games/latest");
    if (!response.ok) return;
    const latest = await response.json();
    if (game === null || latest.id !== game.id) {
      game = latest;
      ply = 0;
      players.textContent = "● " + game.black + "  –  ○ " + game.white;
      drawBoard(svg, game.positions[0], null);
    }
  }
  function step() {
    if (game === null || waiting) return;
    if (ply < game.positions.length - 1) {
      ply++;
      const move = game.moves[ply - 1];
      drawBoard(svg, game.positions[ply], move.move);
      let text = ply + ". " + move.move + "  " + move.ms + " ms";
      if (move.eval !== null && move.eval !== undefined) text += "  eval " + move.eval.toFixed(1);
      moveText.textContent = text;
    } else {
      moveText.textContent = game.result + " (" + game.termination + ")";
      waiting = true;
      setTimeout(async () => { await newest(); waiting = false; }, 3000);
    }
  }
  follow(standings);
  standings();
  newest();
  setInterval(step, 400);
}

function replay(root) {
  const game = JSON.parse(root.dataset.game);
  const svg = document.getElementById("board-svg");
  const list = document.getElementById("moves");
  const plyText = document.getElementById("ply");
  let ply = 0;
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
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(ply - 1));
  document.getElementById("next").addEventListener("click", () => show(ply + 1));
  document.getElementById("last").addEventListener("click", () => show(game.positions.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") show(ply - 1);
    if (e.key === "ArrowRight") show(ply + 1);
  });
  // A link may point at a move: /games/12#ply=30.
  const linked = /ply=(\d+)/.exec(location.hash);
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
  const game = document.getElementById("replay");
  if (game) replay(game);
  if (document.getElementById("arena")) arena();
  // The login link carries the token after `#token=` (never sent to the server in a URL).
  const token = document.getElementById("token");
  if (token && location.hash.startsWith("#token=")) {
    token.value = decodeURIComponent(location.hash.slice(7));
    history.replaceState(null, "", location.pathname);
  }
});
