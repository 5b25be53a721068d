/**
 * What a static bound assumes about what is only known at run time, in tokens (a prompt's text
 * counts a quarter of its characters).
 */
import { DEFAULT_REASKS, SKILL_DESCRIPTION_CHARS, SKILL_NAME_CHARS } from "../../../../runtime/cost.js";

/** A session's reply, and every value a prompt shows (context, interpolation, a judgment's scope). */
export const REPLY_TOKENS = 1000;
/** A judgment's, choice's or extraction's answer. */
export const ANSWER_TOKENS = 100;
/** The runtime's framing of a session and its built-in tool definitions (measured: about 450). */
export const SESSION_OVERHEAD_TOKENS = 450;
/**
 * An agent with `permissions: mcp:`: its MCP tools are known only when their servers start, so a
 * session is counted with an allowance for their definitions and one result at the output cap
 * (128 KB, a quarter of it in tokens) on top of the built-in tools (docs/tools.md, docs/cost.md).
 */
export const MCP_TOOLS_TOKENS = 2000;
export const MCP_RESULT_TOKENS = (128 * 1024) / 4;
/**
 * A session with `skills:`: each skill's line in the system prompt at the Agent Skills format's
 * limits (a 64-character name, a 1,024-character description; the runtime cuts longer ones) with
 * its name again in `read_skill`'s definition, and the listing's heading and that definition once
 * (about 530 characters). No skill file is read: the bound is the program's, whatever is installed.
 * What the model reads with `read_skill` is a tool turn, which the bound does not count (the meter does).
 */
export const SKILL_LINE_TOKENS = Math.ceil((2 * SKILL_NAME_CHARS + SKILL_DESCRIPTION_CHARS + 8) / 4);
export const SKILLS_TOOL_TOKENS = 250;
/** The fixed instructions and answer tool of a judgment, choice or extraction. */
export const QUESTION_OVERHEAD_TOKENS = 150;
/**
 * The re-asks of a judgment, choice or extraction whose answer cannot be read (`RunOptions.reasks`'s
 * default), each with the unreadable answer and a corrective turn of this many tokens on top.
 */
export const REASKS: number = DEFAULT_REASKS;
export const CORRECTION_TOKENS = 100;
/** The model a session without `model:` and every judgment, choice and extraction uses. */
export const DEFAULT_MODEL = "sonnet";

export const tokensOf = (text: string): number => Math.ceil(text.length / 4);
