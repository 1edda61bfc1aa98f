// The studio's views: the live signal of a device, the sessions of the catalog with what `clean`
// finds, a session's plot whose gesture bands are dragged to relabel, training a model, and a
// model's detections on a live device. Every request carries the page's token; the server does the work (StudioViews.swift).
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);

// What the page has done, for a person to read and for tests to wait on.
const studio = {
  view: null,
  live: { readings: 0, frames: 0, status: "", error: null },
  // The extent each chart shows now, by its canvas's id.
  extents: {},
  sessions: null,
  // The dataset view's figures as the server sent them, and the cells and sessions it shows.
  dataset: null,
  datasetShown: null,
  session: null,
  changes: [],
  errors: [],
  detections: [],
  predictions: 0,
  // The training view's sessions, and the run's progress as the server last sent it.
  trainingSessions: null,
  training: null,
  // The recording's progress as the server last sent it: its state, the prompts said, the takes ended.
  recording: null,
  // The phones paired, as the server last listed them.
  phones: [],
};
window.studio = studio;

function address(path, query) {
  const parameters = new URLSearchParams(query || {});
  parameters.set("token", token);
  return path + "?" + parameters.toString();
}

async function api(path, change, query) {
  const options = change ? { method: "POST", body: JSON.stringify(change), headers: { "Content-Type": "application/json" } } : {};
  const response = await fetch(address(path, query), options);
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function element(tag, attributes, text) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) made.setAttribute(name, value);
  if (text !== undefined) made.textContent = text;
  return made;
}

function svg(tag, attributes) {
  const made = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes || {})) made.setAttribute(name, value);
  return made;
}

const number = (value) => (typeof value === "string" ? Number(value) : value);
// The palette GestureLab's SVGs use too, which the server writes into the page's style.
const style = getComputedStyle(document.documentElement);
const axisColours = ["--x", "--y", "--z"].map((name) => style.getPropertyValue(name).trim());
const bandOpacity = Number(style.getPropertyValue("--band-opacity"));

// The extent a plot shows, ± of it: `least`, or the largest finite value's magnitude rounded up to
// a round step (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), so that nothing is cut off.
function extent(least, values) {
  let largest = least;
  for (const value of values) if (Number.isFinite(value) && Math.abs(value) > largest) largest = Math.abs(value);
  if (largest === least) return least;
  const power = Math.pow(10, Math.floor(Math.log10(largest)));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((step) => step * power).find((nice) => nice >= largest);
}

// MARK: Navigation

function route() {
  const [view, id] = (location.hash.slice(1) || "live").split("/");
  studio.view = view;
  for (const section of document.querySelectorAll("main > section")) section.classList.toggle("current", section.id === view);
  for (const link of document.querySelectorAll("header nav a")) link.classList.toggle("current", link.id === "nav-" + (view === "session" ? "sessions" : view));
  if (view === "sessions") loadSessions();
  if (view === "dataset") loadDataset();
  if (view === "train") loadTraining();
  if (view === "record") loadRecording();
  if (view === "session") loadSession(decodeURIComponent(id));
}

// MARK: Live charts

// A strip chart of the last `seconds` of three axes, drawn on every animation frame that has new
// readings, scaled to what it shows (at least ±`range`).
class StripChart {
  constructor(canvas, range, unit, seconds) {
    this.canvas = canvas;
    this.range = range;
    this.unit = unit;
    this.seconds = seconds;
    this.points = [];
  }

  add(time, values) {
    this.points.push([time, values]);
    const oldest = time - this.seconds;
    let drop = 0;
    while (drop < this.points.length && this.points[drop][0] < oldest) drop++;
    if (drop > 0) this.points.splice(0, drop);
  }

  clear() {
    this.points = [];
  }

  draw() {
    const canvas = this.canvas;
    const scale = window.devicePixelRatio || 1;
    const width = canvas.clientWidth, height = canvas.clientHeight;
    if (canvas.width !== width * scale) { canvas.width = width * scale; canvas.height = height * scale; }
    const context = canvas.getContext("2d");
    context.setTransform(scale, 0, 0, scale, 0, 0);
    context.clearRect(0, 0, width, height);
    const shown = extent(this.range, this.points.flatMap(([, values]) => values));
    studio.extents[canvas.id] = shown;
    const y = (value) => height / 2 - (value / shown) * (height / 2 - 6);
    context.strokeStyle = "#d9dee3";
    context.beginPath(); context.moveTo(0, y(0)); context.lineTo(width, y(0)); context.stroke();
    context.fillStyle = "#66727e";
    context.font = "12px system-ui, sans-serif";
    context.fillText("+" + shown + " " + this.unit, 4, 14);
    context.fillText("−" + shown + " " + this.unit, 4, height - 6);
    if (this.points.length < 2) return;
    const newest = this.points[this.points.length - 1][0];
    const x = (time) => width - ((newest - time) / this.seconds) * width;
    for (let axis = 0; axis < 3; axis++) {
      context.strokeStyle = axisColours[axis];
      context.lineWidth = 1.5;
      context.beginPath();
      this.points.forEach(([time, values], index) => {
        const point = [x(time), y(values[axis])];
        if (index === 0) context.moveTo(...point); else context.lineTo(...point);
      });
      context.stroke();
    }
  }
}

// A live view's connection to a device, and its charts redrawn while it streams.
class LiveView {
  constructor(prefix, charts) {
    this.prefix = prefix;
    this.charts = charts;
    this.socket = null;
    this.fresh = false;
    this.frameTimes = [];
    this.onMessage = () => {};
  }

