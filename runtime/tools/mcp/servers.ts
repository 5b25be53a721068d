/**
 * The MCP servers of one run (`.mcp.json`), or of one worker (run/run-mcp.ts, McpServerPool): each
 * started the first time an agent that may use it starts a session, once, and stopped when the run
 * (or the worker) ends (`close`). The client package
 * (`@modelcontextprotocol/client`) is imported only then, so a run without MCP servers never loads it.
 *
 * A stdio server gets the environment `.mcp.json` gives it on top of the basics the SDK passes
 * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`), never the model's API key; its stderr is piped,
 * cut into whole lines (up to a megabyte of them: stderr-lines.ts), redacted and sent to the run's
 * trace, never inherited. Its tool list is read once per run (a
 * `list_changed` notification is ignored: what an agent is offered does not change under it).
 * prosec advertises no client capabilities: no sampling, elicitation or roots.
 *
 * A server that stops (a crash, a closed connection) fails the call in flight as a tool error; the
 * next call starts it again, once per run.
 */
import { StringDecoder } from "node:string_decoder";
import type { Client, Tool as McpTool, CallToolResult } from "@modelcontextprotocol/client";
import { expandServer, McpConfigError, type McpConfig, type McpServerSpec } from "./config.js";
import { MODEL_CREDENTIALS } from "../environment.js";
import { StderrLines } from "./stderr-lines.js";
import { boundedFetch } from "./bounded-fetch.js";

const CLIENT_INFO = { name: "prosec", version: "1" };
/** The SDK's default is 60 s; a slow tool is bounded by the step's own time limit instead. */
const CALL_TIMEOUT_MS = 10 * 60_000;
const RESTARTS = 1;

export type { McpTool, CallToolResult };

export interface McpServerSettings {
  /** Where stdio servers start: the project folder. */
  readonly cwd: string;
  /** Where `${VAR}` is taken from. */
  readonly env: NodeJS.ProcessEnv;
  /** The model's API key: a server given it (by `${ANTHROPIC_API_KEY}`, say) is refused. */
  readonly apiKey: string | undefined;
  /** A value expanded from the environment: it joins the run's secrets. */
  readonly secret: (value: string) => void;
  /** A piece of a stdio server's stderr, for the trace (the caller redacts). */
  readonly log: (server: string, text: string) => void;
}

interface Connection {
  readonly client: Client;
  tools: readonly McpTool[];
  stopped: boolean;
  /** Why prosec ended the connection, when it did (a message past the bound). */
  why?: string;
}

export class McpServers {
  private readonly connections = new Map<string, Promise<Connection>>();
  private readonly restarts = new Map<string, number>();
  /** The stdio servers' processes started, for `stopNow`. */
  private readonly pids = new Set<number>();
  private closed = false;

  constructor(
    readonly config: McpConfig,
    private readonly settings: McpServerSettings,
  ) {}

  /** The server names `.mcp.json` declares. */
  names(): string[] {
    return [...this.config.servers.keys()];
  }

  /** The server's tools, as listed when it first started in this run (starting it if it has not). */
  async tools(server: string, signal: AbortSignal): Promise<readonly McpTool[]> {
    return (await this.connection(server, signal)).tools;
  }

  /** Calls a tool; a server that stopped since the last call is started again, once per run. */
  async call(
    server: string,
    tool: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    let connection = await this.connection(server, signal);
    if (connection.stopped) connection = await this.restart(server, signal);
    try {
      return (await connection.client.callTool(
        { name: tool, arguments: input },
        { signal, timeout: CALL_TIMEOUT_MS },
      )) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (connection.stopped)
        throw new Error(
          `The MCP server ${server} stopped while the call was running: ${connection.why ?? (error as Error).message}`,
          { cause: error },
        );
      throw error;
    }
  }

