/**
 * `prosec run alice/research` and `prosec run https://…/x.prose`: the command line naming a
 * reference is the explicit fetch. The program and what it uses go into the per-user cache; the
 * user is told what came from where and which permissions its agents ask for, and a program not
 * run before needs a yes (`--yes` off a terminal). A local file of that name wins.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Property } from "../ast.js";
import { checkSource } from "../pipeline.js";
import { findProjectRoot, readLockfile } from "../project/lockfile.js";
import { approve, cachedProgram, type CachedProgram } from "../registry/run-cache.js";
import { DEFAULT_REGISTRY, namesRemoteProgram, VENDOR_FOLDER, vendoredPath } from "../references.js";
import { UsageError } from "../errors.js";
import { terminalText } from "../printable.js";
import { registryToken } from "../registry/registry-token.js";
import { registrySettings } from "./registry-session.js";
import { hostsOf } from "../registry/trusted-hosts.js";

export interface RemoteRunArguments {
  readonly file: string;
  readonly yes: boolean;
  readonly offline: boolean;
}

/** The file to run: the one named, or the cached copy of the program a reference names (fetched now). */
export async function programToRun(argv: RemoteRunArguments): Promise<string> {
  if (existsSync(argv.file) || !namesRemoteProgram(argv.file)) return argv.file;
  const settings = registrySettings();
  const project = findProjectRoot(settings.cwd);
  const registry = settings.registry ?? (project === undefined ? DEFAULT_REGISTRY : readLockfile(project).registry);
  const { token, withheld } = registryToken(registry, settings.registry, settings.token);
  const program = await cachedProgram(argv.file, {
    registry,
    ...(token === undefined ? {} : { token }),
    ...(withheld === undefined ? {} : { tokenWithheld: withheld }),
    trustedHosts: [...settings.trustedHosts, ...hostsOf([settings.registry])],
    offline: argv.offline,
    onFetched: settings.onFetched,
  });
  if (argv.offline) process.stderr.write(`using ${program.key} from the cache (${program.entry})\n`);
  process.stderr.write(permissionsSummary(program));
  if (!program.approved) {
    const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
    if (!argv.yes && !interactive)
      throw new UsageError(
        `${program.key} has not been run here before: read what it asks for above, then run it with --yes`,
      );
    if (!argv.yes && !(await confirm(`Run ${program.key}? [y/N] `)))
      throw new UsageError(`${program.key} was not run (not confirmed)`);
    approve(program);
  }
  return program.file;
}

/** Every agent of the program and of those it uses, with the permissions it asks for. */
export function permissionsSummary(program: CachedProgram): string {
  const lines = Object.keys(program.lockfile.programs)
    .sort()
    .flatMap((key) => {
      const source = readFileSync(join(program.entry, VENDOR_FOLDER, vendoredPath(key)), "utf8");
      const analysis = checkSource(source).analysis;
      return [...(analysis?.agents.values() ?? [])].map((agent) => {
        const permissions = agent.properties.find((property) => property.key.name === "permissions");
        return `  ${key}: agent ${agent.name.name}: ${permissions ? permissionText(source, permissions) : "permissions not set (the defaults: read and write inside the working directory)"}`;
      });
    });
  return `${program.key} asks for these permissions:\n${lines.length === 0 ? "  (no agents: its sessions use the defaults)" : lines.join("\n")}\n`;
}

function permissionText(source: string, permissions: Property): string {
  if (permissions.value.kind !== "PropertyBlock")
    return shownSource(source.slice(permissions.loc.start.offset, permissions.loc.end.offset));
  return permissions.value.properties
    .map(
      (rule) => `${rule.key.name} ${shownSource(source.slice(rule.value.loc.start.offset, rule.value.loc.end.offset))}`,
    )
    .join(", ");
}

/**
 * A piece of someone else's program as the person deciding whether to run it reads it: no escape
 * sequence or control character (which could rewrite the lines above on a terminal), on one line
 * (a value across lines could draw a line of its own that looks like another agent's).
 */
function shownSource(text: string): string {
  return terminalText(text).replace(/\s*\n\s*/g, " ");
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}
