/**
 * The secrets a run knows, and their removal from whatever the run writes or shows: the API key,
 * the values of the environment's secret-looking variables (`*_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*PASSWORD*`), and the values of the variables the run hands to tools by name (`toolEnv`,
 * `permissions: env:`). Values shorter than MIN_LENGTH are not secrets worth the damage their
 * removal would do to ordinary text.
 *
 * Each secret is also caught in the forms a command can cheaply disguise it in: reversed, hex (either
 * case), base64 and base64url (at any byte alignment), and spaced out (up to eight non-alphanumeric
 * characters between its letters, reversed too). Other encodings get through: redaction is a last
 * line, not a boundary.
 *
 * This is defence in depth: tools never get the key in the first place (environment.ts). The run
 * applies `redact` where values leave it: step results (journal, bindings, outputs), events (state.md,
 * `--json`), error messages, memory files, and tool results on their way back to the model.
 */
import { isSecretName } from "./environment.js";

const MIN_LENGTH = 8;
const REDACTED = "[redacted]";
/** Texts whose redaction is remembered, at most, and the longest remembered. */
const KNOWN_TEXTS = 256;
const KNOWN_TEXT_CHARACTERS = 512;
/** How deep `redactError` follows an error's causes. */
const MAX_CAUSES = 16;

export class Secrets {
  private values: string[] = [];
  /** The literal forms of every secret (itself, reversed, hex, base64), longest first. */
  private forms: string[] = [];
  private spaced: RegExp[] = [];
  /** The letters and digits of each secret and of it reversed, what a spaced-out form is made of. */
  private letters: string[] = [];
  /**
   * Short texts redacted lately, with their redaction: the same property names, labels and model ids
   * come with every event of every session. Forgotten when a secret is added.
   */
  private readonly known = new Map<string, string>();

