/**
 * How a saved report carries its step details (src/view/report.ts writes them, the page's script
 * reads them): data blocks `prosec-details-<i>` (chunk i's `StepDetail[]`) and `prosec-texts` (the
 * texts they name), each gzip-compressed JSON in base64. Shared by the server and the page's script.
 */
export const DETAILS_BLOCK = "prosec-details-";
export const TEXTS_BLOCK = "prosec-texts";

/** What the page's data says of the blocks. */
export interface ReportChunks {
  /** Chunk i holds the details of steps i*chunkSize and on, in the index's order. */
  readonly chunkSize: number;
  readonly chunks: number;
}
