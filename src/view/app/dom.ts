/// <reference lib="dom" />
/** Building the page's elements: text always goes in as text (never as HTML). */

export function el(
  tag: string,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

export function textBlock(text: string): HTMLElement {
  return el("pre", { class: "text" }, text);
}

export function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

export function formatDollars(value: number): string {
  return `$${value.toFixed(4)}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