  /** The secrets of a run with this API key, in this environment. */
  static of(
    apiKey: string | undefined,
    env: NodeJS.ProcessEnv,
    toolEnv: Readonly<Record<string, string>> | undefined,
  ): Secrets {
    const secrets = new Secrets();
    secrets.add(apiKey);
    for (const [name, value] of Object.entries(env)) if (isSecretName(name)) secrets.add(value);
    for (const value of Object.values(toolEnv ?? {})) secrets.add(value);
    return secrets;
  }

  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_LENGTH || this.values.includes(value)) return;
    this.values.push(value);
    this.known.clear();
    const reversed = [...value].reverse().join("");
    const forms = new Set([value, reversed, ...encodings(value)].filter((form) => form.length >= MIN_LENGTH));
    // Longest first, so a secret that contains another is removed whole.
    this.forms = [...this.forms, ...forms].sort((a, b) => b.length - a.length);
    for (const text of [value, reversed]) {
      const spaced = spacedOut(text);
      if (spaced !== undefined) {
        this.spaced.push(spaced);
        this.letters.push(lettersOf(text));
      }
    }
  }

  /**
   * How many characters at the end of `text` may be the beginning of a secret, in any of its forms:
   * text shown as it arrives (a streamed answer) holds them back until the next piece says more.
   */
  unsafeTail(text: string): number {
    let tail = 0;
    // The longest end of `text` that begins a form: only where the form's first character stands.
    for (const form of this.forms)
      for (let start = Math.max(0, text.length - form.length + 1); start < text.length - tail; start++)
        if (text.charCodeAt(start) === form.charCodeAt(0) && form.startsWith(text.slice(start))) {
          tail = text.length - start;
          break;
        }
    for (const letters of this.letters) {
      const from = Math.max(0, text.length - letters.length * (SPACING + 1));
      for (let start = from; start < text.length - tail; start++)
        if (text[start] === letters[0] && spacedPrefix(text, start, letters)) {
          tail = text.length - start;
          break;
        }
    }
    return tail;
  }

  redact(text: string): string {
    // Every form of a secret is MIN_LENGTH characters or more: a shorter text (most property names) holds none.
    if (text.length < MIN_LENGTH) return text;
    const known = this.known.get(text);
    if (known !== undefined) return known;
    let result = text;
    for (const form of this.forms) if (result.includes(form)) result = result.split(form).join(REDACTED);
    for (const spaced of this.spaced) result = result.replace(spaced, REDACTED);
    if (text.length <= KNOWN_TEXT_CHARACTERS) {
      if (this.known.size >= KNOWN_TEXTS) this.known.clear();
      this.known.set(text, result);
    }
    return result;
  }

  /**
   * `value` with every string in it redacted, property names included: the same object when nothing changed, so the hot path
   * (no secret anywhere) allocates nothing.
   */
  redactDeep<T>(value: T): T {
    if (this.values.length === 0 || !this.holdsSecret(value)) return value;
    return this.walk(value) as T;
  }

  /**
   * Removes the secrets from every text `error` carries, in place (so its class, status and the like
   * stay what the run's handling reads): its message and stack, the strings of its own properties (an
   * API error's body, which a model server may have filled with the request's key) and its causes.
   * A store that writes a failed step's error whole (DBOS checkpoints serialize it, stack and
   * properties included) then writes no secret. Returns `error`.
   */
  redactError<T>(error: T): T {
    if (this.values.length > 0) this.redactErrorIn(error, new Set(), 0);
    return error;
  }

  /** `body`, whose failure is thrown with its secrets removed (`redactError`). */
  failureRedacted<T>(body: () => Promise<T>): () => Promise<T> {
    return async () => {
      try {
        return await body();
      } catch (error) {
        throw this.redactError(error);
      }
    };
  }

  private redactErrorIn(error: unknown, seen: Set<object>, depth: number): void {
    if (error === null || typeof error !== "object" || seen.has(error) || depth > MAX_CAUSES) return;
    seen.add(error);
    const record = error as Record<string, unknown>;
    const names = new Set([...Object.keys(record), "message", "stack", "cause"]);
    for (const name of names) {
      let value: unknown;
      try {
        value = record[name];
      } catch {
        continue;
      }
      const redacted = typeof value === "string" ? this.redact(value) : this.redactDeep(value);
      if (redacted === value) continue;
      try {
        Object.defineProperty(error, name, { value: redacted, writable: true, configurable: true });
      } catch {
        // A frozen error keeps its text: nothing here can change it.
      }
    }
    this.redactErrorIn(record["cause"], seen, depth + 1);
    const errors = record["errors"];
    if (Array.isArray(errors)) for (const inner of errors) this.redactErrorIn(inner, seen, depth + 1);
  }

  /**
   * Whether any string in `value`, property names included, holds a secret: the hot path's check
   * (every event and step result goes through it), which allocates nothing, unlike `walk`.
   */
  private holdsSecret(value: unknown): boolean {
    if (typeof value === "string") return this.redact(value) !== value;
    if (Array.isArray(value)) {
      for (const item of value) if (this.holdsSecret(item)) return true;
      return false;
    }
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      for (const key in value)
        if (this.redact(key) !== key || this.holdsSecret((value as Record<string, unknown>)[key])) return true;
    }
    return false;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) {
      const items = value.map((item) => this.walk(item));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      // Property names too: a tool input's keys are the model's text as much as its values.
      const entries = Object.entries(value);
      let changed = false;
      const walked = entries.map(([key, item]): [string, unknown] => {
        const redactedKey = this.redact(key);
        const redactedItem = this.walk(item);
        if (redactedKey !== key || redactedItem !== item) changed = true;
        return [redactedKey, redactedItem];
      });
      return changed ? Object.fromEntries(walked) : value;
    }
    return value;
  }
}

/**
 * The secret in hex and base64. A base64 text starts a secret at one of three byte alignments; each
 * gives a core of characters that depend on the secret's bytes alone (the edges mix in neighbours).
 */
function encodings(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const hex = bytes.toString("hex");
  const forms = [hex, hex.toUpperCase()];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    const start = Math.ceil((shift * 4) / 3);
    const end = Math.floor(((shift + bytes.length) * 4) / 3);
    const core = encoded.slice(start, end);
    forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

/** The most characters a spaced-out secret has between two of its letters. */
const SPACING = 8;

/** The secret's letters and digits with up to eight other characters between each (`s k - a n t`). */
function spacedOut(value: string): RegExp | undefined {
  const characters = [...lettersOf(value)];
  if (characters.length < MIN_LENGTH) return undefined;
  return new RegExp(characters.join(`[^A-Za-z0-9]{0,${SPACING}}`), "g");
}

function lettersOf(value: string): string {
  return [...value].filter((character) => /[A-Za-z0-9]/.test(character)).join("");
}

/** Whether `text` from `start` to its end is the beginning of `letters` spaced out. */
function spacedPrefix(text: string, start: number, letters: string): boolean {
  let matched = 0;
  let gap = 0;
  for (let index = start; index < text.length; index++) {
    const character = text[index]!;
    if (/[A-Za-z0-9]/.test(character)) {
      if (matched === letters.length || character !== letters[matched]) return false;
      matched++;
      gap = 0;
    } else if (++gap > SPACING) return false;
  }
  return matched < letters.length;
}
