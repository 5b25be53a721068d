// The plain SDK scripts startup.bench.mjs compares `prosec run` with: what a person writes with the
// Anthropic SDK alone for the same requests. argv: `hello`, `fanout N`, `workflow`, `same N FILE`, or
// `durable N FILE` / `durable-whole N FILE`.
// `same` sends N copies of the request body in FILE (one prosec sent, its system prompt, tools and
// output limit included), each with its own task, streamed when prosec streamed it.
// `durable` does what `same` does and, as each answer comes, the least a durable run must write before
// its next step: a journal line (appended with one write) and the answer's binding file; `durable-whole`
// sends the request whole instead. They are the floor a durable session's cost could be cut to.
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { hash } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();
const model = "claude-sonnet-5-5";
const ask = (content) => client.messages.create({ model, max_tokens: 1024, messages: [{ role: "user", content }] });
const judge = (content) =>
  client.messages.create({
    model,
    max_tokens: 1024,
    messages: [{ role: "user", content }],
    tools: [
      {
        name: "answer",
        description: "Give your answer and a one-sentence reason.",
        input_schema: {
          type: "object",
          properties: { answer: { type: "boolean" }, reason: { type: "string" } },
          required: ["answer", "reason"],
        },
      },
    ],
    tool_choice: { type: "tool", name: "answer" },
  });

const [what, count] = process.argv.slice(2);
if (what === "hello") {
  const message = await ask("Say hello and briefly introduce yourself");
  console.log(message.content[0].text);
} else if (what === "fanout") {
  const answers = await Promise.all(Array.from({ length: Number(count) }, (_, index) => ask(`Task ${index + 1}`)));
  console.log(answers.length);
} else if (what === "same") {
  const { stream, ...body } = JSON.parse(readFileSync(process.argv[4], "utf8"));
  const send = (index) => {
    const params = { ...body, messages: [{ role: "user", content: [{ type: "text", text: `Do Task ${index + 1}` }] }] };
    return stream
      ? client.messages.stream(params).finalMessage()
      : client.messages.create(params, { timeout: 600_000 });
  };
  const answers = await Promise.all(Array.from({ length: Number(count) }, (_, index) => send(index)));
  console.log(answers.length);
} else if (what === "durable" || what === "durable-whole") {
  const { stream: _streamed, ...body } = JSON.parse(readFileSync(process.argv[4], "utf8"));
  const folder = `.durable-floor-${process.pid}`;
  mkdirSync(`${folder}/bindings`, { recursive: true });
  try {
    const journal = openSync(`${folder}/journal.jsonl`, "a");
    const send = async (index) => {
      const params = {
        ...body,
        messages: [{ role: "user", content: [{ type: "text", text: `Do Task ${index + 1}` }] }],
      };
      const message =
        what === "durable"
          ? await client.messages.stream(params).finalMessage()
          : await client.messages.create(params, { timeout: 600_000 });
      const record = JSON.stringify({ step: `4:3/${index}`, content: message.content, usage: message.usage });
      writeSync(journal, `${record}\t${hash("sha256", record)}\n`);
      writeFileSync(`${folder}/bindings/result-${index}.md`, message.content[0]?.text ?? "");
      return message;
    };
    const answers = await Promise.all(Array.from({ length: Number(count) }, (_, index) => send(index)));
    console.log(answers.length);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
} else if (what === "workflow") {
  // 5 sequential sessions, 16 in parallel and a combine, then a judged loop of 2 rounds: 26 requests.
  let notes = "";
  for (let step = 1; step <= 5; step++) notes = (await ask(`Step ${step}: ${notes}`)).content[0].text;
  const parts = await Promise.all(Array.from({ length: 16 }, (_, index) => ask(`Part ${index + 1} of ${notes}`)));
  let draft = (await ask(`Combine: ${parts.map((part) => part.content[0].text).join("\n")}`)).content[0].text;
  for (let round = 0; round < 2; round++) {
    draft = (await ask(`Improve: ${draft}`)).content[0].text;
    const verdict = (await judge(`Is this good enough? ${draft}`)).content.find((block) => block.type === "tool_use");
    if (verdict.input.answer === true) break;
  }
  console.log(draft);
}
