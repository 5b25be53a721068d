/**
 * Typed results as the app's TypeScript sees them: for random `returns:` types
 * (test/support/typed-values.ts), the compiled module's `Outputs` field is the type the program
 * wrote (each assignable to the other, under the strict flags `--typecheck` uses), and an answer that
 * fits the type is a value of it (ts-morph: slow). Seeds from PROSEC_TYPED_SEEDS (`first-last`).
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { compile } from "../../src/compile.js";
import { typecheck, type EmittedModule } from "../../src/project/typecheck.js";
import { proseType, typedCase, typeScriptType } from "../support/typed-values.js";
import { lines } from "../support/lines.js";
import { temporaryFolder } from "./harness.js";

const [first, last] = (process.env["PROSEC_TYPED_SEEDS"] ?? "1-60").split("-").map(Number) as [number, number];

it(
  "the app sees each returns: type as written, and an answer that fits it type-checks",
  { timeout: 300_000 },
  async () => {
    const folder = temporaryFolder("prosec-typed-typecheck-");
    const modules: EmittedModule[] = [];
    const app: string[] = [];
    for (let seed = first; seed <= last; seed++) {
      const { type, valid } = typedCase(seed);
      const compiled = await compile(
        lines('let r = session "Answer"', `  returns: ${proseType(type)}`, "output r = r"),
        `typed-${seed}.prose`,
      );
      expect(
        compiled.diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
        `seed ${seed}`,
      ).toEqual([]);
      modules.push({ path: join(folder, `typed-${seed}.prose.ts`), code: compiled.code! });
      app.push(
        `import type { Outputs as Outputs${seed} } from "./typed-${seed}.prose.js";`,
        `type Written${seed} = ${typeScriptType(type)};`,
        `export const written${seed}: Written${seed} = null as unknown as Outputs${seed}["r"];`,
        `export const given${seed}: Outputs${seed}["r"] = null as unknown as Written${seed};`,
        `export const valid${seed}: Outputs${seed}["r"] = ${JSON.stringify(valid)};`,
      );
    }
    modules.push({ path: join(folder, "app.ts"), code: `${app.join("\n")}\n` });
    const errors = await typecheck(modules);
    expect(
      errors.map(
        (error) => `${error.path.split("/").pop()}:${error.line}: ${error.message}\n  ${app[error.line - 1] ?? ""}`,
      ),
    ).toEqual([]);
  },
);
