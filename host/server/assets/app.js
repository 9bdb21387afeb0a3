// The live parts of the pages and the game replay. Plain JavaScript, no library; every text from
// the server is set with textContent, never as HTML.
"use strict";

function follow(onChange) {
  // Server-Sent Events: one "change" per game or status change.
  const source = new EventSource("/api/events");
  let pending = false;
  source.addEventListener("change", () => {
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; onChange(); }, 300);
  });
}

function ratingText(row) {
  if (row.rating === null || row.rating === undefined) return "unrated";
  if (row.anchor) return Math.round(row.rating) + " (anchor)";
  if (row.error === null || row.error === undefined) return String(Math.round(row.rating));
  return Math.round(row.rating) + " ± " + Math.round(row.error);
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
    document.getElementById("rating").textContent = ratingText(bot);
    document.getElementById("games").textContent = String(bot.games);
    document.getElementById("points").textContent = String(bot.points);
    document.getElementById("failures").textContent = String(bot.failures);
  });
}

function replay(root) {
  const game = JSON.parse(root.dataset.game);
  const svg = document.getElementById("board-svg");
  const list = document.getElementById("moves");
  const plyText = document.getElementById("ply");
  const ns = "http://www.w3.org/2000/svg";
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
    const board = game.positions[ply];
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const bg = document.createElementNS(ns, "rect");
    bg.setAttribute("width", "8"); bg.setAttribute("height", "8"); bg.setAttribute("fill", "#2e7d4f");
    svg.appendChild(bg);
    for (let i = 0; i <= 8; i++) {
      for (const [x1, y1, x2, y2] of [[i, 0, i, 8], [0, i, 8, i]]) {
        const line = document.createElementNS(ns, "line");
        line.setAttribute("x1", x1); line.setAttribute("y1", y1); line.setAttribute("x2", x2); line.setAttribute("y2", y2);
        line.setAttribute("stroke", "#154a2c"); line.setAttribute("stroke-width", "0.03");
        svg.appendChild(line);
      }
    }
    for (let square = 0; square < 64; square++) {
      const c = board[square];
      if (c !== "X" && c !== "O") continue;
      const disc = document.createElementNS(ns, "circle");
      disc.setAttribute("cx", (square % 8) + 0.5); disc.setAttribute("cy", Math.floor(square / 8) + 0.5);
      disc.setAttribute("r", "0.42"); disc.setAttribute("fill", c === "X" ? "#111" : "#f4f4f4");
      svg.appendChild(disc);
    }
    if (ply > 0) {
      const move = game.moves[ply - 1].move;
      if (move !== "pass") {
        const mark = document.createElementNS(ns, "circle");
        mark.setAttribute("cx", move.charCodeAt(0) - 97 + 0.5); mark.setAttribute("cy", Number(move[1]) - 1 + 0.5);
        mark.setAttribute("r", "0.1"); mark.setAttribute("fill", "#e33");
        svg.appendChild(mark);
      }
    }
    plyText.textContent = ply + " / " + game.moves.length;
    Array.from(list.children).forEach((li, i) => li.classList.toggle("current", i === ply - 1));
  }
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(ply - 1));
  document.getElementById("next").addEventListener("click", () => show(ply + 1));
  document.getElementById("last").addEventListener("click", () => show(game.positions.length - 1));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") show(ply - 1);
    if (e.key === "ArrowRight") show(ply + 1);
  });
  show(0);
}

document.addEventListener("DOMContentLoaded", () => {
  const board = document.getElementById("board");
  if (board) liveLeaderboard(board);
  const bot = document.getElementById("bot");
  if (bot) liveBot(bot);
  const game = document.getElementById("replay");
  if (game) replay(game);
  // The login link carries the token after `#token=` (never sent to the server in a URL).
  const token = document.getElementById("token");
  if (token && location.hash.startsWith("#token=")) {
    token.value = decodeURIComponent(location.hash.slice(7));
    history.replaceState(null, "", location.pathname);
  }
});
