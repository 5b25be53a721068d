/** Top-level statements above which a program's body is split into parts (see parts.ts). */
export const partThreshold = 150;
