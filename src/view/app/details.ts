/// <reference lib="dom" />
/**
 * Where the page gets a step's details (what it sent and got) when the step is selected: from the
 * server that served it, or, in a saved report, from the compressed chunks the file carries (see
 * src/view/report.ts), inflated with the browser's DecompressionStream when first needed.
 */
import { DETAILS_BLOCK, TEXTS_BLOCK, type ReportChunks } from "../report-blocks.js";
import type { StepDetail, StepDetailWithTexts } from "../step-detail.js";

export interface LoadedDetail {
  readonly detail: StepDetail;
  /** A text by id, or a note that the trace does not have it. */
  text(id: string): string;
}

/** A step's details by its place in the index and its key; undefined when there are none. */
export type DetailSource = (index: number, key: string) => Promise<LoadedDetail | undefined>;

/** Details kept by a served page (a step selected again shows at once). */
const KEPT = 200;

export function serverDetails(api: string, runId: string): DetailSource {
  const kept = new Map<string, Promise<LoadedDetail | undefined>>();
  return (_index, key) => {
    let loading = kept.get(key);
    if (loading === undefined) {
      loading = fetch(`${api}run/${encodeURIComponent(runId)}/step/${encodeURIComponent(key)}`).then(
        async (response) => {
          if (!response.ok) return undefined;
          const { detail, texts } = (await response.json()) as StepDetailWithTexts;
          return { detail, text: (id: string) => texts[id] ?? missing };
        },
      );
      // A failed request is asked again the next time the step is selected.
      loading.catch(() => kept.delete(key));
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
      kept.set(key, loading);
    }
    return loading;
  };
}

export function reportDetails(report: ReportChunks): DetailSource {
  const chunks = new Map<number, Promise<readonly StepDetail[]>>();
  let texts: Promise<Readonly<Record<string, string>>> | undefined;
  return async (index) => {
    const chunk = Math.floor(index / report.chunkSize);
    if (chunk >= report.chunks) return undefined;
    let details = chunks.get(chunk);
    if (details === undefined) {
      details = inflate<readonly StepDetail[]>(`${DETAILS_BLOCK}${chunk}`);
      chunks.set(chunk, details);
    }
    texts ??= inflate<Record<string, string>>(TEXTS_BLOCK);
    const [list, byId] = await Promise.all([details, texts]);
    const detail = list[index % report.chunkSize];
    return detail === undefined ? undefined : { detail, text: (id: string) => byId[id] ?? missing };
  };
}

const missing = "(not in the trace)";

async function inflate<T>(blockId: string): Promise<T> {
  const base64 = document.getElementById(blockId)?.textContent ?? "";
  const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return (await new Response(stream).json()) as T;
}
