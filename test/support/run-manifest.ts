/** The run.json of a hand-made run folder (a golden test's, a waiting run's): a run of `p.prose` with no steps yet. */
export function runManifest(fields: { readonly runId?: string; readonly source?: string } = {}): string {
  return JSON.stringify({
    runId: fields.runId ?? "20260101-000000-abcdef",
    program: "p",
    source: fields.source ?? "p.prose",
    sourceHash: "0".repeat(64),
    compilerVersion: "0.2.0",
    stepScheme: 4,
    inputs: {},
    startedAt: "2026-01-01T00:00:00.000Z",
    checksumsFrom: 0,
  });
}
