/**
 * The reference MCP servers tests run (devDependencies: `@modelcontextprotocol/server-everything` for
 * every result type and tools with each annotation, `server-memory` for state), how a test declares
 * them in a `.mcp.json`, and the server processes still alive under this test process (to show that
 * a run stops what it started).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";

const require = createRequire(import.meta.url);

/** The entry script of a reference server. */
export function serverScript(name: "server-everything" | "server-memory"): string {
  return require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
}

export const EVERYTHING = serverScript("server-everything");
export const MEMORY = serverScript("server-memory");

/** `.mcp.json` entries for the reference servers over stdio (memory keeps its graph at `memoryFile`). */
export function stdioServers(memoryFile: string): Record<string, unknown> {
  return {
    everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
    memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
  };
}

export function writeMcpJson(folder: string, servers: Record<string, unknown>): string {
  const file = join(folder, ".mcp.json");
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** The pids of processes whose parent is this process and whose command line names `script`. */
export function childrenRunning(script: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(script)) found.push(Number(entry));
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

/** A free TCP port on 127.0.0.1 (free when asked). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** server-everything over streamable HTTP, started by the test; resolves once it listens. */
export async function startHttpEverything(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { PATH: process.env["PATH"] ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let said = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        said += chunk.toString("utf8");
        if (said.includes("listening on port")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${said}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}