  start(device, model) {
    this.stop();
    this.charts.forEach((chart) => chart.clear());
    studio.live = { readings: 0, frames: 0, status: "connecting", error: null, device: device };
    const query = { device: device };
    if (model !== undefined) query.model = model;
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    this.socket = new WebSocket(scheme + location.host + address("/live/socket", query));
    this.socket.onmessage = (event) => this.receive(JSON.parse(event.data));
    this.socket.onclose = () => {
      this.socket = null;
      this.buttons(false);
      if (!studio.live.error) this.say(studio.live.status === "the device's readings ended" ? "ended" : "stopped");
    };
    this.buttons(true);
    this.say("connecting…");
    const frame = (now) => {
      if (this.fresh) {
        this.charts.forEach((chart) => chart.draw());
        this.fresh = false;
        studio.live.frames++;
        this.frameTimes.push(now);
        while (this.frameTimes.length > 0 && now - this.frameTimes[0] > 1000) this.frameTimes.shift();
        studio.live.fps = this.frameTimes.length;
      }
      if (this.socket) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  stop() {
    if (this.socket) this.socket.close();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  receive(message) {
    if (message.readings) {
      for (const reading of message.readings) {
        const values = reading.map(number);
        this.charts[0].add(values[0], values.slice(1, 4));
        if (this.charts[1]) this.charts[1].add(values[0], values.slice(4, 7));
        studio.live.readings++;
        studio.live.last = values;
      }
      this.fresh = true;
      $(this.prefix + "-status").textContent = studio.live.status + " · " + studio.live.readings + " readings · " + (studio.live.fps || 0) + " frames/s";
    }
    if (message.status) {
      studio.live.status = message.status;
      this.say(message.status);
    }
    if (message.error) {
      studio.live.error = message.error;
      this.say(message.error, true);
    }
    this.onMessage(message);
  }

  say(text, isError) {
    const line = $(this.prefix + "-status");
    line.textContent = text;
    line.className = isError ? "error" : "status";
  }

  buttons(running) {
    $(this.prefix + "-start").disabled = running;
    $(this.prefix + "-stop").disabled = !running;
  }
}

const live = new LiveView("live", [
  new StripChart($("live-acceleration"), 2, "g", 5),
  new StripChart($("live-rotation"), 5, "rad/s", 5),
]);
const detecting = new LiveView("detect", [new StripChart($("detect-acceleration"), 2, "g", 5)]);

let listing = { devices: [], models: [] };

// The devices and models; loaded again when a model is trained, keeping what each view chose.
async function loadDevices() {
  listing = await api("/api/devices");
  for (const select of [$("live-device"), $("detect-device")]) {
    refill(select, listing.devices.map((device) => element("option", { value: device.id }, device.id + " — " + device.name)));
  }
  // A user's replay plays their own file: not something to record from.
  const recordable = listing.devices.filter((device) => !device.id.startsWith("replay:"));
  refill($("record-device"), recordable.map((device) => element("option", { value: device.id }, device.id + " — " + device.name)));
  if (!studio.devices) $("record-device").value = "phone";
  offerThePhoneWith();
  refill($("detect-model"), listing.models.map((model, index) => element("option", { value: index }, model.name + " (" + model.gestures.join(", ") + ")")));
  if (!detecting.socket) $("detect-start").disabled = listing.models.length === 0;
  if (listing.models.length === 0) detecting.say("no model: train one, or start the studio with --model FILE");
  else if ($("detect-status").textContent.startsWith("no model")) detecting.say("");
  studio.devices = listing;
}

function refill(select, options) {
  const chosen = select.value;
  select.replaceChildren(...options);
  if (options.some((option) => option.value === chosen)) select.value = chosen;
}

$("live-start").onclick = () => live.start($("live-device").value);
$("live-stop").onclick = () => live.stop();

// MARK: Detection

// A bar for each of the model's classes, rest included, that every prediction sets.
function showClasses(model) {
  $("detect-classes").replaceChildren(...model.classes.map((name) => {
    const row = element("div", { class: "class-row", "data-class": name });
    const track = element("div", { class: "class-track" });
    track.append(element("div", { class: "class-bar" }));
    row.append(element("span", { class: "class-name" }, name), track, element("span", { class: "class-value" }, "–"));
    return row;
  }));
}

// How many detections the list keeps, newest first.
const detectionsShown = 10;

$("detect-start").onclick = () => {
  const model = listing.models[Number($("detect-model").value)];
  $("detections").replaceChildren();
  showClasses(model);
  studio.detections = [];
  studio.predictions = 0;
  studio.prediction = null;
  const performs = $("detect-device").value === "sim";
  $("detect-perform").replaceChildren(
    ...(performs ? [element("span", { class: "status" }, "The simulated hand performs:")] : []),
    ...(performs ? model.gestures : []).map((gesture) => {
      const button = element("button", { "data-gesture": gesture }, gesture);
      button.onclick = () => detecting.send({ perform: gesture });
      return button;
    }));
  detecting.start($("detect-device").value, $("detect-model").value);
};
$("detect-stop").onclick = () => detecting.stop();

detecting.onMessage = (message) => {
  if (message.prediction) {
    const prediction = message.prediction;
    studio.predictions++;
    studio.prediction = prediction;
    const rows = $("detect-classes").children;
    const top = prediction.probabilities.indexOf(Math.max(...prediction.probabilities));
    prediction.probabilities.forEach((probability, index) => {
      if (!rows[index]) return;
      rows[index].classList.toggle("top", index === top);
      rows[index].querySelector(".class-bar").style.width = (probability * 100).toFixed(1) + "%";
      rows[index].querySelector(".class-value").textContent = probability.toFixed(2);
    });
    $("detect-prediction").textContent = "window ending at " + prediction.time.toFixed(2) + " s";
  }
  if (message.detection) {
    const detection = message.detection;
    studio.detections.push(detection);
    const list = $("detections");
    for (const item of list.children) item.classList.remove("newest");
    list.prepend(element("li", { class: "newest" }, detection.time.toFixed(2) + " s  " + detection.gesture + "  " + detection.probability.toFixed(3)));
    while (list.children.length > detectionsShown) list.lastElementChild.remove();
  }
};

// MARK: Sessions

let entries = [];

async function loadSessions() {
  try {
    entries = await api("/api/sessions");
  } catch (error) {
    return fail(error);
  }
  fillFilter($("filter-user"), entries.map((entry) => entry.record.user));
  fillFilter($("filter-gesture"), entries.map((entry) => entry.record.gesture));
  showSessions();
}

function fillFilter(select, values) {
  const chosen = select.value;
  const options = [...new Set(values)].sort().map((value) => element("option", { value: value }, value));
  select.replaceChildren(element("option", { value: "" }, "all"), ...options);
  select.value = chosen;
}

function showSessions() {
  const user = $("filter-user").value, gesture = $("filter-gesture").value, status = $("filter-status").value;
  const withFindings = $("filter-findings").checked;
  const shown = entries.filter((entry) =>
    (!user || entry.record.user === user) && (!gesture || entry.record.gesture === gesture) &&
    (!status || entry.record.status === status) && (!withFindings || entry.findings.length > 0));
  $("sessions-rows").replaceChildren(...shown.map(sessionRow));
  $("sessions-count").textContent = shown.length + " of " + entries.length + " sessions";
  studio.sessions = shown.map((entry) => entry.record.id);
}

function sessionRow(entry) {
  const record = entry.record;
  const row = element("tr", { "data-id": record.id, class: record.status });
  const findings = element("td");
  for (const finding of entry.findings) findings.append(element("span", { class: "finding", title: finding.reason }, finding.kind));
  row.append(
    element("td", {}, record.id), element("td", {}, record.user), element("td", {}, record.gesture),
    element("td", {}, record.take), element("td", {}, record.start.replace("T", " ").slice(0, 19)),
    element("td", {}, record.device), element("td", {}, record.sampleCount), heldCell(entry),
    element("td", { title: record.reason || "" }, record.status), element("td", {}, labelSummary(record)), findings);
  row.onclick = () => { location.hash = "session/" + encodeURIComponent(record.id); };
  return row;
}

// The share of rows that repeat the one before; red, with why, when the server warns of it.
function heldCell(entry) {
  const text = entry.heldShare === undefined || entry.heldShare === null ? "" : Math.round(number(entry.heldShare) * 100) + " %";
  return entry.heldWarning ? element("td", { class: "held held-warning", title: entry.heldWarning }, "⚠ " + text) : element("td", { class: "held" }, text);
}

function labelSummary(record) {
  const spans = (record.labels || []).filter((span) => span.label !== "rest");
  const text = spans.length === 0 ? "as recorded" : spans.map((span) => span.label + " " + span.from.toFixed(2) + "–" + span.to.toFixed(2) + " s").join(", ");
  return text + (record.alignment ? " (" + record.alignment + ")" : "") + (record.keptFrom !== undefined && record.keptFrom !== null ? ", trimmed" : "");
}

for (const id of ["filter-user", "filter-gesture", "filter-status", "filter-findings"]) $(id).onchange = showSessions;

// MARK: Dataset

// What `gesture stats` counts per user and gesture, the parts the chosen manifest gives the
// sessions, what `clean` finds in them, and a thumbnail of each, narrowed to a user and a gesture.
const datasetFilter = { user: "", gesture: "" };
const parts = ["train", "validation", "test"];

async function loadDataset() {
  const first = studio.dataset === null;
  let dataset;
  try {
    dataset = await api("/api/dataset");
  } catch (error) {
    return fail(error);
  }
  studio.dataset = dataset;
  const select = $("dataset-manifest"), chosen = select.value;
  select.replaceChildren(element("option", { value: "" }, "none"),
    ...dataset.manifests.map((manifest, index) => element("option", { value: index }, manifest.file)));
  select.value = first && dataset.manifests.length > 0 ? "0" : chosen;
  showDataset();
}

function showDataset() {
  const dataset = studio.dataset;
  filterChips($("dataset-users"), dataset.cells.map((cell) => cell.user), "user");
  filterChips($("dataset-gestures"), dataset.cells.map((cell) => cell.gesture), "gesture");
  const manifest = dataset.manifests[$("dataset-manifest").value];
  const partsOf = (session) => (manifest ? manifest.parts[session.summary.session] || [] : []);
  const chosen = (item) => (!datasetFilter.user || item.user === datasetFilter.user) && (!datasetFilter.gesture || item.gesture === datasetFilter.gesture);
  const cells = dataset.cells.filter(chosen);
  const sessions = dataset.sessions.filter((session) => chosen(session.summary));
  $("dataset-cells").replaceChildren(...cells.map((cell) => {
    const own = dataset.sessions.filter((session) => session.summary.user === cell.user && session.summary.gesture === cell.gesture);
    return cellRow(cell, own, manifest && !manifest.error ? partsOf : null, dataset.heldWarning);
  }));
  $("dataset-thumbnails").replaceChildren(...sessions.map((session) => thumbnailCard(session, partsOf(session))));
  const status = $("dataset-status");
  status.className = manifest && manifest.error ? "error" : "status";
  status.textContent = manifest && manifest.error ? manifest.error : sessions.length + " of " + dataset.sessions.length + " sessions (discarded ones left out, as gesture stats does)";
  studio.datasetShown = { cells: cells.map((cell) => [cell.user, cell.gesture]), sessions: sessions.map((session) => session.summary.session) };
}

// A button per value and one for all; the chosen one dark. Choosing one narrows the table and the thumbnails.
function filterChips(container, values, key) {
  const chip = (value, text) => {
    const made = element("button", { "data-value": value, class: datasetFilter[key] === value ? "chosen" : "" }, text);
    made.onclick = () => { datasetFilter[key] = value; showDataset(); };
    return made;
  };
  container.replaceChildren(chip("", "all"), ...[...new Set(values)].sort().map((value) => chip(value, value)));
}

function cellRow(cell, sessions, partsOf, heldWarning) {
  const held = number(cell.heldShare);
  const inPart = (part) => sessions.reduce((sum, session) => sum + partsOf(session).filter((named) => named === part).length, 0);
  const bad = sessions.filter((session) => session.findings.length > 0).length;
  const row = element("tr", { "data-user": cell.user, "data-gesture": cell.gesture });
  row.append(
    element("td", {}, cell.user), element("td", {}, cell.gesture), element("td", { class: "takes" }, cell.sessions),
    element("td", { class: "minutes" }, (number(cell.seconds) / 60).toFixed(2)),
    element("td", { class: "rate" }, [...new Set(cell.nominalRates.map((rate) => String(Number(number(rate).toFixed(1)))))].join(", ")),
    element("td", { class: "achieved" }, number(cell.achievedRate).toFixed(1)),
    element("td", { class: held > heldWarning ? "held held-warning" : "held" }, (held > heldWarning ? "⚠ " : "") + (held * 100).toFixed(1) + " %"),
    ...parts.map((part) => element("td", { class: part }, partsOf ? inPart(part) : "")),
    element("td", { class: "findings" }, bad === 0 ? "" : bad + (bad === 1 ? " session" : " sessions")));
  row.onclick = () => { datasetFilter.user = cell.user; datasetFilter.gesture = cell.gesture; showDataset(); };
  return row;
}

function thumbnailCard(session, named) {
  const summary = session.summary;
  const card = element("div", { class: "thumbnail", "data-id": summary.session });
  const image = element("img", { alt: "acceleration of " + summary.session, src: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(session.thumbnail) });
  const caption = element("div", {}, summary.user + " · " + summary.gesture + (session.take ? " take " + session.take : "") + " · " + number(summary.seconds).toFixed(1) + " s");
  const marks = element("div");
  for (const part of named) marks.append(element("span", { class: "part" }, part));
  for (const finding of session.findings) marks.append(element("span", { class: "finding", title: finding.reason }, finding.kind));
  card.append(image, caption, marks);
  card.onclick = () => { location.hash = "session/" + encodeURIComponent(summary.session); };
  return card;
}

$("dataset-manifest").onchange = showDataset;

// MARK: A session

async function loadSession(id) {
  try {
    showSession(await api("/api/sessions/" + encodeURIComponent(id)));
  } catch (error) {
    fail(error);
  }
}

async function change(request, done) {
  const id = studio.session.id;
  try {
    const detail = await api("/api/sessions/" + encodeURIComponent(id), request);
    studio.changes.push({ id: id, request: request });
    showSession(detail);
    say(done);
  } catch (error) {
    fail(error);
  }
}

function say(text) {
  $("session-status").textContent = text;
  $("session-status").className = "status";
}

function fail(error) {
  studio.errors.push(String(error.message || error));
  const line = { session: $("session-status"), dataset: $("dataset-status") }[studio.view] || $("sessions-count");
  line.textContent = String(error.message || error);
  line.className = "error";
}

$("session-undo").onclick = () => change({ undo: {} }, "the last change of labels is undone");
$("session-discard").onclick = () => change({ discard: {} }, "discarded: its rows are in recordings/discarded/; Restore brings them back");
$("session-restore").onclick = () => change({ restore: {} }, "restored");
$("session-replay").onclick = () => {
  location.hash = "live";
  $("live-device").value = "replay:" + studio.session.record.user;
  live.start($("live-device").value);
};

function showSession(detail) {
  const record = detail.entry.record;
  const rows = detail.rows.map((row) => row.map(number));
  studio.session = { id: record.id, record: record, labels: detail.labels, colors: detail.colors, rows: rows, findings: detail.entry.findings };
  $("session-title").textContent = record.id + " · " + record.user + " · " + record.gesture + " take " + record.take + " · " + record.status;
  $("session-discard").disabled = record.status === "discarded";
  $("session-restore").disabled = record.status !== "discarded";
  $("session-findings").replaceChildren(...(detail.entry.findings.length === 0
    ? [element("li", {}, "nothing: it looks fine")]
    : detail.entry.findings.map((finding) => element("li", {}, finding.kind + ": " + finding.reason))));
  $("session-facts").replaceChildren(
    element("li", {}, rows.length + " rows, " + record.sampleCount + " kept"),
    element("li", {}, "device " + record.device + " at " + record.requestedRate + " Hz"),
    element("li", {}, "labels: " + labelSummary(record)),
    ...(record.reason ? [element("li", {}, "why: " + record.reason)] : []),
    ...(detail.entry.heldWarning ? [element("li", { class: "held-warning" }, "⚠ " + detail.entry.heldWarning)] : []));
  drawSession();
  $("session-model").replaceChildren(...listing.models.map((model, index) => element("option", { value: index }, model.name)));
  $("session-classify").disabled = listing.models.length === 0;
  $("session-windows").replaceChildren();
  $("session-windows-status").textContent = listing.models.length === 0 ? "no model: train one, or start the studio with --model FILE" : "";
  studio.windows = null;
}

// Each window of the session's kept rows as the chosen model classifies it, offline as `gesture
// evaluate` does; the windows it gets wrong stand out.
$("session-classify").onclick = async () => {
  const status = $("session-windows-status");
  try {
    const result = await api("/api/sessions/" + encodeURIComponent(studio.session.id) + "/windows", undefined, { model: $("session-model").value });
    studio.windows = result;
    $("session-windows").replaceChildren(...result.windows.map(windowRow));
    const right = result.windows.filter((window) => window.label === window.predicted).length;
    status.className = "status";
    status.textContent = right + " of " + result.windows.length + " windows right (" + (100 * result.accuracy).toFixed(1) + " %)";
  } catch (error) {
    status.className = "error";
    status.textContent = String(error.message || error);
  }
};

function windowRow(window, index) {
  const colour = studio.session.colors[window.predicted] || "#8d99a6";
  const predicted = element("td", { class: "predicted" });
  predicted.append(element("span", { style: "background:" + colour }), window.predicted);
  const row = element("tr", { class: window.label === window.predicted ? "right" : "wrong" });
  row.append(
    element("td", {}, index + 1), element("td", {}, number(window.start).toFixed(2)), element("td", {}, number(window.end).toFixed(2)),
    element("td", {}, window.label), predicted, element("td", {}, number(window.probability).toFixed(3)));
  return row;
}

// The plot's geometry: two panels over the session's time.
const plot = { width: 1000, panel: 170, gap: 24, top: 22, left: 44, right: 10 };

function drawSession() {
  const session = studio.session;
  const rows = session.rows;
  const canvas = $("session-plot");
  const height = plot.top + 2 * plot.panel + plot.gap + 24;
  canvas.setAttribute("viewBox", "0 0 " + plot.width + " " + height);
  canvas.replaceChildren();
  if (rows.length === 0) return;
  const first = rows[0][0], last = rows[rows.length - 1][0];
  const x = (time) => plot.left + ((time - first) / Math.max(last - first, 1e-9)) * (plot.width - plot.left - plot.right);
  session.x = x;
  session.timeAt = (pixel) => first + ((pixel - plot.left) / (plot.width - plot.left - plot.right)) * (last - first);
  const panels = [{ top: plot.top, range: 2, unit: "g", column: 1 }, { top: plot.top + plot.panel + plot.gap, range: 5, unit: "rad/s", column: 4 }];
  for (const panel of panels) panel.range = extent(panel.range, rows.flatMap((row) => row.slice(panel.column, panel.column + 3)));
  session.extents = panels.map((panel) => panel.range);
  drawTrimmed(canvas, rows, x, height);
  for (const band of bands(rows, session.labels)) drawBand(canvas, band, x, height);
  for (const panel of panels) drawPanel(canvas, rows, x, panel);
  for (let second = Math.ceil(first); second <= last; second++) {
    const text = svg("text", { x: x(second), y: height - 6, "font-size": 11, "text-anchor": "middle", fill: "#66727e" });
    text.textContent = second + " s";
    canvas.append(text);
  }
  drawEdges(canvas, rows, x, height);
}

function drawTrimmed(canvas, rows, x, height) {
  let start = null;
  rows.forEach((row, index) => {
    if (row[8] === 0 && start === null) start = index;
    if (start !== null && (row[8] !== 0 || index === rows.length - 1)) {
      const end = row[8] !== 0 ? index - 1 : index;
      canvas.append(svg("rect", { x: x(rows[start][0]), y: 0, width: Math.max(1, x(rows[end][0]) - x(rows[start][0])), height: height, fill: "#e4e7ea" }));
      start = null;
    }
  });
}

// The runs of kept rows with one label other than rest: [first row index, last row index, label].
function bands(rows, labels) {
  const found = [];
  rows.forEach((row, index) => {
    const label = labels[row[7]];
    if (label === "rest" || row[8] === 0) return;
    const open = found[found.length - 1];
    if (open && open[2] === label && open[1] === index - 1) open[1] = index; else found.push([index, index, label]);
  });
  return found;
}

function drawBand(canvas, band, x, height) {
  const rows = studio.session.rows;
  const from = x(rows[band[0]][0]), to = x(rows[band[1]][0]);
  const colour = studio.session.colors[band[2]];
  canvas.append(svg("rect", { class: "band", "data-label": band[2], x: from, y: plot.top, width: Math.max(1, to - from), height: height - plot.top - 24, fill: colour, "fill-opacity": bandOpacity }));
  const name = svg("text", { x: (from + to) / 2, y: 15, "font-size": 13, "text-anchor": "middle", "font-weight": 650, fill: "#1d2329" });
  name.textContent = band[2];
  canvas.append(name);
}

function drawPanel(canvas, rows, x, panel) {
  const y = (value) => panel.top + plot.panel / 2 - (value / panel.range) * (plot.panel / 2 - 4);
  canvas.append(svg("rect", { x: plot.left, y: panel.top, width: plot.width - plot.left - plot.right, height: plot.panel, fill: "none", stroke: "#d9dee3" }));
  for (const [value, text] of [[panel.range, "+" + panel.range], [0, "0"], [-panel.range, "−" + panel.range]]) {
    const label = svg("text", { x: plot.left - 4, y: y(value) + 4, "font-size": 10, "text-anchor": "end", fill: "#66727e" });
    label.textContent = text;
    canvas.append(label);
  }
  // At most two points a pixel: the lowest and the highest of the rows it holds.
  const step = Math.max(1, Math.floor(rows.length / (plot.width - plot.left - plot.right)));
  for (let axis = 0; axis < 3; axis++) {
    const points = [];
    for (let start = 0; start < rows.length; start += step) {
      const slice = rows.slice(start, start + step);
      const values = slice.map((row) => row[panel.column + axis]).filter(Number.isFinite);
      if (values.length === 0) continue;
      const time = x(slice[0][0]).toFixed(1);
      points.push(time + "," + y(Math.min(...values)).toFixed(1));
      if (step > 1) points.push(time + "," + y(Math.max(...values)).toFixed(1));
    }
    canvas.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: axisColours[axis], "stroke-width": 1.2 }));
  }
}

