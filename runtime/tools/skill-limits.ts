/**
 * The Agent Skills format's limits on a skill's front matter: what a session's system prompt lists of
 * a skill at most (longer text is cut), and what the static cost bound counts per skill.
 */
export const SKILL_NAME_CHARS = 64;
export const SKILL_DESCRIPTION_CHARS = 1024;
