/**
 * `Runtime.list`, `field` and `truthy`: structure read out of a value, deterministically when it is
 * already structured or its text can be parsed (extraction.ts), else by the model, once per text
 * (extraction-cache.ts).
 */
import type { RunCore } from "../kernel/core.js";
import type { StepContext } from "../kernel/step-context.js";
import type { Site, StepAsk, Value } from "../types.js";
import { text } from "../values/expressions.js";
import { ExtractionCache, type ExtractionShape } from "./extraction-cache.js";
import {
  extractField,
  extractFields,
  extractList,
  extractTruth,
  fieldsOf,
  fieldWithoutModel,
  truthyWithoutModel,
} from "./extraction.js";
import { listWithoutModel } from "../values/structure.js";

export class TextReader {
  private readonly cache: ExtractionCache;

  constructor(private readonly core: RunCore) {
    this.cache = new ExtractionCache(core);
  }

  async list(context: StepContext, at: Site, value: Value): Promise<readonly Value[]> {
    const parsed = listWithoutModel(value);
    if (parsed !== undefined) {
      this.core.emit({ type: "extraction", at, shape: "list", method: "parse" });
      return this.listed(at, parsed);
    }
    const source = text(value);
    return this.listed(
      at,
      (await this.cache.once(context.signal, at, "list", source, () =>
        this.core.step(context, "extract", at, "Reading a list", extraction("list", source), (signal) =>
          extractList(this.core, at, source, signal),
        ),
      )) as readonly Value[],
    );
  }

  async field(context: StepContext, at: Site, value: Value, index: Value, fields?: readonly string[]): Promise<Value> {
    const key = typeof index === "number" ? index : text(index);
    const lookup = fieldWithoutModel(value, key);
    if (lookup.found) {
      if (typeof value === "string") this.core.emit({ type: "extraction", at, shape: "field", method: "parse" });
      return lookup.value;
    }
    const source = text(value);
    if (typeof key === "string" && fields !== undefined && fields.length > 1 && fields.includes(key)) {
      const label = `Reading fields ${fields.map((field) => `"${field}"`).join(", ")}`;
      const once = `fields:${fields.join("\0")}\0${source}`;
      const answer = await this.cache.once(context.signal, at, "field", once, () =>
        this.core.step(context, "extract", at, label, extraction("field", source, fields.join(",")), (signal) =>
          extractFields(this.core, at, source, fields, signal),
        ),
      );
      const record = fieldsOf(answer);
      if (record !== undefined) return record[key] ?? null;
      // A step a resumed run recorded before fields were read together: this one field's answer.
      this.cache.forget("field", once);
      return answer;
    }
    const label = `Reading ${typeof key === "number" ? `item ${key}` : `field "${key}"`}`;
    return this.cache.once(context.signal, at, "field", `${typeof key}:${key}\0${source}`, () =>
      this.core.step(context, "extract", at, label, extraction("field", source, key), (signal) =>
        extractField(this.core, at, source, key, signal),
      ),
    );
  }

  async truthy(context: StepContext, at: Site, value: Value): Promise<boolean> {
    const parsed = truthyWithoutModel(value);
    if (parsed !== undefined) {
      if (typeof value === "string") this.core.emit({ type: "extraction", at, shape: "boolean", method: "parse" });
      return parsed;
    }
    const source = text(value);
    return (await this.cache.once(context.signal, at, "boolean", source, () =>
      this.core.step(context, "extract", at, "Reading yes or no", extraction("boolean", source), (signal) =>
        extractTruth(this.core, at, source, signal),
      ),
    )) as boolean;
  }

  /** Says how many items a list read has: what a cost bound's `|items|` stands for. */
  private listed(at: Site, items: readonly Value[]): readonly Value[] {
    if (this.core.listening) this.core.emit({ type: "list", at, items: items.length });
    return items;
  }
}

/** What an extraction asks: the shape read out of a text (and the field or item). */
function extraction(shape: ExtractionShape, source: string, key?: string | number): StepAsk {
  return { text: source, details: () => ({ shape, key, source }) };
}
