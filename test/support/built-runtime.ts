/**
 * Tests that load compiled programs the way `prosec run` does import the built runtime (`dist/`):
 * they check first that it exists and is not older than its sources, so a stale build cannot pass.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./cli.js";

export function requireBuiltRuntime(): void {
  for (const folder of ["runtime"]) {
    const built = join(repositoryRoot, "dist", folder, "index.js");
    if (!existsSync(built))
      throw new Error(`dist/${folder} is missing: run \`npm run build\` first (\`npm test\` does)`);
    const builtAt = statSync(built).mtimeMs;
    const stale = readdirSync(join(repositoryRoot, folder), { recursive: true, encoding: "utf8" }).filter(
      (file) => file.endsWith(".ts") && statSync(join(repositoryRoot, folder, file)).mtimeMs > builtAt,
    );
    if (stale.length > 0)
      throw new Error(
        `dist/${folder} is older than ${folder}/${stale[0]}: run \`npm run build\` first (\`npm test\` does)`,
      );
  }
}
