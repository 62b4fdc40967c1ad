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
const RENDERERS = { gridworld: drawGrid };

function drawBoard(domain, state) {
  const draw = RENDERERS[domain];
  if (!draw) throw new Error(`this page cannot draw the ${domain} domain yet`);
  draw(state);
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
        shape(svg, o.shape, mx, my, 0.28 * size, rgb(o.rgb), "held");
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
  if (mz.padActions !== snap.actions.join()) buildPad(snap.actions);
  $("panel-title").textContent = "Helper's belief about your goal";
  $("goal").textContent = "Goal: " + snap.goal.text;
  drawBoard(snap.domain, snap.state);
  const status = $("status");
  status.className = "status" + (snap.done ? (snap.success ? " done" : " failed") : "");
  const helper = snap.condition === "solo" ? "no helper" : `helper: ${snap.condition}` + (snap.helper_action ? ` (last: ${snap.helper_action})` : "");
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
  try {
    render(await api("POST", `/api/play/${mz.session}/act`, { action }));
    showError(null);
  } catch (err) {
    showError(err);
  } finally {
    mz.busy = false;
  }
}

// One button per action the snapshot offers (a domain may offer different actions per state).
function buildPad(actions) {
  mz.padActions = actions.join();
  const pad = $("pad");
  pad.replaceChildren();
  for (const a of actions) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = a;
    b.dataset.action = a;
    b.addEventListener("click", () => act(a));
    pad.appendChild(b);
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
  if (!action) return;
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