// A handle on each edge of each band: dragging it to a row makes the rows between the gesture
// (the band grows) or rest (it shrinks), through one relabel. And one on each end of the kept
// rows: dragging it trims the session there, or brings trimmed rows back.
function drawEdges(canvas, rows, x, height) {
  const handle = (side, time, label, request) => {
    const edge = svg("rect", { class: "edge", "data-side": side, "data-label": label, "data-time": time, x: x(time) - 6, y: plot.top, width: 12, height: height - plot.top - 24 });
    edge.addEventListener("pointerdown", (event) => drag(event, edge, time, request));
    canvas.append(edge);
  };
  for (const band of bands(rows, studio.session.labels)) {
    handle("start", rows[band[0]][0], band[2], (row) => relabeling(rows, band, "start", row));
    handle("end", rows[band[1]][0], band[2], (row) => relabeling(rows, band, "end", row));
  }
  const kept = rows.map((row, index) => (row[8] === 1 ? index : -1)).filter((index) => index >= 0);
  if (kept.length === 0) return;
  const [first, last] = [kept[0], kept[kept.length - 1]];
  const trim = (from, to) => (from > to || (from === first && to === last) ? null : { trim: { from: rows[from][0], to: rows[to][0] } });
  handle("kept-start", rows[first][0], "kept", (row) => trim(row, last));
  handle("kept-end", rows[last][0], "kept", (row) => trim(first, row));
}

