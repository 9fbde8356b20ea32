// The client side of server/API.md: JSON requests and the run websocket.

/** ApiError carries the server's {"error", "hint"} or a network failure. */
export class ApiError extends Error {
  constructor(message, hint, status) {
    super(message);
    this.hint = hint || "";
    this.status = status || 0;
  }
}

const unreachable = () =>
  new ApiError(
    "the workbench server is not reachable",
    "is `workbench serve` still running? Start it again and reload this page",
    0,
  );

async function request(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      // Every POST says it is JSON, with or without a body: the server
      // refuses other POSTs (a form from another site cannot send this).
      headers: method === "POST" || body ? { "Content-Type": "application/json" } : undefined,
      body: body ? JSON.stringify(body) : method === "POST" ? "{}" : undefined,
    });
  } catch {
    throw unreachable();
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const msg = (data && data.error) || `${method} ${path}: HTTP ${res.status}`;
    throw new ApiError(msg, data && data.hint, res.status);
  }
  if (data === null) throw new ApiError(`${method} ${path}: the answer is not JSON`, "", res.status);
  return data;
}

export const api = {
  steps: () => request("GET", "/api/steps"),
  readme: () => request("GET", "/api/lessons/readme"),
  doc: (name) => request("GET", `/api/lessons/doc/${encodeURIComponent(name)}`),
  step: (n) => request("GET", `/api/steps/${encodeURIComponent(n)}`),
  kernel: (name) => request("GET", `/api/kernels/${encodeURIComponent(name)}`),
  kernelBug: (name, ranks) => request("GET", `/api/kernels/${encodeURIComponent(name)}/bug?ranks=${encodeURIComponent(ranks)}`),
  check: (body) => request("POST", "/api/check", body),
  ir: (body) => request("POST", "/api/ir", body),
  irLines: (body) => request("POST", "/api/ir/lines", body),
  passes: () => request("GET", "/api/passes"),
  platforms: () => request("GET", "/api/platforms"),
  schedules: (body) => request("POST", "/api/schedules", body),
  sweep: (body) => request("POST", "/api/sweep", body),
  compare: (body) => request("POST", "/api/compare", body),
  exportScript: (body) => request("POST", "/api/export", body),
  pypto: () => request("GET", "/api/pypto"),
  pyptoRun: (body) => request("POST", "/api/pypto/run", body),
  pyptoCheck: (body) => request("POST", "/api/pypto/check", body),
  stepCheck: (n, body) => request("POST", `/api/steps/${encodeURIComponent(n)}/check`, body),
  postRun: (body) => request("POST", "/api/runs", body),
  run: (id) => request("GET", `/api/runs/${encodeURIComponent(id)}`),
};

/** traceURL is the Perfetto export of a stored run. */
export const traceURL = (id) => `/api/runs/${encodeURIComponent(id)}/trace.json`;

/** shareURL is the absolute address of a run's share page. */
export const shareURL = (path) => new URL(path, location.origin).href;

/**
 * openRun connects to /ws/runs/{id}. onMessage gets every message object in
 * order (batches are unpacked); onClose(sawDone, reason) runs once when the
 * socket closes. The result's stop() asks the server to cancel the run and,
 * if the socket is still open a second later, closes it.
 */
