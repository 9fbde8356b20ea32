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