// Where a request left the plot: its span, for a person to read.
function described(request) {
  if (request.relabel) return "rows from " + request.relabel.from.toFixed(2) + " to " + request.relabel.to.toFixed(2) + " s are now " + request.relabel.label;
  return "rows kept from " + request.trim.from.toFixed(2) + " to " + request.trim.to.toFixed(2) + " s; the rest moved to recordings/discarded/";
}

function drag(event, edge, time, request) {
  const canvas = $("session-plot");
  const session = studio.session;
  const toPlot = (clientX) => {
    const box = canvas.getBoundingClientRect();
    return ((clientX - box.left) / box.width) * plot.width;
  };
  edge.setPointerCapture(event.pointerId);
  edge.classList.add("dragging");
  let row = nearestRow(session.rows, time);
  edge.onpointermove = (move) => {
    row = nearestRow(session.rows, session.timeAt(toPlot(move.clientX)));
    edge.setAttribute("x", session.x(session.rows[row][0]) - 6);
  };
  edge.onpointerup = () => {
    edge.onpointermove = edge.onpointerup = null;
    edge.classList.remove("dragging");
    const made = request(row);
    if (!made) return drawSession();
    change(made, described(made) + "; Undo takes it back");
  };
}

function nearestRow(rows, time) {
  let best = 0;
  rows.forEach((row, index) => { if (Math.abs(row[0] - time) < Math.abs(rows[best][0] - time)) best = index; });
  return best;
}

