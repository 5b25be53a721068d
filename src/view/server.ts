/**
 * `prosec view`'s server: 127.0.0.1 only, on a free port, every path under a random token (a page
 * of another site, or another user of the machine, cannot guess it). Read-only: GET and HEAD.
 *
 *   /<token>/                    the runs, newest first (or the run named on the command line)
 *   /<token>/run/<id>            one run
 *   /<token>/api/runs            the runs as JSON
 *   /<token>/api/run/<id>        one run as JSON
 *   /<token>/api/run/<id>/version  changes when the run's files do (the page polls it)
 *   /<token>/api/run/<id>/graph    the graph with the run's state, as SVG
 *   /<token>/api/run/<id>/step/<key>  one step's requests and answers, with their texts
 *
 * The runs are the store's (src/runs/): a run that keeps a trace in its folder has the pages above;
 * one that does not (a DBOS run) has stored-run-page.ts's: what its store holds.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { FoundRun, RunStore, StoredRun } from "../runs/run-store.js";
import { renderPage } from "./page.js";
import { durationOf, runVersion, type RunSummary } from "./run-data.js";
import { readRunGraph, readRunView } from "./run-view.js";
import { readStepDetail } from "./step-detail.js";
import { renderStoredRunPage } from "./stored-run-page.js";

export interface ViewServer {
  readonly url: string;
  close(): Promise<void>;
}

export function startViewServer(store: RunStore, runId?: string): Promise<ViewServer> {
  const token = randomBytes(16).toString("hex");
  const server = createServer((request, response) => {
    handle(request, response, store, token, runId).catch((error: unknown) =>
      send(response, 500, "text/plain", `prosec view: ${error instanceof Error ? error.message : String(error)}`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/${token}/`, close: () => closeServer(server) });
    });
  });
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  store: RunStore,
  token: string,
  runId: string | undefined,
): Promise<void> {
  if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "text/plain", "read-only");
  const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
  const prefix = `/${token}/`;
  if (!path.startsWith(prefix)) return send(response, 404, "text/plain", "not found");
  const route = path.slice(prefix.length).split("/").map(decodeURIComponent);
  const api = `${prefix}api/`;
  if (route.length === 1 && route[0] === "") {
    if (runId !== undefined) return sendRunPage(response, store, runId, api);
    const runs = await listRuns(store);
    return send(response, 200, "text/html", renderPage({ title: "prosec runs", mode: "runs", runs, api }));
  }
  if (route[0] === "run" && route.length === 2) return sendRunPage(response, store, route[1]!, api);
  if (route[0] === "api" && route[1] === "runs" && route.length === 2)
    return send(response, 200, "application/json", JSON.stringify(await listRuns(store)));
  if (route[0] === "api" && route[1] === "run" && route.length >= 3) {
    const found = await store.find(route[2]!);
    if (found === undefined) return send(response, 404, "text/plain", "no such run");
    const dir = found.folder;
    if (route.length === 3)
      return send(
        response,
        200,
        "application/json",
        JSON.stringify(
          dir === undefined
            ? { ...found, steps: await store.steps(found.runId) }
            : readRunView(found.runId, dir, { graph: false }),
        ),
      );
    // The trace's routes: a run that keeps no trace has none.
    if (dir === undefined) return send(response, 404, "text/plain", "not found");
    if (route.length === 4 && route[3] === "version") return send(response, 200, "text/plain", runVersion(dir));
    if (route.length === 4 && route[3] === "graph")
      return send(response, 200, "image/svg+xml", readRunGraph(found.runId, dir));
    if (route.length === 5 && route[3] === "step") {
      const detail = readStepDetail(found.runId, dir, route[4]!);
      if (detail === undefined) return send(response, 404, "text/plain", "no such step");
      return send(response, 200, "application/json", JSON.stringify(detail));
    }
  }
  send(response, 404, "text/plain", "not found");
}

async function sendRunPage(response: ServerResponse, store: RunStore, runId: string, api: string): Promise<void> {
  const found: FoundRun | undefined = await store.find(runId);
  if (found === undefined) return send(response, 404, "text/plain", "no such run");
  if (found.folder === undefined)
    return send(response, 200, "text/html", renderStoredRunPage(found, await store.steps(runId)));
  const run = readRunView(runId, found.folder, { graph: false });
  send(response, 200, "text/html", renderPage({ title: `${run.program} · ${runId}`, mode: "run", run, api }));
}

/** The store's runs as the list shows them, newest first (a part of the store that cannot be read is said on stderr). */
export async function listRuns(store: RunStore): Promise<RunSummary[]> {
  const listing = await store.list();
  if (listing.problem !== undefined) process.stderr.write(`prosec view: ${listing.problem.message}\n`);
  return listing.runs.map(summaryOf);
}

/** A run as the list shows it; one that keeps no trace is marked with its store's name (its page shows what that holds). */
function summaryOf(run: StoredRun): RunSummary {
  return {
    runId: run.runId,
    ...(run.folder === undefined ? { mark: run.store.toUpperCase() } : {}),
    program: run.program ?? run.runId,
    status: run.status,
    ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
    ...(run.status === "queued" || run.updatedAt === undefined
      ? {}
      : durationOf(run.startedAt, Date.parse(run.updatedAt))),
    steps: run.steps,
    tokens: run.tokens,
    ...(run.cost === undefined ? {} : { cost: run.cost }),
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  });
  response.end(body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
