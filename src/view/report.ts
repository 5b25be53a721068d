/**
 * What a saved report (`prosec view ID --out report.html`) carries besides the run's index: every
 * step's detail, since a file cannot ask a server. They are gzip-compressed (a long run's requests
 * repeat their prompts: 20 MB of JSON become about 2) and cut into chunks, so the page inflates only
 * the chunk of the step selected, with the browser's DecompressionStream, off the first paint.
 */
import { gzipSync } from "node:zlib";
import type { RunSteps } from "./run-steps.js";
import { readTexts } from "./run-steps.js";
import { stepDetailOf, textIds } from "./step-detail.js";

/** Steps per chunk: a chunk inflates and parses in a few milliseconds. */
export const REPORT_CHUNK_STEPS = 500;

/** The report's data blocks (report-blocks.ts), before they go in the page. */
export interface ReportDetails {
  /** Chunk i holds the details (`StepDetail[]`) of steps i*chunkSize and on, in the index's order. */
  readonly chunkSize: number;
  /** Each chunk's JSON, gzip-compressed, in base64. */
  readonly chunks: readonly string[];
  /** The texts the details name (`{ [id]: text }`), gzip-compressed JSON in base64. */
  readonly texts: string;
}

export function reportDetails(run: RunSteps, dir: string): ReportDetails {
  const all = readTexts(dir);
  const texts: Record<string, string> = {};
  const chunks: string[] = [];
  for (let first = 0; first < run.steps.length; first += REPORT_CHUNK_STEPS) {
    const details = run.steps.slice(first, first + REPORT_CHUNK_STEPS).map(stepDetailOf);
    for (const detail of details)
      for (const id of textIds(detail)) {
        const text = all.get(id);
        if (text !== undefined) texts[id] = text;
      }
    chunks.push(packed(details));
  }
  return { chunkSize: REPORT_CHUNK_STEPS, chunks, texts: packed(texts) };
}

function packed(value: unknown): string {
  return gzipSync(JSON.stringify(value)).toString("base64");
}
