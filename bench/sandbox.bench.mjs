// What the OS sandbox adds to one `run_command` (issue 38): the compiled runtime's own tool and
// permission guard (dist/), a command `true`, in a workspace of 100,000 files under src/ (100 folders
// of 1,000). Per round, in turn: a plain spawn (`--sandbox off`), the sandbox with the default read:
// (the whole working directory, walked for what to hide and protect), and with read: ["src/**"]
// (a tmpfs over the working directory, src/ bound in and walked). Reported per round as the time
// added over the plain spawn, min / median / max of the rounds, warm (the walk's entries in the
// page cache) and, as root, cold (caches dropped before the round's sandboxed commands). Target: a
// narrowed read: adds at most 100 ms per command. The bare readdir of the same tree, timed in the same
// rounds, shows how loaded the machine was.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { median, printTable, timed } from "./support/rounds.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { PermissionGuard } = await import(pathToFileURL(join(root, "dist/runtime/tools/permissions.js")).href);
const { runCommandTool } = await import(pathToFileURL(join(root, "dist/runtime/tools/builtin.js")).href);
const { bubblewrap } = await import(pathToFileURL(join(root, "dist/runtime/tools/sandbox.js")).href);

const FOLDERS = 100;
const FILES = 1_000;
const ROUNDS = 7;
if (bubblewrap() === undefined) throw new Error("bubblewrap is needed: apt-get install bubblewrap");

const cwd = mkdtempSync(join(tmpdir(), "prosec-sandbox-bench-"));
try {
  for (let folder = 0; folder < FOLDERS; folder++) {
    const path = join(cwd, "src", `f${folder}`);
    mkdirSync(path, { recursive: true });
    for (let file = 0; file < FILES; file++) writeFileSync(join(path, `${file}.ts`), "");
  }
  const canDrop = process.getuid?.() === 0;
  const sides = {
    plain: { bash: "allow" },
    whole: { bash: "allow" },
    narrowed: { bash: "allow", read: ["src/**"] },
  };
  const run = async (permissions, sandbox) => {
    const guard = new PermissionGuard(cwd, permissions, undefined, undefined, sandbox ? {} : { sandbox: "off" });
    const context = { cwd, signal: new AbortController().signal, permissions: guard };
    let answer = "";
    const ms = await timed(async () => (answer = await runCommandTool.run({ command: "true" }, context)));
    if (!answer.startsWith("exit code 0")) throw new Error(answer);
    return ms;
  };
  const added = { whole: [], narrowed: [], coldWhole: [], coldNarrowed: [] };
  const plain = [];
  const bare = [];
  // The floor under any walk: readdir alone over the same tree, in the same rounds (the machine's load).
  const bareWalk = () => {
    const visit = (folder) => {
      for (const entry of readdirSync(folder, { withFileTypes: true }))
        if (entry.isDirectory()) visit(`${folder}/${entry.name}`);
    };
    return timed(async () => visit(join(cwd, "src")));
  };
  await run(sides.whole, true); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const base = await run(sides.plain, false);
    plain.push(base);
    bare.push(await bareWalk());
    added.whole.push((await run(sides.whole, true)) - base);
    added.narrowed.push((await run(sides.narrowed, true)) - base);
    if (canDrop) {
      writeFileSync("/proc/sys/vm/drop_caches", "3\n");
      added.coldWhole.push((await run(sides.whole, true)) - base);
      writeFileSync("/proc/sys/vm/drop_caches", "3\n");
      added.coldNarrowed.push((await run(sides.narrowed, true)) - base);
    }
  }
  const show = (values) =>
    values.length === 0
      ? "(not root: not measured)"
      : `${Math.min(...values).toFixed(1)} / ${median(values).toFixed(1)} / ${Math.max(...values).toFixed(1)} ms`;
  printTable([
    ["one `run_command` (`true`), 100,000 files", `per round, min / median / max of ${ROUNDS}`, "target", "ok"],
    ["plain spawn (`--sandbox off`)", show(plain), "", ""],
    ["readdir alone over the 100,000 entries (the floor of any walk)", show(bare), "", ""],
    ["added by the sandbox, default read:, warm", show(added.whole), "", ""],
    [
      'added by the sandbox, read: ["src/**"], warm',
      show(added.narrowed),
      "<= 100 ms",
      median(added.narrowed) <= 100 ? "yes" : "NO",
    ],
    ["added by the sandbox, default read:, cold", show(added.coldWhole), "", ""],
    ['added by the sandbox, read: ["src/**"], cold', show(added.coldNarrowed), "", ""],
  ]);
} finally {
  rmSync(cwd, { recursive: true, force: true });
}
