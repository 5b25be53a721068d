/**
 * The secrets a run knows, and their removal from whatever the run writes or shows: the API key,
 * the values of the environment's secret-looking variables (`*_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*PASSWORD*`), and the values of the variables the run hands to tools by name (`toolEnv`,
 * `permissions: env:`). Values shorter than MIN_LENGTH are not secrets worth the damage their
 * removal would do to ordinary text.
 *
 * This is defence in depth: tools never get the key in the first place (environment.ts). The run
 * applies `redact` where values leave it: step results (journal, bindings, outputs), events (state.md,
 * `--json`), error messages, memory files, and tool results on their way back to the model.
 */
import { isSecretName } from "./environment.js";

const MIN_LENGTH = 8;
const REDACTED = "[redacted]";

export class Secrets {
  private values: string[] = [];

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
    // Longest first, so a secret that contains another is removed whole.
    this.values = [...this.values, value].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.values) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    return result;
  }

  /**
   * `value` with every string in it redacted: the same object when nothing changed, so the hot path
   * (no secret anywhere) allocates nothing.
   */
  redactDeep<T>(value: T): T {
    if (this.values.length === 0) return value;
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) {
      const items = value.map((item) => this.walk(item));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
      let changed: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const walked = this.walk(item);
        if (walked !== item) (changed ??= { ...value })[key] = walked;
      }
      return changed ?? value;
    }
    return value;
  }
}
