// mindzero serve: play, study and viewer views over the JSON API (see mindzero/web/app.py).
// window.mz holds the last server answer so that tests and curious users can read it.
"use strict";

const mz = (window.mz = { info: null, snapshot: null, session: null, busy: false, replay: null, frame: 0 });
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const GRID_PX = 480;
const KEYS = { ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right", p: "pick", d: "put", s: "stay" };

async function api(method, url, body) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? {} : await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(err) {
  $("error").textContent = err ? String(err.message || err) : "";
}

function rgb(c) {
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// An object's shape centred at (cx, cy) in a box of side `size`.
function shape(parent, kind, cx, cy, size, fill, cls) {
  const r = size / 2;
  const common = { fill, stroke: "#1e1e1e", "stroke-width": Math.max(1, size / 20), class: cls };
  const points = (pts) => el("polygon", { ...common, points: pts.map((p) => p.join(",")).join(" ") }, parent);
  if (kind === "circle") return el("circle", { ...common, cx, cy, r }, parent);
  if (kind === "square") return el("rect", { ...common, x: cx - 0.85 * r, y: cy - 0.85 * r, width: 1.7 * r, height: 1.7 * r }, parent);
  if (kind === "triangle") return points([[cx, cy - r], [cx + r, cy + 0.8 * r], [cx - r, cy + 0.8 * r]]);
  if (kind === "diamond") return points([[cx, cy - r], [cx + 0.8 * r, cy], [cx, cy + r], [cx - 0.8 * r, cy]]);
  const star = [];
  for (let k = 0; k < 10; k++) {
    const rad = k % 2 ? 0.45 * r : r, ang = -Math.PI / 2 + (k * Math.PI) / 5;
    star.push([cx + rad * Math.cos(ang), cy + rad * Math.sin(ang)]);
  }
  return points(star);
}

// A robot: body and head in the agent's colour, two eyes; `cls` is "human" or "helper".
function robot(parent, cx, cy, size, color, cls) {
  const g = el("g", { class: `agent ${cls}` }, parent);
  const s = size;
  el("rect", { x: cx - 0.38 * s, y: cy - 0.05 * s, width: 0.76 * s, height: 0.45 * s, rx: 0.08 * s, fill: color, stroke: "#1e1e1e" }, g);
  el("rect", { x: cx - 0.3 * s, y: cy - 0.4 * s, width: 0.6 * s, height: 0.38 * s, rx: 0.1 * s, fill: color, stroke: "#1e1e1e" }, g);
  for (const ex of [-0.13, 0.13]) el("circle", { cx: cx + ex * s, cy: cy - 0.22 * s, r: 0.07 * s, fill: "#fff", stroke: "#1e1e1e" }, g);
  return g;
}

// Board renderers by domain (a snapshot's `domain`): a new domain's GameView adds its own here.
const RENDERERS = { gridworld: drawGrid, household: drawHousehold };

function drawBoard(domain, state) {
  const draw = RENDERERS[domain];
  if (!draw) throw new Error(`this page cannot draw the ${domain} domain yet`);
  $("hh-info").hidden = domain !== "household";
  draw(state);
}

// --- household ----------------------------------------------------------------------------
const FURNITURE_FILL = { container: "rgb(120,90,60)", open: "rgb(200,160,110)", surface: "rgb(150,150,150)", switch: "rgb(60,60,90)" };
const VERB_WORDS = { noop: "waits", walk: "walks to the", open: "opens the", close: "closes the", grab: "grabs the",
  putback: "puts", putin: "puts", switchon: "switches on the" };

// An action name (`putin o3 f7`) in words, with the state's names of furniture and objects.
function describe(state, name) {
  const [verb, ...args] = name.split(" ");
  const words = args.map((a) => state.names[a] || a);
  if (verb === "putback") return `puts the ${words[0]} on the ${words[1]}`;
  if (verb === "putin") return `puts the ${words[0]} inside the ${words[1]}`;
  return [VERB_WORDS[verb] || verb, ...words].join(" ");
}

function text(parent, x, y, content, attrs) {
  const node = el("text", { x, y, ...attrs }, parent);
  node.textContent = content;
  return node;
}

// Offered walk actions are also clicks on the plan (a room or a piece of furniture).
function clickable(node, action) {
  if (!mz.snapshot || !mz.snapshot.actions.some((c) => c.action === action)) return;
  node.classList.add("walkable");
  node.addEventListener("click", () => press(action));
}

// The apartment's top-down plan: rooms (the person's in full colour), doors, furniture (open
// containers lighter; out of view faded, its state unknown), both agents; and the Fig. 10 panel.
function drawHousehold(state) {
  const svg = $("grid");
  svg.replaceChildren();
  const c = GRID_PX / Math.max(state.width, state.height);
  svg.setAttribute("viewBox", `0 0 ${state.width * c} ${state.height * c}`);
  for (const room of state.rooms) {
    const [x0, y0, x1, y1] = room.rect;
    const r = el("rect", { x: x0 * c, y: y0 * c, width: (x1 - x0 + 1) * c, height: (y1 - y0 + 1) * c, fill: rgb(room.rgb),
      stroke: "#333", "stroke-width": 3, opacity: room.here ? 1 : 0.55, class: "room" + (room.here ? " here" : "") }, svg);
    clickable(r, `walk ${room.name}`);
    text(svg, x0 * c + 4, y0 * c + 12, room.name, { class: "room-name" + (room.here ? " here" : "") });
  }
  for (const [[ax, ay], [bx, by]] of state.doors) {
    const vertical = ay === by; // neighbours side by side: the opening is a vertical stretch of wall
    const x = vertical ? Math.max(ax, bx) * c : ax * c, y = vertical ? ay * c : Math.max(ay, by) * c;
    el("line", { x1: x + (vertical ? 0 : 0.2 * c), y1: y + (vertical ? 0.2 * c : 0), x2: x + (vertical ? 0 : 0.8 * c),
      y2: y + (vertical ? 0.8 * c : 0), stroke: "#fff", "stroke-width": 5, class: "door" }, svg);
  }
  const count = {};
  for (const o of state.objects) if (o.place) count[o.place] = (count[o.place] || 0) + 1;
  for (const f of state.furniture) {
    const [x, y] = f.cell, pad = 0.08 * c;
    const fill = FURNITURE_FILL[f.kind === "container" && f.open ? "open" : f.kind];
    const g = el("g", { class: "furniture" + (f.in_view ? " in-view" : ""), opacity: f.in_view ? 1 : 0.45 }, svg);
    g.dataset.id = f.id;
    const goal = f.goal_target ? { stroke: "rgb(230,170,0)", "stroke-width": 4 } : {};
    el("rect", { x: x * c + pad, y: y * c + pad, width: c - 2 * pad, height: c - 2 * pad, rx: 3, fill, ...goal }, g);
    text(g, x * c + c / 2, y * c + 0.42 * c, f.short, { class: "furniture-label" });
    if (count[f.id]) text(g, x * c + c / 2, y * c + 0.78 * c, String(count[f.id]), { class: "furniture-count" });
    clickable(g, `walk ${f.id}`);
  }
  const same = state.human.cell.join() === state.helper.cell.join();
  ["human", "helper"].forEach((who, i) => {
    const a = state[who], size = (same ? 0.5 : 0.62) * c;
    const cx = (a.cell[0] + (same ? (i ? 0.72 : 0.28) : 0.5)) * c, cy = (a.cell[1] + 0.55) * c;
    robot(svg, cx, cy, size, rgb(a.rgb), who);
    if (a.holding.length) text(svg, cx, cy + 0.3 * size, String(a.holding.length), { class: "held-count" });
  });
  drawHouseholdInfo(state);
}

function drawHouseholdInfo(state) {
  const names = state.names, me = state.human, helper = state.helper;
  const near = me.near ? state.furniture.find((f) => f.id === me.near) : null;
  const status = (f) => (f.open === true ? " (open)" : f.open === false ? " (closed)" : "") + (f.on ? " (on)" : "");
  $("hh-where").textContent =
    `You are in the ${me.room}` + (near ? `, at the ${near.name}${status(near)}` : "") +
    `. You hold ${me.holding.length ? me.holding.join(" and ") : "nothing"}.`;
  const p = state.progress;
  $("progress").textContent = `Goal progress: ${p.satisfied} / ${p.needed} · ` +
    p.predicates.map((q) => `${q.text}: ${q.placed}/${q.needed}`).join(" · ");
  const list = $("in-view");
  list.replaceChildren();
  for (const f of state.furniture.filter((f) => f.in_view)) {
    const here = state.objects.filter((o) => o.place === f.id).map((o) => o.name);
    const li = document.createElement("li");
    const rel = f.kind === "surface" ? "on it" : "inside";
    li.textContent = f.name + status(f) + (f.goal_target ? " ★ goal" : "") + (here.length ? ` — ${rel}: ${here.join(", ")}` : "");
    li.dataset.id = f.id;
    list.appendChild(li);
  }
  const snap = mz.snapshot;
  const last = snap && snap.helper_action && snap.state === state ? ` · last: ${describe(state, snap.helper_action)}` : "";
  $("helper-state").textContent =
    `Helper: in the ${helper.room}` + (helper.near ? `, at the ${names[helper.near]}` : "") +
    `, holds ${helper.holding.length ? helper.holding.join(" and ") : "nothing"}${last}.`;
}

function drawGrid(state) {
  const svg = $("grid");
  svg.replaceChildren();
  const w = state.width, h = state.height, c = GRID_PX / Math.max(w, h);
  svg.setAttribute("viewBox", `0 0 ${w * c} ${h * c}`);
  const box = ([x, y]) => [x * c, (h - 1 - y) * c]; // y grows upwards in the world
  for (let x = 0; x < w; x++)
    for (let y = 0; y < h; y++) {
      const [px, py] = box([x, y]);
      el("rect", { x: px, y: py, width: c, height: c, fill: "#fff", stroke: "#c8c8c8", class: "cell" }, svg);
    }
  for (const cell of state.obstacles) {
    const [px, py] = box(cell);
    el("rect", { x: px, y: py, width: c, height: c, fill: "#404048", class: "obstacle" }, svg);
  }
  const key = (cell) => cell.join(",");
  const agents = {};
  for (const who of ["human", "helper"]) (agents[key(state[who].cell)] ||= []).push(who);
  state.objects.forEach((o) => {
    if (o.held_by) return;
    const [px, py] = box(o.cell), crowded = agents[key(o.cell)];
    if (crowded) shape(svg, o.shape, px + 0.72 * c, py + 0.72 * c, 0.46 * c, rgb(o.rgb), "object");
    else shape(svg, o.shape, px + c / 2, py + c / 2, 0.62 * c, rgb(o.rgb), "object");
  });
  for (const [cellKey, who] of Object.entries(agents)) {
    const [px, py] = box(cellKey.split(",").map(Number));
    who.forEach((name, i) => {
      // beside a ground object (drawn bottom-right) a robot shrinks to the top-left
      const under = state.objects.some((o) => !o.held_by && key(o.cell) === cellKey);
      const size = (who.length > 1 ? 0.5 : under ? 0.6 : 0.75) * c;
      const cx = px + (who.length > 1 ? (i ? 0.72 : 0.28) : under ? 0.36 : 0.5) * c;
      const cy = py + (under ? 0.38 : 0.5) * c;
      robot(svg, cx, cy, size, rgb(state[name].rgb), name);
      const held = state[name].holding;
      if (held >= 0) {
        // a held object rides in a white badge on the robot's body
        const o = state.objects[held], mx = cx, my = cy + 0.18 * size;
        el("circle", { cx: mx, cy: my, r: 0.22 * size, fill: "#fff", stroke: "#1e1e1e", "stroke-width": 1.5 }, svg);
        shape(svg, o.shape, mx, my, 0.38 * size, rgb(o.rgb), "held"); // as wide as the badge: a star must read too
      }
    });
  }
}

function drawPosterior(posterior, note) {
  const box = $("posterior");
  box.replaceChildren();
  if (!posterior) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = note;
    box.appendChild(p);
    return;
  }
  const rows = [...posterior.bars, { label: "all other goals", p: posterior.other, other: true }];
  for (const b of rows) {
    const row = document.createElement("div");
    row.className = "bar" + (b.true ? " true" : "") + (b.other ? " other" : "");
    row.innerHTML = `<span class="label"></span><span class="track"><span class="fill"></span></span><span class="value"></span>`;
    row.querySelector(".label").textContent = (b.true ? "★ " : "") + b.label;
    row.querySelector(".fill").style.width = `${(100 * b.p).toFixed(1)}%`;
    row.querySelector(".fill").style.display = "block";
    row.querySelector(".value").textContent = `${Math.round(100 * b.p)}%`;
    row.dataset.p = b.p;
    box.appendChild(row);
  }
}

function render(snap) {
  mz.snapshot = snap;
  $("stage").hidden = false;
  $("keys").hidden = false;
  $("keys-help").hidden = snap.domain !== "gridworld";
  $("autowalk-label").hidden = snap.domain !== "household";
  const pad = JSON.stringify(snap.actions);
  if (mz.pad !== pad) buildPad(snap.actions);
  for (const b of $("pad").querySelectorAll("button")) b.disabled = snap.done;
  $("panel-title").textContent = "Helper's belief about your goal";
  $("goal").textContent = "Goal: " + snap.goal.text;
  drawBoard(snap.domain, snap.state);
  const status = $("status");
  status.className = "status" + (snap.done ? (snap.success ? " done" : " failed") : "");
  const last = snap.helper_action && snap.domain === "household" ? describe(snap.state, snap.helper_action) : snap.helper_action;
  const helper = snap.condition === "solo" ? "no helper" : `helper: ${snap.condition}` + (last ? ` (last: ${last})` : "");
  status.textContent = snap.done
    ? snap.success ? `Goal reached in ${snap.t} ticks!` : `Out of time after ${snap.t} ticks.`
    : `t = ${snap.t} / ${snap.max_steps} · ${helper}` + (snap.note ? ` · ${snap.note}` : "");
  const note = snap.condition === "solo" ? "Playing alone: no helper." : "The helper's beliefs are hidden in this session.";
  drawPosterior(snap.posterior, note);
  $("toggle-posterior").hidden = !snap.posterior;
  if (snap.study) {
    const s = snap.study;
    $("study-status").textContent =
      `${s.participant}: task ${s.step + 1} of ${s.steps} · ${snap.condition === "solo" ? "alone" : "with a helper"}` +
      (snap.done ? " · done, press Next task" : "");
    $("study-next").disabled = !snap.done;
  }
}

async function act(action) {
  if (!mz.session || mz.busy || !mz.snapshot || mz.snapshot.done) return;
  mz.busy = true;
  let snap = null;
  try {
    snap = await api("POST", `/api/play/${mz.session}/act`, { action });
    render(snap);
    showError(null);
  } catch (err) {
    showError(err);
  } finally {
    mz.busy = false;
  }
  // "walk all the way": repeat a walk, one tick each, while it is offered and nothing else is pressed
  if (mz.walk === action && snap && !snap.done && snap.actions.some((c) => c.action === action))
    setTimeout(() => mz.walk === action && act(action), 150);
  else if (mz.walk === action) mz.walk = null;
}

// A button or a click on the plan: any press stops an automatic walk.
function press(action) {
  mz.walk = action.startsWith("walk ") && $("autowalk").checked ? action : null;
  act(action);
}

// One button per action the snapshot offers (a domain may offer different actions per state),
// under a heading per group when there are several.
function buildPad(actions) {
  mz.pad = JSON.stringify(actions);
  const pad = $("pad");
  pad.replaceChildren();
  const titles = { here: "Here", "this room": "Furniture in this room", rooms: "Rooms", elsewhere: "Furniture elsewhere", wait: "" };
  let group = null, row = pad;
  for (const a of actions) {
    if (a.group !== "keys" && a.group !== group) {
      group = a.group;
      const title = document.createElement("div");
      title.className = "group-title";
      title.textContent = titles[group] ?? group;
      row = document.createElement("div");
      row.className = "group";
      row.dataset.group = group;
      pad.append(title, row);
    }
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = a.label;
    b.dataset.action = a.action;
    b.addEventListener("click", () => press(a.action));
    row.appendChild(b);
  }
}

async function startPlay(event) {
  event.preventDefault();
  const body = { reasoner: $("play-reasoner").value };
  if ($("play-episode").value !== "") body.episode = Number($("play-episode").value);
  if ($("play-seed").value !== "") body.seed = Number($("play-seed").value);
  try {
    const snap = await api("POST", "/api/play", body);
    mz.session = snap.session;
    render(snap);
    showError(null);
    document.activeElement.blur();
  } catch (err) {
    showError(err);
  }
}

async function studyAnswer(promise) {
  try {
    const data = await promise;
    showError(null);
    if (data.finished) {
      mz.session = null;
      $("stage").hidden = true;
      $("study-next").disabled = true;
      $("study-status").textContent = `All tasks done, ${data.participant}. Thank you!`;
      return;
    }
    mz.session = data.session;
    render(data);
    document.activeElement.blur();
  } catch (err) {
    showError(err);
  }
}

// --- viewer -------------------------------------------------------------------------------
function showFrame(k) {
  const r = mz.replay;
  if (!r) return;
  mz.frame = Math.max(0, Math.min(k, r.frames.length - 1));
  const f = r.frames[mz.frame];
  $("stage").hidden = false;
  $("keys").hidden = true;
  $("panel-title").textContent = "Posterior the helper acted on";
  $("goal").textContent = "True goal: " + r.goal.text;
  drawBoard(r.domain, f.state);
  drawPosterior(f.posterior, "no posterior");
  $("toggle-posterior").hidden = !f.posterior;
  $("viewer-slider").value = mz.frame;
  $("viewer-step").textContent = `step ${mz.frame} / ${r.frames.length - 1}`;
  $("status").className = "status";
  $("status").textContent =
    f.human_action === null ? `end: ${r.success ? "goal reached" : "out of time"} after ${r.frames.length - 1} ticks`
      : r.domain === "household" ? `t = ${f.t} · human ${describe(f.state, f.human_action)} · helper ${describe(f.state, f.helper_action)}`
      : `t = ${f.t} · human: ${f.human_action} · helper: ${f.helper_action}`;
}

async function loadRuns() {
  try {
    const { runs } = await api("GET", "/api/runs");
    const select = $("viewer-run");
    select.replaceChildren(...runs.map((r) => new Option(`${r.path} (${r.reasoner})`, r.path)));
    if (runs.length) await loadEpisodes();
    else $("viewer-info").textContent = "No assistance runs under the runs folder yet (mindzero gridworld assist --out runs/...).";
  } catch (err) {
    showError(err);
  }
}

async function loadEpisodes() {
  try {
    const path = encodeURIComponent($("viewer-run").value);
    const { episodes } = await api("GET", `/api/runs/episodes?path=${path}`);
    $("viewer-episode").replaceChildren(
      ...episodes.map((e) => new Option(`${e.row}: ${e.episode_id} seed ${e.seed} · alone ${e.t_alone} · helped ${e.t_helped}`, e.row)),
    );
  } catch (err) {
    showError(err);
  }
}

async function loadReplay() {
  try {
    const path = encodeURIComponent($("viewer-run").value);
    mz.replay = await api("GET", `/api/replay?path=${path}&row=${$("viewer-episode").value}`);
    const r = mz.replay;
    $("viewer-slider").max = r.frames.length - 1;
    $("viewer-info").textContent =
      `${r.episode_id} · seed ${r.seed} · reasoner ${r.reasoner} · alone ${r.t_alone} ticks · helped ${r.t_helped} ticks` +
      (r.mismatch ? ` · WARNING: ${r.mismatch}` : "");
    showError(null);
    showFrame(0);
  } catch (err) {
    showError(err);
  }
}

let timer = null;
function togglePlay() {
  if (timer) {
    clearInterval(timer);
    timer = null;
    $("viewer-play").textContent = "play";
    return;
  }
  $("viewer-play").textContent = "pause";
  timer = setInterval(() => {
    if (!mz.replay || mz.frame >= mz.replay.frames.length - 1) return togglePlay();
    showFrame(mz.frame + 1);
  }, 400);
}

// --- wiring -------------------------------------------------------------------------------
function route() {
  const name = (location.hash || "#play").slice(1);
  for (const v of ["play", "study", "viewer"]) {
    $(`view-${v}`).classList.toggle("active", v === name);
    $(`nav-${v}`).classList.toggle("active", v === name);
  }
  mz.view = name;
  mz.session = null;
  mz.snapshot = null;
  $("stage").hidden = true;
  if (name === "viewer" && mz.info && mz.info.viewer) loadRuns();
}

document.addEventListener("keydown", (event) => {
  if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  if (mz.view === "viewer") {
    if (event.key === "ArrowLeft") showFrame(mz.frame - 1);
    else if (event.key === "ArrowRight") showFrame(mz.frame + 1);
    else return;
    event.preventDefault();
    return;
  }
  const action = KEYS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (!action || !mz.snapshot || mz.snapshot.domain !== "gridworld") return;
  event.preventDefault();
  act(action);
});

async function init() {
  mz.info = await api("GET", "/api/info");
  $("play-reasoner").replaceChildren(...mz.info.reasoners.map((r) => new Option(r === "solo" ? "none (play alone)" : r, r)));
  if (mz.info.reasoners.includes("exact")) $("play-reasoner").value = "exact";
  $("play-form").addEventListener("submit", startPlay);
  $("study-form").addEventListener("submit", (e) => {
    e.preventDefault();
    studyAnswer(api("POST", "/api/study", { participant: $("study-participant").value }));
  });
  $("study-next").addEventListener("click", () => studyAnswer(api("POST", `/api/study/${mz.session}/next`)));
  $("toggle-posterior").addEventListener("click", () => {
    const hidden = $("panel").classList.toggle("hidden");
    $("toggle-posterior").textContent = hidden ? "Show" : "Hide";
  });
  $("viewer-run").addEventListener("change", loadEpisodes);
  $("viewer-load").addEventListener("click", loadReplay);
  $("viewer-first").addEventListener("click", () => showFrame(0));
  $("viewer-prev").addEventListener("click", () => showFrame(mz.frame - 1));
  $("viewer-next").addEventListener("click", () => showFrame(mz.frame + 1));
  $("viewer-last").addEventListener("click", () => showFrame(Infinity));
  $("viewer-play").addEventListener("click", togglePlay);
  $("viewer-slider").addEventListener("input", (e) => showFrame(Number(e.target.value)));
  window.addEventListener("hashchange", route);
  route();
  mz.ready = true;
}

init().catch(showError);