// The one relabel that moves the band's `side` to `row`, or null if it does not move.
function relabeling(rows, band, side, row) {
  const [first, last, label] = band;
  const span = (from, to, as) => (from > to ? null : { relabel: { from: rows[from][0], to: rows[to][0], label: as } });
  if (side === "end") {
    if (row > last) return span(last + 1, row, label);
    if (row < last) return span(Math.max(row, first) + 1, last, "rest");
  } else {
    if (row < first) return span(row, first - 1, label);
    if (row > first) return span(first, Math.min(row, last) - 1, "rest");
  }
  return null;
}

// MARK: Training

// The sessions ticked or a manifest, and `gesture train`'s common options; the run's epochs drawn
// as they come, then its figures on the sessions held out. The server trains (StudioTraining.swift).
let trainingPoll = null;

async function loadTraining() {
  let sessions, dataset, progress;
  try {
    [sessions, dataset, progress] = await Promise.all([api("/api/sessions"), api("/api/dataset"), api("/api/training")]);
  } catch (error) {
    return trainingSay(error, true);
  }
  const ticked = new Set(tickedSessions());
  const kept = sessions.filter((entry) => entry.record.status !== "discarded");
  $("train-sessions").replaceChildren(...kept.map((entry) => trainingRow(entry.record, ticked)));
  const select = $("train-source"), chosen = select.value;
  select.replaceChildren(element("option", { value: "" }, "those ticked below"),
    ...dataset.manifests.filter((manifest) => !manifest.error).map((manifest) => element("option", { value: manifest.file }, "manifest " + manifest.file)));
  select.value = chosen;
  if (select.selectedIndex < 0) select.value = "";
  studio.trainingSessions = kept.map((entry) => entry.record.id);
  showTraining(progress);
}

