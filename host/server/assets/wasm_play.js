// WebAssembly bots in the page: the rules of Othello, the host of a bot module (the ABI through
// the module's buffer, the deterministic WASI imports, fuel), a game against the visitor
// (`/entries/ID/play`) and the re-computation of a recorded game between two modules (a game
// page's "Re-compute in this browser").
//
// The module is the server's metered copy (`/entries/ID/bot.wasm`): it counts its own fuel in
// the exported global `othello_fuel_used`, exactly as wasmtime counts it on the server, so its
// virtual clocks (fuel as time) and random numbers (the game's seed) are the server's, and so are
// its moves. Everything here mirrors `othello-wasm` (host.rs, player.rs, lib.rs): keep them alike.
"use strict";

(function () {
  const FUEL_PER_MS = 20000000n;
  const VIRTUAL_EPOCH_NS = 1767225600n * 1000000000n;
  const UNLIMITED_MOVE_MS = 3600000n;
  const BUFFER_SIZE = 4096;
  const INFO_OFFSET = 64;
  const SEARCH_INFO_BYTES = 40;
  const MASK64 = (1n << 64n) - 1n;
  const PASS = 0xff;
  const MOVE_ERROR = 0xfe;
  const WASI = "wasi_snapshot_preview1";
  const [SUCCESS, BADF, FAULT, INVAL, SPIPE] = [0, 8, 21, 28, 70];

  // ---- Rules: bit 8*row + col, a1 = bit 0 --------------------------------------------------
  const DIRS = [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];
  const bit = (sq) => 1n << BigInt(sq);
  function flips(me, you, sq) {
    if (((me | you) & bit(sq)) !== 0n) return 0n;
    let flipped = 0n;
    for (const [dr, dc] of DIRS) {
      let line = 0n;
      let r = (sq >> 3) + dr, c = (sq & 7) + dc;
      while (r >= 0 && r < 8 && c >= 0 && c < 8 && (you & bit(r * 8 + c)) !== 0n) {
        line |= bit(r * 8 + c);
        r += dr;
        c += dc;
      }
      if (line !== 0n && r >= 0 && r < 8 && c >= 0 && c < 8 && (me & bit(r * 8 + c)) !== 0n) flipped |= line;
    }
    return flipped;
  }
  // A position: {black, white (BigInt), toMove: "X" | "O"}.
  function mover(p) {
    return p.toMove === "X" ? [p.black, p.white] : [p.white, p.black];
  }
  function legalMoves(p) {
    const [me, you] = mover(p);
    let legal = 0n;
    for (let sq = 0; sq < 64; sq++) if (flips(me, you, sq) !== 0n) legal |= bit(sq);
    return legal;
  }
  // The position after `sq` (-1: a pass) by the side to move; null when it is not legal.
  function play(p, sq) {
    const legal = legalMoves(p);
    const next = p.toMove === "X" ? "O" : "X";
    if (sq < 0) return legal === 0n ? { black: p.black, white: p.white, toMove: next } : null;
    if ((legal & bit(sq)) === 0n) return null;
    const [me, you] = mover(p);
    const f = flips(me, you, sq);
    const [mine, theirs] = [me | f | bit(sq), you & ~f];
    return p.toMove === "X"
      ? { black: mine, white: theirs, toMove: next }
      : { black: theirs, white: mine, toMove: next };
  }
  function gameOver(p) {
    return legalMoves(p) === 0n && legalMoves({ ...p, toMove: p.toMove === "X" ? "O" : "X" }) === 0n;
  }
  function count(b) {
    let n = 0;
    for (; b !== 0n; b &= b - 1n) n++;
    return n;
  }
  function parseBoard(text) {
    let black = 0n, white = 0n;
    for (let sq = 0; sq < 64; sq++) {
      if (text[sq] === "X") black |= bit(sq);
      if (text[sq] === "O") white |= bit(sq);
    }
    return { black, white, toMove: text.trim().slice(-1) === "O" ? "O" : "X" };
  }
  const START = parseBoard("---------------------------OX------XO--------------------------- X");
  const squareName = (sq) => "abcdefgh"[sq & 7] + ((sq >> 3) + 1);
  const moveName = (sq) => (sq < 0 ? "pass" : squareName(sq));

  // ---- SplitMix64, the host's random numbers ---------------------------------------------------
  class SplitMix64 {
    constructor(seed) { this.state = BigInt.asUintN(64, seed); }
    next() {
      this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK64;
      let z = this.state;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
      return z ^ (z >> 31n);
    }
  }
  const rotl = (x, n) => ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK64;
  // The game's seed: the seat's mixed with the first position its bot is asked about.
  function gameSeed(seed, p) {
    const mixed = new SplitMix64(BigInt(seed) ^ rotl(p.black, 17) ^ rotl(p.white, 41));
    return mixed.next() ^ (p.toMove === "O" ? 1n : 0n);
  }

  // ---- A bot module's instance: the imports, fuel and calls ---------------------------------
  class Exit { constructor(code) { this.code = code; } }
  class Failure extends Error {
    constructor(loss, detail) { super(detail); this.loss = loss; }
  }

  class Bot {
    constructor(module, seed, loadFuel) {
      this.module = module;
      this.random = new SplitMix64(BigInt(seed));
      this.loadFuel = loadFuel;
      this.output = [];
      this.spentBefore = 0n;
      this.given = loadFuel;
      this.callStart = 0n;
    }
    async start() {
      const imports = { [WASI]: this.wasi() };
      this.instance = await WebAssembly.instantiate(this.module, imports);
      this.x = this.instance.exports;
      if (this.x._initialize) this.call("start-up", this.loadFuel, () => this.x._initialize());
    }
    view() { return new DataView(this.x.memory.buffer); }
    used() { return this.x ? this.x.othello_fuel_used.value : 0n; }
    // Fuel used by this instance so far, as wasmtime's store gives it (a call's share is at most
    // the fuel it was given).
    fuelUsed() {
      const inCall = this.used() - this.callStart;
      return this.spentBefore + (inCall < this.given ? inCall : this.given);
    }
    virtualNs() { return (this.fuelUsed() * 1000000n) / FUEL_PER_MS; }
    // Runs `f` on `fuel`: its result and the fuel it used, or a named failure.
    call(what, fuel, f) {
      this.spentBefore = this.fuelUsed();
      this.given = fuel;
      this.callStart = this.used();
      this.x.othello_fuel_limit.value = this.callStart + fuel;
      try {
        const result = f();
        return [result, this.fuelUsed() - this.spentBefore];
      } catch (e) {
        if (this.x.othello_out_of_fuel.value === 1) {
          throw new Failure("timeout", `used all its fuel in ${what}: ${fuel} units`);
        }
        if (e instanceof Exit) throw new Failure("crash", `exited with code ${e.code} in ${what}`);
        throw new Failure("crash", `trapped: ${e && e.message ? e.message : e} in ${what}`);
      }
    }
    write(address, bytes) {
      const memory = new Uint8Array(this.x.memory.buffer);
      if (address + bytes.length > memory.length) return false;
      memory.set(bytes, address);
      return true;
    }
    read(address, length) {
      const memory = new Uint8Array(this.x.memory.buffer);
      if (address + length > memory.length) return null;
      return memory.slice(address, address + length);
    }
    cString(address) {
      if (address === 0) return null;
      const memory = new Uint8Array(this.x.memory.buffer);
      let end = address;
      while (end < memory.length && end - address < 4096 && memory[end] !== 0) end++;
      return new TextDecoder().decode(memory.slice(address, end));
    }
    buffer(fuel) {
      const [address] = this.call("othello_wasm_buffer", fuel, () => this.x.othello_wasm_buffer() >>> 0);
      if (address + BUFFER_SIZE > this.x.memory.buffer.byteLength) {
        throw new Failure("crash", "othello_wasm_buffer() returned an address outside its memory");
      }
      return address;
    }
    // The imports: WASI preview 1's deterministic few, as othello-wasm's host.rs gives them.
    wasi() {
      const ok = (done) => (done ? SUCCESS : FAULT);
      const put64 = (address, value) => {
        const bytes = new Uint8Array(8);
        new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
        return this.write(address, bytes);
      };
      const put32 = (address, value) => {
        const bytes = new Uint8Array(4);
        new DataView(bytes.buffer).setUint32(0, value >>> 0, true);
        return this.write(address, bytes);
      };
      const emptyList = (count, size) => ok(put32(count >>> 0, 0) && put32(size >>> 0, 0));
      return {
        args_sizes_get: emptyList,
        environ_sizes_get: emptyList,
        args_get: () => SUCCESS,
        environ_get: () => SUCCESS,
        clock_res_get: (id, out) => (id < 0 || id > 3 ? INVAL : ok(put64(out >>> 0, 1n))),
        clock_time_get: (id, _precision, out) => {
          if (id < 0 || id > 3) return INVAL;
          const now = id === 0 ? VIRTUAL_EPOCH_NS + this.virtualNs() : this.virtualNs();
          return ok(put64(out >>> 0, now));
        },
        fd_close: (fd) => (fd >= 0 && fd <= 2 ? SUCCESS : BADF),
        fd_fdstat_get: (fd, out) => {
          if (fd < 0 || fd > 2) return BADF;
          const stat = new Uint8Array(24);
          stat[0] = 2;
          if (fd !== 0) stat[8] = 1 << 6;
          return ok(this.write(out >>> 0, stat));
        },
        fd_fdstat_set_flags: () => BADF,
        fd_prestat_get: () => BADF,
        fd_prestat_dir_name: () => BADF,
        fd_seek: (fd) => (fd >= 0 && fd <= 2 ? SPIPE : BADF),
        fd_write: (fd, iovs, n, written) => {
          if (fd !== 1 && fd !== 2) return BADF;
          const list = this.read(iovs >>> 0, (n >>> 0) * 8);
          if (!list) return FAULT;
          const v = new DataView(list.buffer);
          let total = 0;
          for (let i = 0; i < n >>> 0; i++) {
            const bytes = this.read(v.getUint32(i * 8, true), v.getUint32(i * 8 + 4, true));
            if (!bytes) return FAULT;
            this.output.push(new TextDecoder().decode(bytes));
            if (this.output.length > 40) this.output.shift();
            total += bytes.length;
          }
          return ok(put32(written >>> 0, total));
        },
        proc_exit: (code) => { throw new Exit(code >>> 0); },
        random_get: (out, len) => {
          const bytes = new Uint8Array(Math.ceil((len >>> 0) / 8) * 8);
          if (bytes.length > 1 << 24) return INVAL;
          const v = new DataView(bytes.buffer);
          for (let i = 0; i < bytes.length; i += 8) v.setBigUint64(i, this.random.next(), true);
          return ok(this.write(out >>> 0, bytes.subarray(0, len >>> 0)));
        },
        sched_yield: () => SUCCESS,
      };
    }
  }

  // ---- A seat: a fresh instance a game, seeded at its first move (player.rs) -----------------
  class Player {
    constructor(module, options) {
      this.module = module;
      this.seed = BigInt(options.seed || 0);
      this.loadFuel = BigInt(options.loadFuel);
      this.level = options.level;
    }
    async newGame() {
      this.bot = new Bot(this.module, this.seed, this.loadFuel);
      this.seeded = false;
      await this.bot.start();
      const bot = this.bot;
      const [name] = bot.call("init", this.loadFuel, () => bot.x.init() >>> 0);
      this.name = bot.cString(name);
      if (this.name === null && bot.x.othello_last_error) {
        const [why] = bot.call("othello_last_error", this.loadFuel, () => bot.x.othello_last_error() >>> 0);
        throw new Failure("load-error", `init failed: ${bot.cString(why)}`);
      }
      if (this.level != null && bot.x.othello_set_level) {
        bot.call("othello_set_level", this.loadFuel, () => bot.x.othello_set_level(this.level));
      }
    }
    // The bot's move on `p` (a square index, -1 a pass) with the fuel of `limitMs` (null: none),
    // and the fuel it used; a Failure when it fails.
    think(p, limitMs) {
      const bot = this.bot;
      if (!this.seeded) {
        bot.random = new SplitMix64(gameSeed(this.seed, p));
        this.seeded = true;
      }
      const fuel = (limitMs == null ? UNLIMITED_MOVE_MS : BigInt(Math.max(1, limitMs))) * FUEL_PER_MS;
      const board = new Uint8Array(32);
      const v = new DataView(board.buffer);
      v.setBigUint64(0, p.black, true);
      v.setBigUint64(8, p.white, true);
      v.setBigUint64(16, legalMoves(p), true);
      board[24] = p.toMove === "X" ? 1 : 2;
      v.setUint32(28, limitMs == null ? 0 : Math.max(1, limitMs), true);
      const address = bot.buffer(fuel);
      bot.write(address, board);
      const [byte, used] = bot.call("think", fuel, () => bot.x.think(address) & 0xff);
      if (byte === MOVE_ERROR) {
        throw new Failure("move-error", "the bot reported an error instead of a move");
      }
      if (bot.x.othello_search_info) {
        const info = bot.buffer(this.loadFuel) + INFO_OFFSET;
        const empty = new Uint8Array(SEARCH_INFO_BYTES);
        empty[0] = SEARCH_INFO_BYTES;
        bot.write(info, empty);
        bot.call("othello_search_info", this.loadFuel, () => bot.x.othello_search_info(info));
      }
      const sq = byte === PASS ? -1 : (byte >> 4) < 8 && (byte & 15) < 8 ? (byte >> 4) * 8 + (byte & 15) : 64;
      return { sq, byte, fuel: used };
    }
  }

  async function compile(url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
    return WebAssembly.compile(await response.arrayBuffer());
  }
  const msOf = (fuel) => Number((fuel * 1000n) / FUEL_PER_MS) / 1000;

  // ---- The board on the page -------------------------------------------------------------------
  const SVG = "http://www.w3.org/2000/svg";
  function drawBoard(svg, p, legal, onClick) {
    svg.replaceChildren();
    const add = (name, attributes) => {
      const element = document.createElementNS(SVG, name);
      for (const [k, value] of Object.entries(attributes)) element.setAttribute(k, value);
      svg.appendChild(element);
      return element;
    };
    add("rect", { width: 8, height: 8, fill: "#2e7d4f" });
    for (let i = 0; i <= 8; i++) {
      add("line", { x1: i, y1: 0, x2: i, y2: 8, stroke: "#154a2c", "stroke-width": 0.03 });
      add("line", { x1: 0, y1: i, x2: 8, y2: i, stroke: "#154a2c", "stroke-width": 0.03 });
    }
    for (let sq = 0; sq < 64; sq++) {
      const [cx, cy] = [(sq & 7) + 0.5, (sq >> 3) + 0.5];
      if ((p.black & bit(sq)) !== 0n) add("circle", { cx, cy, r: 0.42, fill: "#111" });
      else if ((p.white & bit(sq)) !== 0n) add("circle", { cx, cy, r: 0.42, fill: "#f4f4f4" });
      else if ((legal & bit(sq)) !== 0n) {
        const hint = add("circle", { cx, cy, r: 0.14, fill: "#9fd3b1", class: "hint" });
        const target = add("rect", {
          x: sq & 7, y: sq >> 3, width: 1, height: 1, fill: "transparent",
          id: "sq-" + squareName(sq), role: "button", "aria-label": "play " + squareName(sq),
        });
        target.style.cursor = "pointer";
        target.addEventListener("click", () => onClick(sq));
        void hint;
      }
    }
  }

  // ---- /entries/ID/play: the visitor against the bot ----------------------------------------
  async function setUpPlay(root) {
    const svg = root.querySelector("#play-board");
    const status = root.querySelector("#play-status");
    const log = root.querySelector("#play-moves");
    const colour = root.querySelector("#play-colour");
    const startButton = root.querySelector("#play-start");
    const options = {
      seed: root.dataset.seed,
      loadFuel: root.dataset.loadFuel,
      level: root.dataset.level ? Number(root.dataset.level) : null,
    };
    const limitMs = Number(root.dataset.limitMs) || null;
    let module;
    try {
      module = await compile(root.dataset.module);
    } catch (e) {
      status.textContent = "The bot could not be loaded: " + e.message;
      return;
    }
    startButton.disabled = false;
    status.textContent = "Choose your colour and start a game.";
    let game = 0;
    startButton.addEventListener("click", async () => {
      const id = ++game;
      const human = colour.value === "O" ? "O" : "X";
      const player = new Player(module, options);
      let p = START;
      log.replaceChildren();
      root.dataset.state = "playing";
      const note = (text) => {
        const li = document.createElement("li");
        li.textContent = text;
        log.appendChild(li);
      };
      const finish = (text) => {
        root.dataset.state = "over";
        status.textContent = text;
        drawBoard(svg, p, 0n, () => {});
      };
      try {
        await player.newGame();
      } catch (e) {
        return finish("The bot failed to start: " + e.message);
      }
      const score = () => `${count(p.black)}–${count(p.white)}`;
      const ended = () => {
        const [b, w] = [count(p.black), count(p.white)];
        const you = human === "X" ? b - w : w - b;
        finish(`Game over, ${score()} (black–white): ${you > 0 ? "you win" : you < 0 ? "the bot wins" : "a draw"}.`);
      };
      const step = () => {
        if (id !== game) return;
        if (gameOver(p)) return ended();
        const legal = legalMoves(p);
        if (p.toMove === human) {
          if (legal === 0n) {
            note("you: pass");
            p = play(p, -1);
            return step();
          }
          status.textContent = `Your move (${human === "X" ? "black" : "white"}), ${score()}.`;
          drawBoard(svg, p, legal, (sq) => {
            if (id !== game) return;
            note("you: " + squareName(sq));
            p = play(p, sq);
            drawBoard(svg, p, 0n, () => {});
            status.textContent = "The bot is thinking…";
            setTimeout(step, 20);
          });
          return;
        }
        let answer;
        try {
          answer = player.think(p, limitMs);
        } catch (e) {
          return finish(`The bot lost: ${e.message}.`);
        }
        const next = answer.sq <= 63 ? play(p, answer.sq) : null;
        if (!next) return finish(`The bot lost: it answered the illegal move byte 0x${answer.byte.toString(16)}.`);
        note(`bot: ${moveName(answer.sq)} (${msOf(answer.fuel)} ms on its virtual clock)`);
        p = next;
        step();
      };
      drawBoard(svg, p, 0n, () => {});
      setTimeout(step, 20);
    });
  }

  // ---- A game page: re-compute a recorded game between two modules -------------------------------
  async function recompute(game, out) {
    const wasm = game.wasm;
    out.textContent = "Loading the two modules…";
    const [black, white] = await Promise.all([compile(wasm.black.module), compile(wasm.white.module)]);
    const seats = {
      X: new Player(black, { seed: wasm.seed, loadFuel: wasm.load_fuel, level: wasm.black.level }),
      O: new Player(white, { seed: wasm.seed, loadFuel: wasm.load_fuel, level: wasm.white.level }),
    };
    await seats.X.newGame();
    await seats.O.newGame();
    const limitMs = game.time_limit_ms == null ? null : Number(game.time_limit_ms);
    for (let i = wasm.opening_plies || 0; i < game.moves.length; i++) {
      out.textContent = `Re-computing move ${i + 1} of ${game.moves.length}…`;
      await new Promise((resolve) => setTimeout(resolve, 0));
      const p = parseBoard(game.positions[i]);
      const recorded = game.moves[i].move;
      let answer;
      try {
        answer = seats[p.toMove].think(p, limitMs);
      } catch (e) {
        return { ok: false, text: `Move ${i + 1} differs: the game has ${recorded}, this browser's bot failed (${e.message}).` };
      }
      const mine = answer.sq > 63 ? "an illegal move" : moveName(answer.sq);
      if (mine !== recorded) {
        return { ok: false, text: `Move ${i + 1} differs: the game has ${recorded}, this browser computed ${mine}.` };
      }
    }
    const computed = game.moves.length - (wasm.opening_plies || 0);
    return { ok: true, text: `Every move matches: this browser computed the same ${computed} moves.` };
  }

  function setUpRecompute(button) {
    const out = document.getElementById("recompute-result");
    const game = JSON.parse(document.getElementById("replay").dataset.game);
    button.addEventListener("click", async () => {
      button.disabled = true;
      out.dataset.state = "running";
      try {
        const verdict = await recompute(game, out);
        out.textContent = verdict.text;
        out.dataset.state = verdict.ok ? "match" : "differs";
      } catch (e) {
        out.textContent = "The re-computation could not run: " + e.message;
        out.dataset.state = "error";
      }
      button.disabled = false;
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const play = document.getElementById("play");
    if (play) setUpPlay(play);
    const button = document.getElementById("recompute");
    if (button) setUpRecompute(button);
  });
})();
