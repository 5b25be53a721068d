/** Whether `text` matches `pattern`, where `*` is any text (line breaks included) and nothing else is special. */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (!pattern.includes("*")) return pattern === text;
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join("[^]*");
  return new RegExp(`^${body}$`).test(text);
}
