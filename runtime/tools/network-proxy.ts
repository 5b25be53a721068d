/**
 * The only way out of a command's sandbox: an HTTP(S) proxy prosec runs outside it, for one command,
 * on a unix socket bound into the sandbox, that applies `fetch_url`'s rules (network-rules.ts): the
 * agent's `network:` patterns, no loopback or private address unless a pattern names the host exactly,
 * the address checked the one connected to. Redirects are the client's to follow, each through the
 * proxy again. Plain HTTP is forwarded request by request, each URL checked. HTTPS shows the proxy only
 * `CONNECT host:port`, so a tunnel is opened only where the agent may fetch every path on that host
 * (`network: allow`, or a pattern with no path or `/*`). Inside the sandbox a small bridge (BRIDGE,
 * below, started by sandbox.ts's preamble) listens on 127.0.0.1 in the command's own network namespace
 * and passes connections to the socket, with `http_proxy`/`HTTP_PROXY` and `https_proxy`/`HTTPS_PROXY`
 * naming it. Programs that ignore those variables (Node's own `fetch`, ssh, raw sockets, DNS tools)
 * have no route out.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolPermissions } from "../types.js";
import { systemResolve } from "./http-fetch.js";
import { literalAddress } from "./network-rules.js";

export type ProxyChecks = Pick<ToolPermissions, "checkUrl" | "checkAddresses" | "resolveHost"> & {
  /** Whether every path on `host:port` over https may be fetched (what a CONNECT tunnel opens). */
  allowsTunnel(host: string, port: string): boolean;
};

export interface CommandProxy {
  /** The unix socket to bind into the sandbox. */
  readonly socket: string;
  /** What the proxy refused, one line each, for the tool error. */
  readonly refusals: readonly string[];
  close(): void;
}

const HOP_BY_HOP = ["connection", "proxy-connection", "proxy-authorization", "keep-alive", "te", "trailer", "upgrade"];

export async function startCommandProxy(checks: ProxyChecks): Promise<CommandProxy> {
  const folder = mkdtempSync(join(tmpdir(), "prosec-proxy-"));
  const socket = join(folder, "proxy.sock");
  const refusals: string[] = [];
  const sockets = new Set<Socket>();
  const refuse = (what: string, error: unknown): string => {
    const line = `the network proxy refused ${what}: ${(error as Error).message}`;
    if (refusals.length < 20) refusals.push(line);
    return line;
  };
  const server = createServer((incoming, answer) => {
    void (async () => {
      let target: URL;
      let address: string;
      try {
        target = await checks.checkUrl(incoming.url ?? "");
        if (target.protocol !== "http:") throw new Error("only plain http is forwarded; https goes through CONNECT");
        address = await checkedAddress(checks, target);
      } catch (error) {
        answer.writeHead(403, { "content-type": "text/plain" }).end(`${refuse(incoming.url ?? "", error)}\n`);
        return;
      }
      const upstream = request({
        host: address,
        port: target.port === "" ? 80 : Number(target.port),
        method: incoming.method,
        path: `${target.pathname}${target.search}`,
        headers: { ...withoutHopByHop(incoming.headers), host: target.host },
        setHost: false,
      });
      upstream.on("response", (response) => {
        answer.writeHead(response.statusCode ?? 502, withoutHopByHop(response.headers));
        response.pipe(answer);
      });
      upstream.on("error", (error) => {
        if (!answer.headersSent) answer.writeHead(502, { "content-type": "text/plain" });
        answer.end(`prosec proxy: ${error.message}\n`);
      });
      incoming.pipe(upstream);
    })();
  });
  server.on("connect", (incoming, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    void (async () => {
      const authority = incoming.url ?? "";
      let target: URL;
      let address: string;
      try {
        target = new URL(`https://${authority}/`);
        const port = target.port === "" ? "443" : target.port;
        if (!checks.allowsTunnel(target.hostname, port))
          throw new Error(
            "https shows the proxy only the host, so a tunnel opens only where every path on it is allowed (network: allow, or a pattern ending in /* or without a path)",
          );
        await checks.checkUrl(target.href);
        address = await checkedAddress(checks, target);
      } catch (error) {
        client.end(
          `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${refuse(`CONNECT ${authority}`, error)}\n`,
        );
        return;
      }
      const upstream = connect(Number(target.port === "" ? 443 : target.port), address, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on("close", () => (sockets.delete(upstream), client.destroy()));
      upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
    })();
  });
  server.on("connection", (connection: Socket) => {
    sockets.add(connection);
    connection.on("close", () => sockets.delete(connection));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(socket, resolve));
  return {
    socket,
    refusals,
    close() {
      for (const open of sockets) open.destroy();
      server.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function checkedAddress(checks: ProxyChecks, target: URL): Promise<string> {
  const literal = literalAddress(target.hostname);
  const addresses = literal !== undefined ? [literal] : await (checks.resolveHost ?? systemResolve)(target.hostname);
  if (addresses.length === 0) throw new Error(`${target.hostname} has no address`);
  checks.checkAddresses(target, addresses);
  return addresses[0]!;
}

function withoutHopByHop(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.includes(name.toLowerCase())) kept[name] = value;
  return kept;
}

/** Where the proxy's socket is inside the sandbox, and the port the bridge listens on there. */
const PROXY_SOCKET = "/tmp/.prosec-proxy.sock";
const PROXY_PORT = 3128;
/** The bridge: TCP on 127.0.0.1 in the command's network namespace to the proxy's unix socket. */
const BRIDGE = [
  'const net = require("net");',
  "net.createServer((client) => {",
  `  const proxy = net.connect(${JSON.stringify(PROXY_SOCKET)});`,
  "  client.on('error', () => proxy.destroy()); proxy.on('error', () => client.destroy());",
  "  client.pipe(proxy); proxy.pipe(client);",
  `}).listen(${PROXY_PORT}, "127.0.0.1", () => require("fs").writeFileSync("/tmp/.prosec-ready", "ok\\n"));`,
].join("\n");

/**
 * The sandbox's arguments with the proxy's socket bound in, Node for the bridge (it may live outside
 * the system folders), and the proxy variables set; inserted before the `--` that ends bwrap's own.
 */
export function proxiedArguments(args: readonly string[], socket: string): string[] {
  const end = args.indexOf("--");
  const proxy = `http://127.0.0.1:${PROXY_PORT}`;
  const options = ["--ro-bind", socket, PROXY_SOCKET, "--ro-bind", process.execPath, process.execPath];
  for (const name of ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"]) options.push("--setenv", name, proxy);
  options.push("--setenv", "PROSEC_BRIDGE", BRIDGE, "--setenv", "PROSEC_NODE", process.execPath);
  return [...args.slice(0, end), ...options, ...args.slice(end)];
}