function trainingRow(record, ticked) {
  const box = element("input", { type: "checkbox", "data-id": record.id });
  box.checked = ticked.has(record.id);
  const tick = element("td");
  tick.append(box);
  const row = element("tr", { "data-id": record.id, title: record.id });
  row.append(tick, element("td", {}, record.user), element("td", {}, record.gesture), element("td", {}, record.take));
  return row;
}

const tickedSessions = () => [...document.querySelectorAll("#train-sessions input:checked")].map((box) => box.dataset.id);

function trainingSay(text, isError) {
  $("train-status").textContent = String(text && text.message !== undefined ? text.message : text);
  $("train-status").className = isError ? "error" : "status";
  if (isError) studio.errors.push($("train-status").textContent);
}

async function startTraining() {
  const request = { augment: $("train-augment").value.split(/[\s,]+/).filter((name) => name) };
  if ($("train-classifier").value) request.classifier = $("train-classifier").value;
  const epochs = $("train-epochs").value.trim();
  if (epochs) {
    if (!/^\d+$/.test(epochs)) return trainingSay("epochs '" + epochs + "' is not a whole number", true);
    request.epochs = Number(epochs);
  }
  if ($("train-source").value) request.manifest = $("train-source").value;
  else request.sessions = tickedSessions();
  try {
    showTraining(await api("/api/training", request));
  } catch (error) {
    trainingSay(error, true);
  }
}

async function cancelTraining() {
  try {
    showTraining(await api("/api/training/cancel", {}));
  } catch (error) {
    trainingSay(error, true);
  }
}

// Shows a run's progress, and asks again in half a second while it runs; a model just made is
// added to the detect view's and the sessions' choices.
function showTraining(progress) {
  const before = studio.training ? studio.training.state : null;
  studio.training = progress;
  const running = progress.state === "running";
  $("train-start").disabled = running;
  $("train-cancel").disabled = !running;
  $("train-epoch").textContent = progress.state === "idle" ? "" : progress.state + ", epoch " + progress.history.length + " of " + progress.epochs;
  // What the state says replaces the status line when the state changes, not an error said since.
  if (progress.state === "failed") trainingSay(progress.error, true);
  else if (progress.state !== before && progress.state !== "idle") trainingSay(progress.plan);
  drawHistory(progress.history, progress.epochs, progress.keptEpoch);
  $("train-results").replaceChildren(...(progress.evaluation ? evaluationFigures(progress) : []));
  if (before === "running" && progress.state === "finished") loadDevices().catch((error) => trainingSay(error, true));
  clearTimeout(trainingPoll);
  if (running) {
    trainingPoll = setTimeout(() => api("/api/training").then(showTraining, (error) => trainingSay(error, true)), 500);
  }
}

// Loss and window accuracy per epoch, training and validation, side by side, the epoch kept marked.
function drawHistory(history, epochs, kept) {
  const chart = $("train-history");
  const width = 1000, height = 210, top = 26, bottom = 24, left = 44, right = 14, half = width / 2;
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  chart.replaceChildren();
  const panels = [
    { title: "loss (cross-entropy)", from: 0, training: "trainingLoss", validation: "validationLoss" },
    { title: "window accuracy", from: half, highest: 1, training: "trainingAccuracy", validation: "validationAccuracy" },
  ];
  const last = Math.max(epochs, history.length, 1);
  for (const panel of panels) {
    const values = history.flatMap((report) => [number(report[panel.training]), number(report[panel.validation])]);
    const highest = panel.highest || extent(0.1, values);
    const x = (epoch) => panel.from + left + (last > 1 ? (epoch - 1) / (last - 1) : 0.5) * (half - left - right);
    const y = (value) => top + (1 - value / highest) * (height - top - bottom);
    chart.append(svg("rect", { x: panel.from + left, y: top, width: half - left - right, height: height - top - bottom, fill: "none", stroke: "#d9dee3" }));
    chartText(chart, panel.from + left, top - 8, panel.title, "start");
    chartText(chart, panel.from + left - 6, y(highest) + 4, String(highest), "end");
    chartText(chart, panel.from + left - 6, y(0) + 4, "0", "end");
    chartText(chart, x(1), height - 6, "epoch 1", "start");
    chartText(chart, x(last), height - 6, String(last), "end");
    if (kept) {
      chart.append(svg("line", { class: "kept", x1: x(kept), x2: x(kept), y1: top, y2: height - bottom, stroke: "#66727e", "stroke-dasharray": "4 3" }));
      chartText(chart, x(kept), top + 14, "kept", kept === last ? "end" : "middle");
    }
    for (const series of ["training", "validation"]) {
      const points = history.map((report) => [report.epoch, number(report[panel[series]])]).filter(([, value]) => Number.isFinite(value));
      if (points.length === 0) continue;
      chart.append(svg("polyline", { class: series, fill: "none", "stroke-width": 2, points: points.map(([epoch, value]) => x(epoch) + "," + y(value)).join(" ") }));
      for (const [epoch, value] of points) chart.append(svg("circle", { class: series, cx: x(epoch), cy: y(value), r: 3.5, fill: "#fff", "stroke-width": 2 }));
    }
  }
}