  /** Stops every server started: the run is over (or the worker is). */
  async close(): Promise<void> {
    this.closed = true;
    const started = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      started.map(async (pending) => {
        const connection = await pending.catch(() => undefined);
        await connection?.client.close().catch(() => undefined);
      }),
    );
  }

  /** Signals every stdio server started to stop, without waiting (the process is about to exit). */
  stopNow(): void {
    this.closed = true;
    for (const pid of this.pids) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // It has exited already.
      }
    }
  }

  private connection(server: string, signal: AbortSignal): Promise<Connection> {
    let pending = this.connections.get(server);
    if (pending === undefined) {
      pending = this.start(server, signal, undefined);
      this.connections.set(server, pending);
      // A server that failed to start is tried again by the next session that needs it.
      pending.catch(() => {
        if (this.connections.get(server) === pending) this.connections.delete(server);
      });
    }
    return pending;
  }

  private restart(server: string, signal: AbortSignal): Promise<Connection> {
    const count = this.restarts.get(server) ?? 0;
    if (count >= RESTARTS)
      throw new Error(`The MCP server ${server} stopped again and is not started a third time in this run.`);
    this.restarts.set(server, count + 1);
    const previous = this.connections.get(server)!;
    const next = previous.then((old) => this.start(server, signal, old.tools));
    this.connections.set(server, next);
    return next;
  }

  private async start(server: string, signal: AbortSignal, tools: readonly McpTool[] | undefined): Promise<Connection> {
    if (this.closed) throw new Error(`The run is over: the MCP server ${server} is not started.`);
    const declared = this.config.servers.get(server);
    if (declared === undefined)
      throw new McpConfigError(`${this.config.file} declares no MCP server ${JSON.stringify(server)}.`);
    const spec = this.expanded(declared);
    const { Client } = await import("@modelcontextprotocol/client");
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const connection: Connection = { client, tools: tools ?? [], stopped: false };
    // A message past the bound ends the connection, as a crash does: the call in flight fails, saying why.
    const transport = await this.transport(spec, (message) => {
      connection.why = message;
      void client.close().catch(() => undefined);
    });
    const pid = (): number | null => ("pid" in transport ? transport.pid : null);
    try {
      await client.connect(transport, { signal, timeout: CALL_TIMEOUT_MS });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new Error(`The MCP server ${server} did not start: ${(error as Error).message}`, { cause: error });
    }
    const started = pid();
    if (started !== null) this.pids.add(started);
    client.onclose = () => {
      connection.stopped = true;
      if (started !== null) this.pids.delete(started);
    };
    if (tools !== undefined) return connection;
    try {
      // Every page: the client follows the cursor, up to its own limit (64 pages, a cursor that never ends).
      connection.tools = (await client.listTools(undefined, { signal })).tools;
    } catch (error) {
      // Stopped here: a failed start is forgotten (the next session starts the server again), and
      // `close` never sees it, so a server left running would outlive the run.
      await client.close().catch(() => undefined);
      throw new Error(`The MCP server ${server} did not list its tools: ${(error as Error).message}`, { cause: error });
    }
    return connection;
  }

  /** `${VAR}` expanded; the values join the run's secrets, and the API key is refused. */
  private expanded(declared: McpServerSpec): McpServerSpec {
    // The model's credentials: the key the run uses, and the variables the client reads (an auth token too).
    const credentials = [this.settings.apiKey, ...MODEL_CREDENTIALS.map((name) => this.settings.env[name])].filter(
      (value): value is string => value !== undefined && value !== "",
    );
    const spec = expandServer(declared, this.settings.env, ({ name, value }) => {
      if (credentials.includes(value) || MODEL_CREDENTIALS.includes(name))
        throw new McpConfigError(
          `.mcp.json gives the MCP server ${declared.name} the model's API key (${name}); prosec never hands the key to a tool.`,
        );
      this.settings.secret(value);
    });
    // Every string the server is given, its command line and URL too: a variable that holds the key
    // inside a longer value (`Bearer sk-ant-...`) passes the check above.
    const given =
      spec.type === "stdio"
        ? [spec.command, ...spec.args, ...Object.values(spec.env)]
        : [spec.url, ...Object.values(spec.headers)];
    if (given.some((value) => credentials.some((credential) => value.includes(credential))))
      throw new McpConfigError(
        `.mcp.json gives the MCP server ${declared.name} the model's API key; prosec never hands the key to a tool.`,
      );
    return spec;
  }

  private async transport(spec: McpServerSpec, overflow: (message: string) => void) {
    if (spec.type === "http") {
      const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      return new StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: { ...spec.headers } },
        fetch: boundedFetch(overflow),
      });
    }
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    const transport = new StdioClientTransport({
      command: spec.command,
      args: [...spec.args],
      env: { ...spec.env },
      cwd: this.settings.cwd,
      stderr: "pipe",
    });
    // Whole lines, so the log's redaction never meets half a secret, and a bounded amount of them.
    const lines = new StderrLines((text) => this.settings.log(spec.name, text));
    const decoder = new StringDecoder("utf8");
    transport.stderr?.on("data", (chunk: Buffer) => lines.push(decoder.write(chunk)));
    transport.stderr?.on("end", () => (lines.push(decoder.end()), lines.end()));
    return transport;
  }
}