export function openRun(id, onMessage, onClose) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/runs/${encodeURIComponent(id)}`);
  let sawDone = false;
  let closed = false;
  ws.onmessage = (e) => {
    let data;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    const list = Array.isArray(data) ? data : [data];
    for (const m of list) {
      if (m && m.type === "done") sawDone = true;
      onMessage(m);
    }
  };
  const finish = (reason) => {
    if (closed) return;
    closed = true;
    onClose(sawDone, reason);
  };
  ws.onerror = () => finish("the connection to the server failed");
  ws.onclose = (e) => finish(e.reason || (e.code === 1000 ? "" : `socket closed (code ${e.code})`));
  return {
    stop() {
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: "stop" }));
        setTimeout(() => {
          if (ws.readyState === WebSocket.OPEN) ws.close(1000, "stopped");
        }, 1000);
      } else if (ws.readyState === WebSocket.CONNECTING) {
        ws.close();
      }
    },
    close() {
      if (ws.readyState <= WebSocket.OPEN) ws.close(1000, "left the page");
    },
  };
}

/*
 * The page's one session socket (GET /ws/session, API.md): every run the
 * page starts is a message on it, answered with the run's id and then its
 * messages, the same ones /ws/runs/{id} sends, in frames naming the run.
 * It opens with the first run and stays open; when it closes, the runs it
 * carried end (their onClose) and the next run opens a new one.
 */
let session = null;

function sessionSocket() {
  if (session) return session;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/session`);
  const s = { ws, outbox: [], asks: new Map(), runs: new Map(), tag: 0, over: false };
  s.send = (m) => {
    const text = JSON.stringify(m);
    if (ws.readyState === WebSocket.OPEN) ws.send(text);
    else s.outbox.push(text);
  };
  ws.onopen = () => {
    for (const text of s.outbox) ws.send(text);
    s.outbox = [];
  };
  ws.onmessage = (e) => {
    let f;
    try {
      f = JSON.parse(e.data);
    } catch {
      return;
    }
    if (!f) return;
    if (f.type === "started" || f.type === "refused") {
      const ask = s.asks.get(f.tag);
      if (!ask) return;
      s.asks.delete(f.tag);
      if (f.type === "refused") {
        ask.reject(new ApiError(f.error || `the run was refused (HTTP ${f.status})`, f.hint, f.status));
        return;
      }
      if (!s.runs.has(f.id)) s.runs.set(f.id, { log: [], watchers: [], done: false });
      ask.resolve({ id: f.id, cached: f.cached, settings: f.settings, open: (onMessage, onClose) => follow(s, f.id, onMessage, onClose) });
    } else if (f.type === "messages") {
      const r = s.runs.get(f.id);
      if (!r) return;
      for (const m of f.messages || []) {
        r.log.push(m);
        for (const w of r.watchers.slice()) w.onMessage(m);
        if (m && m.type === "done") {
          r.done = true;
          s.runs.delete(f.id);
          for (const w of r.watchers.splice(0)) w.onClose(true, "");
        }
      }
    }
  };
  const end = (reason) => {
    if (s.over) return;
    s.over = true;
    if (session === s) session = null;
    for (const ask of s.asks.values()) ask.reject(unreachable());
    s.asks.clear();
    for (const r of s.runs.values()) for (const w of r.watchers.splice(0)) w.onClose(false, reason);
    s.runs.clear();
  };
  ws.onerror = () => end("the connection to the server failed");
  ws.onclose = (e) => end(e.reason || (e.code === 1000 ? "" : `socket closed (code ${e.code})`));
  session = s;
  return s;
}

/** follow watches run id on session s, from its first message: openRun's contract. */
function follow(s, id, onMessage, onClose) {
  const r = s.runs.get(id);
  const w = { onMessage, onClose };
  let closed = false;
  const leave = (reason) => {
    if (closed) return;
    closed = true;
    if (r) r.watchers = r.watchers.filter((x) => x !== w);
    onClose(false, reason);
  };
  w.onClose = (sawDone, reason) => {
    if (closed) return;
    closed = true;
    onClose(sawDone, reason);
  };
  // As on a socket of its own, messages come after open returns: what
  // the run sent so far first, then the rest as it comes.
  setTimeout(() => {
    if (closed) return;
    if (!r) {
      leave("the connection to the server closed");
      return;
    }
    for (const m of r.log) onMessage(m);
    if (r.done) w.onClose(true, "");
    else if (s.over) leave("the connection to the server closed");
    else r.watchers.push(w);
  }, 0);
  return {
    stop() {
      if (closed) return;
      s.send({ type: "stop", id });
      // As openRun: a client behind the stream stops following a second later.
      setTimeout(() => leave("stopped"), 1000);
    },
    close() {
      if (closed) return;
      // A run nobody follows any more is cancelled, as when its own socket closes.
      s.send({ type: "stop", id });
      leave("left the page");
    },
  };
}

/**
 * startRun starts a run on the page's session: it resolves to POST
 * /api/runs's answer ({id, cached, settings}) and open(onMessage, onClose),
 * which follows the run as openRun does; it rejects with an ApiError as
 * api.postRun does.
 */
export function startRun(body) {
  const s = sessionSocket();
  const tag = ++s.tag;
  return new Promise((resolve, reject) => {
    if (s.over) {
      reject(unreachable());
      return;
    }
    s.asks.set(tag, { resolve, reject });
    s.send({ type: "run", tag, request: body });
  });
}