function chartText(chart, x, y, text, anchor) {
  const label = svg("text", { x: x, y: y, "text-anchor": anchor, "font-size": 13, fill: "#66727e" });
  label.textContent = text;
  chart.append(label);
}

// The evaluation as `gesture evaluate` prints it: accuracy, each class's figures, the confusion matrix.
function evaluationFigures(progress) {
  const evaluation = progress.evaluation;
  const figure = (value) => number(value).toFixed(3);
  const summary = element("p", { id: "train-summary" },
    "window accuracy " + figure(evaluation.accuracy) + ", macro F1 " + figure(evaluation.macroF1) + ", session accuracy " +
    figure(evaluation.sessionAccuracy) + " (" + evaluation.sessionsRecognised + " of " + evaluation.sessionsWithGesture +
    " sessions with a gesture). Detect and each session's windows offer it now.");
  const classes = figuresTable("train-classes", ["Class", "Precision", "Recall", "F1", "Windows"],
    evaluation.classes.map((each) => [each.name, figure(each.precision), figure(each.recall), figure(each.f1), each.support]));
  const confusion = figuresTable("train-confusion", ["target \\ predicted", ...evaluation.classNames],
    evaluation.classNames.map((name, row) => [name, ...evaluation.confusion[row]]));
  confusion.classList.add("confusion");
  evaluation.confusion.forEach((counts, row) => {
    const total = counts.reduce((sum, count) => sum + count, 0) || 1;
    const cells = confusion.tBodies[0].rows[row].cells;
    counts.forEach((count, column) => {
      const share = count / total;
      cells[column + 1].style.background = `rgba(47, 111, 181, ${(share * 0.85).toFixed(3)})`;
      cells[column + 1].style.color = share > 0.55 ? "#fff" : "";
      cells[column + 1].title = Math.round(share * 100) + " % of the " + evaluation.classNames[row] + " windows";
    });
  });
  return [element("h3", {}, "Model " + progress.model + " (epoch " + progress.keptEpoch + " kept), on the sessions held out"), summary,
    element("h3", {}, "Each class"), classes, element("h3", {}, "Confusion matrix (share of the target's windows shaded)"), confusion];
}

function figuresTable(id, header, rows) {
  const table = element("table", { id: id });
  const head = element("tr");
  head.append(...header.map((name) => element("th", {}, name)));
  const body = element("tbody");
  for (const row of rows) {
    const line = element("tr");
    line.append(...row.map((value) => element("td", {}, String(value))));
    body.append(line);
  }
  table.append(element("thead"), body);
  table.tHead.append(head);
  return table;
}

$("train-start").onclick = startTraining;
$("train-cancel").onclick = cancelTraining;
$("train-all").onchange = () => {
  for (const box of document.querySelectorAll("#train-sessions input")) box.checked = $("train-all").checked;
};

// MARK: Recording

// `gesture record` from the page: the server records (StudioRecording.swift); the page shows the
// prompts big, as the phone's page does, and each take as it ends, to keep or discard.
let recordingPoll = null;

async function loadRecording() {
  try {
    const [progress] = await Promise.all([api("/api/recording"), checkNames()]);
    showRecording(progress);
  } catch (error) {
    recordingSay(error, true);
  }
}

// The users and gestures recorded already, offered as the fields are typed in; a name held in
// other letter case (recorded as held), or close to one held (recorded as typed: a warning, not a
// refusal), is said under the fields before the recording starts. The names checked last are in
// #record-names's data-checked, "user/gesture", so a test waits for the answer, not for time.
let namesAsked = 0;

async function checkNames() {
  const asked = ++namesAsked;
  const query = { user: $("record-user").value.trim(), gesture: $("record-gesture").value.trim() };
  const names = await api("/api/recording/names", null, query);
  if (asked !== namesAsked) return;
  const options = (list) => list.map((held) => element("option", { value: held.name, label: held.sessions + (held.sessions === 1 ? " session" : " sessions") }));
  $("record-users").replaceChildren(...options(names.users));
  $("record-gestures").replaceChildren(...options(names.gestures.filter((held) => held.name !== "rest")));
  for (const [id, line] of [["record-user-warning", names.userWarning], ["record-gesture-warning", names.gestureWarning]]) {
    $(id).textContent = line || "";
    $(id).hidden = !line;
  }
  $("record-names").dataset.checked = query.user + "/" + query.gesture;
}

function recordingSay(text, isError) {
  $("record-status").textContent = String(text && text.message !== undefined ? text.message : text);
  $("record-status").className = isError ? "error" : "status";
  if (isError) studio.errors.push($("record-status").textContent);
}

// The request with the takes and the take and rest lengths typed; null, said on the page, when one is not a number.
function withLengths(request) {
  for (const [key, id] of [["takes", "record-takes-count"], ["take", "record-take"], ["rest", "record-rest"]]) {
    const text = $(id).value.trim();
    if (text === "") continue;
    const refusal = !Number.isFinite(Number(text)) ? key + " '" + text + "' is not a number"
      : key === "takes" && !Number.isInteger(Number(text)) ? "takes '" + text + "' is not a whole number" : null;
    if (refusal) {
      recordingSay(refusal, true);
      return null;
    }
    request[key] = Number(text);
  }
  return request;
}

async function startRecording() {
  const device = $("record-device").value;
  const request = withLengths({ device: device, user: $("record-user").value.trim(), gesture: $("record-gesture").value.trim() });
  if (request && !isPhone(device) && $("record-with-phone").checked) request.with = "phone";
  if (request) await record(request);
}

// A board can be recorded with the phone on its rows (`gesture record --with phone`).
function isPhone(device) { return device === "phone" || device.startsWith("phone:"); }
function offerThePhoneWith() { $("record-with-phone-label").hidden = isPhone($("record-device").value); }
$("record-device").onchange = offerThePhoneWith;

// A group recording: each phone of the group's table whose user is typed, as that user.
async function startGroupRecording() {
  const phones = [...$("group-phones").children]
    .map((row) => ({ phone: Number(row.dataset.phone), user: row.querySelector("input").value.trim() }))
    .filter((member) => member.user !== "");
  if (phones.length === 0) return recordingSay("type the user who holds each phone that records", true);
  const request = withLengths({ phones: phones, gesture: $("record-gesture").value.trim() });
  if (request) await record(request);
}

async function record(request) {
  // A phone's readings go to one reader: the recording, not a live view.
  if (request.phones || request.device.startsWith("phone")) [live, detecting].forEach((view) => view.stop());
  try {
    showRecording(await api("/api/recording", request));
  } catch (error) {
    recordingSay(error, true);
  }
}

