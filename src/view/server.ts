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
 *
 * With a DBOS database (`databaseUrl`), the list has its runs too, and a DBOS run's pages are
 * dbos-view.ts's: what the database holds.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { runsFolder } from "../run/run-list.js";
import { renderPage } from "./page.js";
import { readRunData, runGraph, runVersion, summarizeRun, type RunSummary } from "./run-data.js";

export interface ViewServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface ViewServerOptions {
  /** The DBOS database whose runs are listed too (DBOS_SYSTEM_DATABASE_URL). */
  readonly databaseUrl?: string;
}

export function startViewServer(cwd: string, runId?: string, options: ViewServerOptions = {}): Promise<ViewServer> {
  const token = randomBytes(16).toString("hex");
  const server = createServer((request, response) => {
    const failed = (error: unknown): void =>
      send(response, 500, "text/plain", `prosec view: ${error instanceof Error ? error.message : String(error)}`);
    try {
      if (options.databaseUrl !== undefined && request.method === "GET") {
        handleWithDatabase(request, response, cwd, token, runId, options.databaseUrl).catch(failed);
        return;
      }
      handle(request, response, cwd, token, runId);
    } catch (error) {
      failed(error);
    }
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}/${token}/`, close: () => closeServer(server) });
    });
  });
}

function handle(request: IncomingMessage, response: ServerResponse, cwd: string, token: string, runId?: string): void {
  if (request.method !== "GET" && request.method !== "HEAD") return send(response, 405, "text/plain", "read-only");
  const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
  const prefix = `/${token}/`;
  if (!path.startsWith(prefix)) return send(response, 404, "text/plain", "not found");
  const route = path.slice(prefix.length).split("/").map(decodeURIComponent);
  const api = `${prefix}api/`;
  if (route.length === 1 && route[0] === "") {
    if (runId !== undefined) return sendRunPage(response, cwd, runId, api);
    return send(
      response,
      200,
      "text/html",
      renderPage({ title: "prosec runs", mode: "runs", runs: listRuns(cwd), api }),
    );
  }
  if (route[0] === "run" && route.length === 2) return sendRunPage(response, cwd, route[1]!, api);
  if (route[0] === "api" && route[1] === "runs" && route.length === 2)
    return send(response, 200, "application/json", JSON.stringify(listRuns(cwd)));
  if (route[0] === "api" && route[1] === "run" && route.length >= 3) {
    const dir = runDir(cwd, route[2]!);
    if (dir === undefined) return send(response, 404, "text/plain", "no such run");
    if (route.length === 3)
      return send(response, 200, "application/json", JSON.stringify(readRunData(route[2]!, dir, { graph: false })));
    if (route.length === 4 && route[3] === "version") return send(response, 200, "text/plain", runVersion(dir));
    if (route.length === 4 && route[3] === "graph")
      return send(response, 200, "image/svg+xml", runGraph(route[2]!, dir));
  }
  send(response, 404, "text/plain", "not found");
}

/** The routes that read the database (the list, a DBOS run's page and JSON); the others are `handle`'s. */
async function handleWithDatabase(
  request: IncomingMessage,
  response: ServerResponse,
  cwd: string,
  token: string,
  runId: string | undefined,
  databaseUrl: string,
): Promise<void> {
  const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
  const prefix = `/${token}/`;
  const route = path.startsWith(prefix) ? path.slice(prefix.length).split("/").map(decodeURIComponent) : [];
  const list = route.length === 1 && route[0] === "" && runId === undefined;
  if (list || (route[0] === "api" && route[1] === "runs" && route.length === 2)) {
    const runs = await listAllRuns(cwd, databaseUrl);
    if (!list) return send(response, 200, "application/json", JSON.stringify(runs));
    return send(
      response,
      200,
      "text/html",
      renderPage({ title: "prosec runs", mode: "runs", runs, api: `${prefix}api/` }),
    );
  }
  const named =
    route.length === 1 && route[0] === "" ? runId : route[0] === "run" && route.length === 2 ? route[1] : undefined;
  const asked = named ?? (route[0] === "api" && route[1] === "run" && route.length === 3 ? route[2] : undefined);
  if (asked !== undefined && runDir(cwd, asked) === undefined) {
    const { readDbosRun, renderDbosRunPage } = await import("./dbos-view.js");
    const detail = await readDbosRun(databaseUrl, asked);
    if (detail === undefined) return send(response, 404, "text/plain", "no such run");
    if (named !== undefined) return send(response, 200, "text/html", renderDbosRunPage(detail));
    return send(response, 200, "application/json", JSON.stringify(detail));
  }
  handle(request, response, cwd, token, runId);
}

/** The file runs and the database's, newest first (the database's left out, and said on stderr, when it cannot be read). */
export async function listAllRuns(cwd: string, databaseUrl: string): Promise<RunSummary[]> {
  const { dbosRunSummaries } = await import("./dbos-view.js");
  const database = await dbosRunSummaries(databaseUrl);
  if (database.problem !== undefined) process.stderr.write(`prosec view: no DBOS runs listed: ${database.problem}\n`);
  const started = (run: RunSummary): number => Date.parse(run.startedAt ?? "") || 0;
  return [...listRuns(cwd), ...database.runs].sort((a, b) => started(b) - started(a));
}

function sendRunPage(response: ServerResponse, cwd: string, runId: string, api: string): void {
  const dir = runDir(cwd, runId);
  if (dir === undefined) return send(response, 404, "text/plain", "no such run");
  const run = readRunData(runId, dir, { graph: false });
  send(response, 200, "text/html", renderPage({ title: `${run.program} · ${runId}`, mode: "run", run, api }));
}

/** The runs, newest first. */
export function listRuns(cwd: string): RunSummary[] {
  const folder = runsFolder(cwd);
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .reverse()
    .map((id) => summarizeRun(id, join(folder, id)));
}

/** The folder of a run id found in `.prose/runs` (never a path the id could make up). */
export function runDir(cwd: string, runId: string): string | undefined {
  const folder = runsFolder(cwd);
  if (!existsSync(folder)) return undefined;
  const found = readdirSync(folder, { withFileTypes: true }).find(
    (entry) => entry.isDirectory() && entry.name === runId,
  );
  return found === undefined ? undefined : join(folder, found.name);
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
