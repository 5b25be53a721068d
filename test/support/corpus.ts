import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The real programs written by others, vendored with their licence (examples/openprose/LICENSE). */
export const corpusDirectory = fileURLToPath(new URL("../../examples/openprose/", import.meta.url));

/** The OpenProse `roadmap/` sketches: syntax outside the language, kept as negative fixtures. */
export const roadmapDirectory = fileURLToPath(new URL("../fixtures/roadmap/", import.meta.url));

export interface CorpusProgram {
  readonly name: string;
  readonly path: string;
  readonly source: string;
}

function programsIn(directory: string, prefix = ""): CorpusProgram[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return programsIn(path, `${prefix}${entry.name}/`);
      if (!entry.name.endsWith(".prose")) return [];
      return [{ name: `${prefix}${entry.name}`, path, source: readFileSync(path, "utf8") }];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The 50 example programs. */
export const corpusPrograms: readonly CorpusProgram[] = programsIn(corpusDirectory);

/** The 4 `roadmap/` sketches, which are not valid programs (named `roadmap/...` as upstream does). */
export const roadmapSketches: readonly CorpusProgram[] = programsIn(roadmapDirectory, "roadmap/");