async function stopRecording() {
  try {
    showRecording(await api("/api/recording/stop", {}));
  } catch (error) {
    recordingSay(error, true);
  }
}

async function decide(session, keep) {
  try {
    showRecording(await api("/api/recording/decision", { session: session, keep: keep }));
  } catch (error) {
    recordingSay(error, true);
  }
}

const recordingRunning = (progress) => progress.state === "waiting" || progress.state === "recording";

// Shows a recording's state, its latest prompt big and its takes, and asks again in a quarter of
// a second while it runs. An answer older than the one shown is left out: polls and decisions
// cross on the way.
function showRecording(progress) {
  const earlier = studio.recording || { state: null, warnings: [], revision: -1 };
  if (progress.revision < earlier.revision) return;
  studio.recording = progress;
  const running = recordingRunning(progress);
  $("record-start").disabled = running;
  $("record-group").disabled = running;
  $("record-stop").disabled = !running;
  const prompt = progress.prompts.length > 0 ? progress.prompts[progress.prompts.length - 1] : "";
  $("record-prompt").textContent = progress.state === "waiting" ? "Waiting for the phone" : prompt;
  $("record-prompt").classList.toggle("go", prompt === "Go" && running);
  showTakes(progress.takes);
  showMembers(progress.members || []);
  if (progress.state !== earlier.state || progress.warnings.length !== earlier.warnings.length || progress.error) recordingSay(recordingStatus(progress), progress.state === "failed" || (Boolean(progress.error) && progress.state !== "stopped"));
  clearTimeout(recordingPoll);
  if (running) recordingPoll = setTimeout(() => api("/api/recording").then(showRecording, (error) => recordingSay(error, true)), 250);
}

function recordingStatus(progress) {
  const what = progress.user + " recording " + progress.plannedTakes + (progress.plannedTakes === 1 ? " take" : " takes") + " of " + progress.gesture + " on " + progress.device;
  switch (progress.state) {
    case "idle": return $("record-status").textContent;
    case "waiting": return what + ": waiting for the phone's page to stream (open it on the phone and tap Start)";
    case "recording": return what + progress.warnings.map((warning) => "; " + warning).join("");
    case "finished": return what + ": done. The takes are in Sessions and Dataset" + (progress.error ? "; " + progress.error : "");
    default: return progress.error || progress.state;
  }
}

// Each phone's part of a group recording: its user, and how it goes or why it ended.
function showMembers(members) {
  const parts = members.length > 1 ? members : [];
  $("group-members").replaceChildren(...parts.map((member) => element("li", { class: member.state, "data-device": member.device },
    member.device.replace(":", " ") + " — " + member.user + ": " + member.state + (member.error ? " (" + member.error + ")" : ""))));
}

// Each take's row is changed in place, never drawn anew: a button replaced between its press and
// its release (as the next take ends) would lose the click.
function showTakes(takes) {
  const body = $("record-takes");
  const ids = new Set(takes.map((take) => take.record.id));
  for (const row of [...body.children]) if (!ids.has(row.dataset.id)) row.remove();
  for (const take of takes) {
    const row = [...body.children].find((shown) => shown.dataset.id === take.record.id) || body.appendChild(takeRow(take.record.id));
    fillTakeRow(row, take);
  }
}

function takeRow(id) {
  const keep = element("button", { "data-keep": id }, "Keep");
  const discard = element("button", { "data-discard": id }, "Discard");
  keep.onclick = () => decide(id, true);
  discard.onclick = () => decide(id, false);
  const choice = element("td");
  choice.append(keep, discard);
  const row = element("tr", { "data-id": id });
  row.append(element("td"), element("td"), element("td"), element("td"), element("td"), element("td"), choice);
  return row;
}

function fillTakeRow(row, take) {
  const record = take.record;
  const [number, user, session, rows, labels, status] = row.children;
  row.className = take.discarding ? "discarding" : "";
  number.textContent = record.take;
  user.textContent = record.user;
  session.textContent = record.id;
  rows.textContent = record.sampleCount;
  labels.textContent = labelSummary(record);
  status.textContent = take.discarding && record.status !== "discarded" ? "to be discarded" : record.status;
  status.title = record.reason || "";
  row.querySelector("[data-keep]").disabled = !take.discarding;
  row.querySelector("[data-discard]").disabled = take.discarding;
}

$("record-start").onclick = startRecording;
$("record-group").onclick = startGroupRecording;
for (const id of ["record-user", "record-gesture"]) $(id).oninput = () => checkNames().catch((error) => recordingSay(error, true));
$("record-stop").onclick = stopRecording;

// MARK: Phones

// The phones paired now, asked for every second: counted in the header, and listed in the group's
// table, whose rows change in place so that a user typed stays. A phone's page is opened on the
// phone only: this page never connects as one, so it never takes a phone's slot.
async function loadPhones() {
  const phones = await api("/api/phones");
  studio.phones = phones;
  const streaming = phones.filter((phone) => phone.state === "streaming").length;
  $("phones-paired").textContent = phones.length === 0 ? "no phone paired"
    : phones.length + (phones.length === 1 ? " phone" : " phones") + " paired, " + streaming + " streaming";
  const body = $("group-phones");
  const numbers = new Set(phones.map((phone) => String(phone.number)));
  for (const row of [...body.children]) if (!numbers.has(row.dataset.phone)) row.remove();
  for (const phone of phones) {
    const rows = [...body.children];
    let row = rows.find((shown) => shown.dataset.phone === String(phone.number));
    if (!row) {
      const user = element("td");
      user.append(element("input", { id: "group-user-" + phone.number, list: "record-users" }));
      row = element("tr", { "data-phone": phone.number });
      row.append(element("td", {}, phone.name), element("td"), user);
      body.insertBefore(row, rows.find((shown) => Number(shown.dataset.phone) > phone.number) || null);
    }
    row.children[1].textContent = phone.state === "streaming" ? "streaming (" + phone.source + ")" : "connected: tap Start on it";
  }
}

// MARK: Start

$("phone-address").textContent = location.origin + "/phone" + location.search;
setInterval(() => loadPhones().catch(() => {}), 1000);
loadPhones().catch(() => {});
window.addEventListener("hashchange", route);
loadDevices().catch((error) => live.say(String(error.message || error), true)).finally(route);
