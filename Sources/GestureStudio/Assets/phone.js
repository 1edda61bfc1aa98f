// The phone's page: reads the accelerometer (with gravity) and the gyroscope, stamps each reading
// with the page's clock (ms, performance.now()'s timeline), and streams them in batches to the
// studio's server, which maps units and axes (PhoneSource.swift). It shows the prompts it is sent.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const socketAddress =
  (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/phone/socket?token=" + encodeURIComponent(token);
const startButton = document.getElementById("start");
const statusLine = document.getElementById("status");
const promptText = document.getElementById("prompt");
const valuesText = document.getElementById("values");

// What the page has done, for a person to read and for tests to wait on.
const studio = { connected: false, name: null, source: null, sent: 0, closed: null, prompts: [] };
window.studio = studio;

let socket = null;
let announced = false;
let batch = [];
let latest = null;

function show(text) {
  statusLine.textContent = text;
}

function connect() {
  socket = new WebSocket(socketAddress);
  socket.onopen = () => {
    studio.connected = true;
    startButton.disabled = false;
    show("Connected. Tap Start to stream this phone's motion.");
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    // Which of the studio's phones this one is: several may record at once.
    if (typeof message.paired === "string") {
      studio.name = message.paired;
      document.getElementById("name").textContent = "This is " + message.paired;
    }
    if (typeof message.prompt === "string") {
      promptText.textContent = message.prompt;
      studio.prompts.push(message.prompt);
    }
  };
  socket.onclose = (event) => {
    studio.connected = false;
    studio.closed = event.reason || "the connection closed";
    startButton.disabled = true;
    startButton.textContent = "Ended";
    show("Disconnected (" + studio.closed + "). Reload the page to connect again.");
  };
}

// A reading as the API gives it: time in ms, then acceleration and rotation in the API's own units.
function add(time, values) {
  batch.push([time, ...values]);
  latest = values;
}

function flush() {
  if (!socket || socket.readyState !== WebSocket.OPEN || !studio.source) {
    batch = [];
    return;
  }
  if (!announced) {
    socket.send(JSON.stringify({ source: studio.source }));
    announced = true;
  }
  if (batch.length === 0) return;
  socket.send(JSON.stringify({ readings: batch }));
  studio.sent += batch.length;
  batch = [];
  show("Streaming through " + studio.source + ": " + studio.sent + " readings sent.");
  // The latest reading in the API's own units, a line for acceleration and one for rotation.
  const line = (values) => values.map((value) => value.toFixed(2).padStart(8)).join("");
  valuesText.textContent = "acceleration" + line(latest.slice(0, 3)) + "\nrotation    " + line(latest.slice(3));
}

function useDeviceMotion(source) {
  studio.source = source;
  window.addEventListener("devicemotion", (event) => {
    const a = event.accelerationIncludingGravity;
    // Chrome sends one event without values when the phone has no motion sensors.
    if (!a || a.x === null) return;
    const r = event.rotationRate || {};
    add(event.timeStamp, [a.x, a.y, a.z, r.alpha || 0, r.beta || 0, r.gamma || 0]);
  });
}

// The Generic Sensor API where the browser has it and the phone's sensors answer; else DeviceMotionEvent.
function useGenericSensors() {
  let accelerometer, gyroscope;
  try {
    accelerometer = new Accelerometer({ frequency: 60 });
    gyroscope = new Gyroscope({ frequency: 60 });
  } catch (error) {
    return useDeviceMotion("device-motion");
  }
  let failed = false;
  const fallBack = () => {
    if (failed) return;
    failed = true;
    accelerometer.stop();
    gyroscope.stop();
    useDeviceMotion("device-motion");
  };
  accelerometer.onerror = fallBack;
  gyroscope.onerror = fallBack;
  accelerometer.onreading = () => {
    if (gyroscope.x === null || failed) return;
    studio.source = "generic-sensor";
    add(accelerometer.timestamp, [accelerometer.x, accelerometer.y, accelerometer.z, gyroscope.x, gyroscope.y, gyroscope.z]);
  };
  gyroscope.start();
  accelerometer.start();
}

// iOS and iPadOS (which says it is a Mac with a touch screen) report acceleration with the opposite signs.
const iOS = /iPhone|iPad|iPod/.test(navigator.userAgent) || (/Macintosh/.test(navigator.userAgent) && navigator.maxTouchPoints > 1);

async function start() {
  startButton.disabled = true;
  startButton.textContent = "Streaming";
  // Safari gives motion only to a page that asks during a tap.
  if (typeof DeviceMotionEvent !== "undefined" && typeof DeviceMotionEvent.requestPermission === "function") {
    const answer = await DeviceMotionEvent.requestPermission().catch(() => "denied");
    if (answer !== "granted") {
      show("Motion access was refused. Allow it (on iOS: Settings › Safari › Motion & Orientation Access) and reload.");
      return;
    }
  }
  if (iOS) {
    useDeviceMotion("device-motion-ios");
  } else if ("Accelerometer" in window && "Gyroscope" in window) {
    useGenericSensors();
  } else if ("DeviceMotionEvent" in window) {
    useDeviceMotion("device-motion");
  } else {
    show("This browser gives the page no motion sensors.");
    return;
  }
  if (navigator.wakeLock) navigator.wakeLock.request("screen").catch(() => {});
  show("Waiting for the first reading…");
}

startButton.addEventListener("click", start);
setInterval(flush, 50);
connect();
