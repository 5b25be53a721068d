/** A program's text from its lines, each ended by a newline. */
export const lines = (...source: string[]): string => `${source.join("\n")}\n`;
