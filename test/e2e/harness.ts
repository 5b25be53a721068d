/**
 * Shared by the end-to-end tests: compiles `.prose` source with the compiler API, loads the generated
 * module (its `prosec/runtime` import pointed at the runtime's source) and classifies the requests the
 * fake Messages API receives.
 *
 * Only the public contract is used: `compile()`, the module's `run(inputs, options)` and its default
 * export (the program metadata: inputs and outputs).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { compile, type ImportResolution } from "../../src/compile.js";
import { lastUserText, systemText, type FakeRequest } from "../support/fake-anthropic.js";

export const TEST_API_KEY = "sk-ant-test-e2e-0123456789abcdef";

const runtimeEntry = fileURLToPath(new URL("../../runtime/index.ts", import.meta.url));

const folders: string[] = [];

/** A fresh, real-path temporary folder (removed by `removeTemporaryFolders`). */
export function temporaryFolder(prefix: string): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  folders.push(folder);
  return folder;
}

/** Removes every folder `temporaryFolder` made in this test file, the generated modules' too. */
export function removeTemporaryFolders(): void {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

const moduleFolder = temporaryFolder("prosec-e2e-modules-");

export interface ProgramMetadata {
  readonly name: string;
  readonly inputs: readonly { readonly name: string; readonly prompt: string }[];
  readonly outputs: readonly string[];
}

export interface LoadedProgram {
  readonly run: (inputs: Record<string, unknown>, options: object) => Promise<Record<string, unknown>>;
  readonly metadata: ProgramMetadata;
}

let loaded = 0;

/** Compiles `source` (reported as `file`), asserts it has no errors, writes and imports the module. */
export async function loadProgram(
  source: string,
  file: string,
  resolveImport?: (path: string) => ImportResolution,
): Promise<LoadedProgram> {
  const compiled = await compile(source, file, { resolveImport });
  expect(compiled.diagnostics.filter((diagnostic) => diagnostic.severity === "error")).toEqual([]);
  expect(compiled.code).toBeDefined();
  const folder = join(moduleFolder, String(++loaded));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${file.replace(/[^A-Za-z0-9.-]/g, "_")}.ts`);
  writeFileSync(path, compiled.code!.replace(/from "prosec\/runtime"/g, `from ${JSON.stringify(runtimeEntry)}`));
  const module = (await import(path)) as { run: LoadedProgram["run"]; default: ProgramMetadata };
  return { run: module.run, metadata: module.default };
}

export type CallKind = "session" | "judgment" | "choice" | "extraction";

/**
 * What a request is, from its body alone: no `tool_choice` is a session's turn; a forced `answer`
 * tool is a choice when its answer is an enum, an extraction when its system prompt is the extraction
 * one or its answer is a list or an untyped value, and otherwise (a boolean) a judgment.
 */
export function callKind(request: FakeRequest): CallKind {
  const body = request.body;
  if (body?.tool_choice === undefined) return "session";
  const tool = body.tools?.find((candidate) => candidate.name === body.tool_choice?.name);
  const answer = (tool?.input_schema as { properties?: { answer?: { type?: string; enum?: unknown[] } } } | undefined)
    ?.properties?.answer;
  if (answer?.enum !== undefined) return "choice";
  if (systemText(request).startsWith("You extract structure") || answer?.type !== "boolean") return "extraction";
  return "judgment";
}

/** The condition of a judgment question (`Condition: ...\n\n<what the construct does>\n\nIs the condition true?`). */
export function judgmentCondition(request: FakeRequest): string {
  const question = lastUserText(request);
  const match = /(?:^|\n\n)Condition: ([\s\S]*?)\n\n[^\n]*\n\nIs the condition true\?$/.exec(question);
  return match === null ? question : match[1]!;
}

/** The criteria of a choice question (`Choose the option that best fits: ...\n\nOptions:`). */
export function choiceCriteria(request: FakeRequest): string {
  const question = lastUserText(request);
  const match = /(?:^|\n\n)Choose the option that best fits: ([\s\S]*?)\n\nOptions:/.exec(question);
  return match === null ? question : match[1]!;
}

/** The answers a choice's forced tool allows: its options as numbered labels (`1. Ship it.`). */
export function choiceEnum(request: FakeRequest): string[] {
  const tool = request.body?.tools?.find((candidate) => candidate.name === "answer");
  return [...((tool?.input_schema as { properties: { answer: { enum: string[] } } }).properties.answer.enum ?? [])];
}

/** The option labels a choice offers, without their numbers. */
export function choiceOptions(request: FakeRequest): string[] {
  return choiceEnum(request).map((label) => label.replace(/^\d+\. /, ""));
}

/** A session's first user message after its trail: its task and what follows. */
export function firstUserText(request: FakeRequest): string {
  const text = firstMessage(request);
  const task = text.indexOf(TASK_SEPARATOR);
  return task < 0 ? text : text.slice(task + TASK_SEPARATOR.length);
}

/** The trail a session or judgment was given ("" for none). */
export function trailText(request: FakeRequest): string {
  const text = callKind(request) === "session" ? firstMessage(request) : lastUserText(request);
  if (!text.startsWith(TRAIL_HEADING)) return "";
  const end =
    callKind(request) === "session"
      ? text.indexOf(TASK_SEPARATOR)
      : text.search(/\n\n(## Context\n|Condition: |Choose the option)/);
  return end < 0 ? text : text.slice(0, end);
}

const TRAIL_HEADING = "## Earlier results (oldest first)";
const TASK_SEPARATOR = "\n\n## Your task\n\n";

function firstMessage(request: FakeRequest): string {
  const first = request.body?.messages.find((message) => message.role === "user");
  if (first === undefined) return "";
  if (typeof first.content === "string") return first.content;
  return first.content.map((block) => (typeof block["text"] === "string" ? block["text"] : "")).join("\n");
}
