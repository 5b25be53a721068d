import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The real programs in ../shared/corpus (never copied into this repo). */
export const corpusDirectory = fileURLToPath(new URL("../../../shared/corpus/openprose-examples/", import.meta.url));

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

const all = programsIn(corpusDirectory);

/** The 50 example programs. */
export const corpusPrograms: readonly CorpusProgram[] = all.filter((program) => !program.name.startsWith("roadmap/"));

/** The 4 `roadmap/` sketches, which are not valid programs. */
export const roadmapSketches: readonly CorpusProgram[] = all.filter((program) => program.name.startsWith("roadmap/"));
